import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { compressHotState, enforceBudget } from './enforce-budget.js';
import { buildHotState, formatHotStateJson, type HotState } from './hot-state.js';

const o200k = createTokenCounter();
const tokensOf = (state: HotState) => o200k.count(formatHotStateJson(state));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const id = (i: number) => i.toString(16).padStart(64, '0');
const constraints = Array.from({ length: 500 }, (_, i) => `constraint ${i}: keep the public API stable`);
const summary = 'A long description of what this file holds, repeated so that it costs tokens. '.repeat(3);

describe('enforceBudget', () => {
  it('passes a state within budget unchanged', () => {
    const state = buildHotState({
      session_id: 's1',
      objective: 'Fix the failing test',
      constraints: ['no new deps'],
    });
    expect(enforceBudget(state)).toEqual({
      type: 'pass',
      state,
      tokens: tokensOf(state),
      counter: 'o200k_base',
    });
  });

  it('compresses when dropping artifact summaries and duplicate entries is enough', () => {
    const state = buildHotState({
      session_id: 's1',
      constraints: Array.from({ length: 40 }, () => 'keep the public API stable'),
      artifact_index: Array.from({ length: 20 }, (_, i) => ({
        artifact_id: id(i),
        type: 'code' as const,
        summary,
      })),
    });
    expect(tokensOf(state)).toBeGreaterThan(1000);
    const decision = enforceBudget(state);
    expect(decision.type).toBe('compress');
    if (decision.type !== 'compress') return;
    expect(decision.state.constraints).toEqual(['keep the public API stable']);
    expect(decision.state.artifact_index).toEqual(
      Array.from({ length: 20 }, (_, i) => ({ artifact_id: id(i), type: 'code' })),
    );
    expect(decision.tokens).toBe(tokensOf(decision.state));
    expect(decision.tokens).toBeLessThanOrEqual(1000);
    expect(decision.originalTokens).toBe(tokensOf(state));
    expect(decision.changes).toEqual([
      { field: 'constraints', change: 'deduplicated', removed: 39 },
      { field: 'artifact_index', change: 'dropped-summaries', removed: 20 },
    ]);
  });

  it('moves 500 distinct constraints to an artifact reference when compression cannot help', () => {
    const state = buildHotState({ session_id: 's1', objective: 'Ship it', risk_level: 'low', constraints });
    const decision = enforceBudget(state);
    expect(decision.type).toBe('reference');
    if (decision.type !== 'reference') return;
    const content = JSON.stringify(constraints);
    expect(decision.references).toEqual([
      { field: 'constraints', artifactId: sha256(content), content, entries: 500 },
    ]);
    expect(decision.state).toEqual({
      session_id: 's1',
      objective: 'Ship it',
      risk_level: 'low',
      artifact_index: [
        { artifact_id: sha256(content), type: 'data', label: 'constraints.json', summary: '500 constraints' },
      ],
    });
    expect(decision.tokens).toBe(tokensOf(decision.state));
    expect(decision.tokens).toBeLessThanOrEqual(1000);
  });

  it('regression: references lists of the original state, not of the compressed one (the seed never referenced)', () => {
    // Duplicates make compression change the list; the artifact must still hold the list exactly as given.
    const withDuplicates = [...constraints, ...constraints.slice(0, 10)];
    const state = buildHotState({ session_id: 's1', constraints: withDuplicates });
    const decision = enforceBudget(state);
    expect(decision.type).toBe('reference');
    if (decision.type !== 'reference') return;
    expect(JSON.parse(decision.references[0]?.content ?? 'null')).toEqual(withDuplicates);
  });

  it('moves only as many lists as needed, the largest first', () => {
    const state = buildHotState({
      session_id: 's1',
      constraints,
      open_questions: ['which TPM limit applies?', 'is Redis required?'],
    });
    const decision = enforceBudget(state);
    expect(decision.type).toBe('reference');
    if (decision.type !== 'reference') return;
    expect(decision.references.map((r) => r.field)).toEqual(['constraints']);
    expect(decision.state.open_questions).toEqual(['which TPM limit applies?', 'is Redis required?']);
  });

  it('references without compressing when compression is disabled', () => {
    const state = buildHotState({ session_id: 's1', constraints });
    expect(enforceBudget(state, { compress: false }).type).toBe('reference');
  });

  describe('reject (fail closed)', () => {
    it('rejects 25 artifact references that neither strategy can reduce', () => {
      const state = buildHotState({
        session_id: 's1',
        artifact_index: Array.from({ length: 25 }, (_, i) => ({ artifact_id: id(i), type: 'code' as const })),
      });
      const decision = enforceBudget(state);
      expect(decision.type).toBe('reject');
      if (decision.type !== 'reject') return;
      expect(decision.state).toEqual(state);
      expect(decision.tried).toEqual(['compress', 'reference']);
      expect(decision.violations).toEqual([
        { code: 'artifact_index_entries', actual: 25, limit: 20, reason: 'over_limit' },
      ]);
    });

    it('rejects an objective too large to fit', () => {
      const state = buildHotState({ session_id: 's1', objective: 'Make it fast. '.repeat(600) });
      expect(enforceBudget(state).type).toBe('reject');
    });

    it('rejects what compression would fix when compression is disabled and nothing can be referenced', () => {
      const state = buildHotState({
        session_id: 's1',
        artifact_index: Array.from({ length: 20 }, (_, i) => ({
          artifact_id: id(i),
          type: 'code' as const,
          summary,
        })),
      });
      const decision = enforceBudget(state, { compress: false });
      expect(decision).toMatchObject({ type: 'reject', tried: ['reference'] });
    });

    it('rejects large lists when referencing is disabled', () => {
      const state = buildHotState({ session_id: 's1', constraints });
      expect(enforceBudget(state, { reference: false })).toMatchObject({
        type: 'reject',
        tried: ['compress'],
      });
    });

    it('rejects when the state cannot be counted', () => {
      const throwing: TokenCounter = {
        name: 'broken',
        estimate: false,
        count() {
          throw new Error('tokenizer unavailable');
        },
      };
      const state = buildHotState({ session_id: 's1' });
      const decision = enforceBudget(state, { counter: throwing });
      expect(decision).toMatchObject({
        type: 'reject',
        originalTokens: null,
        violations: [{ code: 'hot_state_tokens', actual: null, limit: 1000, reason: 'unmeasurable' }],
      });
    });
  });

  it('honours custom limits', () => {
    const state = buildHotState({ session_id: 's1', objective: 'Fix the failing test' });
    const decision = enforceBudget(state, { limits: { maxHotStateTokens: tokensOf(state) - 1 } });
    expect(decision.type).toBe('reject');
  });

  it('does not mutate the state it is given', () => {
    const state = buildHotState({ session_id: 's1', constraints: [...constraints] });
    const copy = structuredClone(state);
    enforceBudget(state);
    expect(state).toEqual(copy);
  });

  it('rejects invalid options and states', () => {
    const state = buildHotState({ session_id: 's1' });
    expect(() => enforceBudget(state, { strategy: 'x' } as never)).toThrow(BarometerValidationError);
    expect(() => enforceBudget(state, { counter: {} as never })).toThrow(/token counter/);
    expect(() => enforceBudget({ session_id: 's1', extra: 1 } as never)).toThrow(/extra: unknown parameter/);
  });
});

describe('compressHotState', () => {
  it('drops empty lists and strings and reports each change', () => {
    const { state, changes } = compressHotState({
      session_id: 's1',
      constraints: [],
      open_questions: ['q', 'q'],
    });
    expect(state).toEqual({ session_id: 's1', open_questions: ['q'] });
    expect(changes).toEqual([
      { field: 'constraints', change: 'dropped-empty', removed: 1 },
      { field: 'open_questions', change: 'deduplicated', removed: 1 },
    ]);
  });

  it('removes duplicate artifact references but keeps distinct versions', () => {
    const entry = { artifact_id: id(1), type: 'doc' as const, label: 'spec.md' };
    const { state } = compressHotState({
      session_id: 's1',
      artifact_index: [entry, entry, { ...entry, version: '2' }],
    });
    expect(state.artifact_index).toEqual([entry, { ...entry, version: '2' }]);
  });
});
