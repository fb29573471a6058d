import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { charsEstimateCounter } from '../tokens/chars-estimate-counter.js';
import { countMessages } from '../tokens/count-messages.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { DEFAULT_BUDGET_LIMITS } from './budget-limits.js';
import { buildHotState, formatHotStateJson } from './hot-state.js';
import { validateBudgets, validateHotStateBudget } from './validate-budgets.js';

const o200k = createTokenCounter();
const state = buildHotState({ session_id: 's1', objective: 'Fix the failing test' });
const stateTokens = o200k.count(formatHotStateJson(state));
const sentence = 'The quick brown fox jumps over the lazy dog. ';
const prose = (chars: number) => sentence.repeat(Math.ceil(chars / sentence.length)).slice(0, chars);
const refs = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    artifact_id: i.toString(16).padStart(64, '0'),
    type: 'code' as const,
  }));
const throwing: TokenCounter = {
  name: 'broken',
  estimate: false,
  count() {
    throw new Error('tokenizer unavailable');
  },
};

describe('validateBudgets', () => {
  it('has the seed defaults: 1000 / 20 / 8000 / 10 / 2000', () => {
    expect(DEFAULT_BUDGET_LIMITS).toEqual({
      maxHotStateTokens: 1000,
      maxArtifactIndexEntries: 20,
      maxPromptTokens: 8000,
      maxRagChunks: 10,
      maxInlineArtifactChars: 2000,
    });
    expect(validateBudgets(state, {}).limits).toEqual(DEFAULT_BUDGET_LIMITS);
  });

  it('passes a small prompt and reports what it measured', () => {
    const check = validateBudgets(state, { systemPrompt: 'You are terse.', userContent: 'hello world' });
    expect(check.ok).toBe(true);
    expect(check.violations).toEqual([]);
    // 4 tokens ("You" " are" " terse" ".") + 2 ("hello" " world") beside the hot state.
    expect(check.measured).toEqual({
      hotStateTokens: stateTokens,
      artifactIndexEntries: 0,
      promptTokens: stateTokens + 4 + 2,
      ragChunks: 0,
      inlineArtifactChars: [],
    });
    expect(check.counter).toBe('o200k_base');
  });

  describe('artifact references', () => {
    it('flags 25 references with actual 25', () => {
      const check = validateBudgets(buildHotState({ session_id: 's1', artifact_index: refs(25) }), {});
      expect(check.ok).toBe(false);
      expect(check.violations).toContainEqual({
        code: 'artifact_index_entries',
        actual: 25,
        limit: 20,
        reason: 'over_limit',
      });
    });

    it('accepts exactly 20', () => {
      const check = validateBudgets(buildHotState({ session_id: 's1', artifact_index: refs(20) }), {});
      expect(check.violations.map((v) => v.code)).not.toContain('artifact_index_entries');
    });
  });

  it('flags the 5000-character inline artifact among [100, 5000, 200]', () => {
    const inlineArtifacts = [100, 5000, 200].map((n) => 'x'.repeat(n));
    const check = validateBudgets(state, { inlineArtifacts });
    expect(check.measured.inlineArtifactChars).toEqual([100, 5000, 200]);
    expect(check.violations).toEqual([
      { code: 'inline_artifact_chars', actual: 5000, limit: 2000, reason: 'over_limit', index: 1 },
    ]);
  });

  it('fails a 20,000-character system prompt plus 15,000 characters of user content against 5000 tokens', () => {
    const systemPrompt = prose(20_000);
    const userContent = prose(15_000);
    const check = validateBudgets(
      state,
      { systemPrompt, userContent },
      { limits: { maxPromptTokens: 5000 } },
    );
    const expected = stateTokens + o200k.count(systemPrompt) + o200k.count(userContent);
    expect(check.ok).toBe(false);
    expect(check.violations).toEqual([
      { code: 'prompt_tokens', actual: expected, limit: 5000, reason: 'over_limit' },
    ]);
    expect(expected).toBeGreaterThan(5000);
  });

  it('counts messages, RAG chunks and inline artifacts into the prompt', () => {
    const messages = [{ role: 'user', content: 'hello world' }];
    const check = validateBudgets(state, {
      messages,
      ragChunks: ['hello world'],
      inlineArtifacts: ['hello world'],
    });
    expect(check.measured.promptTokens).toBe(stateTokens + countMessages(messages, o200k).tokens + 2 + 2);
  });

  it('flags more than 10 RAG chunks', () => {
    const check = validateBudgets(state, { ragChunks: Array.from({ length: 11 }, () => 'chunk') });
    expect(check.violations).toEqual([{ code: 'rag_chunks', actual: 11, limit: 10, reason: 'over_limit' }]);
  });

  it('reports every violation, not only the first', () => {
    const heavy = buildHotState({ session_id: 's1', artifact_index: refs(25), constraints: [prose(8000)] });
    const check = validateBudgets(heavy, {
      ragChunks: Array.from({ length: 12 }, () => 'chunk'),
      inlineArtifacts: ['x'.repeat(2001)],
      systemPrompt: prose(40_000),
    });
    expect(check.violations.map((v) => v.code).sort()).toEqual([
      'artifact_index_entries',
      'hot_state_tokens',
      'inline_artifact_chars',
      'prompt_tokens',
      'rag_chunks',
    ]);
  });

  it('uses the provider-measured prompt size when given', () => {
    const check = validateBudgets(state, { systemPrompt: 'short', promptTokens: 9000 });
    expect(check.measured.promptTokens).toBe(9000);
    expect(check.violations).toEqual([
      { code: 'prompt_tokens', actual: 9000, limit: 8000, reason: 'over_limit' },
    ]);
  });

  describe('fail closed', () => {
    it('turns a counter that throws into unmeasurable violations', () => {
      const check = validateBudgets(state, { systemPrompt: 'x' }, { counter: throwing });
      expect(check.ok).toBe(false);
      expect(check.violations).toEqual([
        { code: 'hot_state_tokens', actual: null, limit: 1000, reason: 'unmeasurable' },
        { code: 'prompt_tokens', actual: null, limit: 8000, reason: 'unmeasurable' },
      ]);
    });

    it('treats a counter answering NaN as unmeasurable', () => {
      const nan: TokenCounter = { name: 'nan', estimate: true, count: () => Number.NaN };
      expect(validateHotStateBudget(state, { counter: nan }).violations).toEqual([
        { code: 'hot_state_tokens', actual: null, limit: 1000, reason: 'unmeasurable' },
      ]);
    });

    it('does not pass a prompt with images on a text-only count', () => {
      const messages = [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
      ];
      expect(validateBudgets(state, { messages }).violations).toEqual([
        { code: 'prompt_tokens', actual: null, limit: 8000, reason: 'unmeasurable' },
      ]);
      expect(validateBudgets(state, { messages, promptTokens: 900 }).ok).toBe(true);
    });
  });

  it('reports the counter, and whether it is an estimate', () => {
    const check = validateBudgets(state, { userContent: 'abcdefgh' }, { counter: charsEstimateCounter });
    expect(check).toMatchObject({ counter: 'chars/4-estimate', estimate: true });
    expect(check.measured.promptTokens).toBe(Math.ceil(formatHotStateJson(state).length / 4) + 2);
  });

  it('rejects invalid limits, prompt parts and hot states', () => {
    expect(() => validateBudgets(state, {}, { limits: { maxPromptTokens: -1 } })).toThrow(
      BarometerValidationError,
    );
    expect(() => validateBudgets(state, {}, { limits: { maxTokens: 5 } as never })).toThrow(/maxTokens/);
    expect(() => validateBudgets(state, { systemPromptChars: 5 } as never)).toThrow(/systemPromptChars/);
    expect(() => validateBudgets({ session_id: '' }, {})).toThrow(BarometerValidationError);
  });
});

describe('validateHotStateBudget', () => {
  it('checks the hot state alone', () => {
    const check = validateHotStateBudget(state);
    expect(check.ok).toBe(true);
    expect(check.measured.hotStateTokens).toBe(stateTokens);
  });

  it('flags a hot state over its token limit', () => {
    const check = validateHotStateBudget(state, { limits: { maxHotStateTokens: stateTokens - 1 } });
    expect(check.violations).toEqual([
      { code: 'hot_state_tokens', actual: stateTokens, limit: stateTokens - 1, reason: 'over_limit' },
    ]);
  });
});
