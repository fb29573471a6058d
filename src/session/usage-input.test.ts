import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWith } from '../errors/validation.js';
import { ManualUsageInputSchema, parseUsageInput } from './usage-input.js';

/** The token counts of a manual record, read from the schema (a hand list drifted: it missed cachedWrite1hTokens). */
const KEYS = Object.keys(ManualUsageInputSchema.shape).filter((key) => key.endsWith('Tokens'));

describe('parseUsageInput', () => {
  it('reads every token count of the schema, cachedWrite1hTokens included', () => {
    expect(KEYS).toEqual([
      'promptTokens',
      'completionTokens',
      'cachedReadTokens',
      'cachedWriteTokens',
      'cachedWrite1hTokens',
      'reasoningTokens',
    ]);
  });

  it('accepts and refuses the common body exactly as the schema does, with the schema’s issues', () => {
    const value = fc.oneof(
      fc.integer({ min: -5, max: 1_000_000 }),
      fc.constantFrom(0, -0, 1.5, -1, 2 ** 53, 2 ** 53 - 1, Number.NaN, Number.POSITIVE_INFINITY, 1e21),
      fc.constantFrom('12', null, true, [], {}),
    );
    const body = fc.dictionary(fc.constantFrom(...KEYS, 'model', 'extra', '__proto__', 'toString'), value, {
      maxKeys: 6,
    });
    fc.assert(
      fc.property(body, (raw) => {
        const parsed = parseUsageInput(raw);
        const bySchema = parseWith(ManualUsageInputSchema, raw);
        expect(parsed.ok).toBe(bySchema.ok);
        if (!parsed.ok && !bySchema.ok) expect(parsed.issues).toEqual(bySchema.issues);
        if (parsed.ok && bySchema.ok) {
          const input = bySchema.value;
          expect(parsed.value.usage).toMatchObject({
            promptTokens: input.promptTokens,
            completionTokens: input.completionTokens ?? 0,
            cachedReadTokens: input.cachedReadTokens ?? 0,
            cachedWriteTokens: input.cachedWriteTokens ?? 0,
            reasoningTokens: input.reasoningTokens ?? 0,
          });
          // At most the cache writes, and absent when there is none (as replay prices them).
          const oneHour = input.cachedWrite1hTokens
            ? Math.min(input.cachedWrite1hTokens, input.cachedWriteTokens ?? 0)
            : undefined;
          expect((parsed.value.usage as { cachedWrite1hTokens?: number }).cachedWrite1hTokens).toBe(oneHour);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('passes a local engine’s KV cell count on, and names the field of a bad one', () => {
    const parsed = parseUsageInput({ promptTokens: 300, completionTokens: 20, kvCellsUsed: 2000 });
    expect(parsed.ok && parsed.value.kvCellsUsed).toBe(2000);
    const raw = parseUsageInput({
      format: 'llama-cpp',
      response: { usage: { prompt_tokens: 300, completion_tokens: 20 } },
      kvCellsUsed: 2000,
    });
    expect(raw.ok && raw.value.kvCellsUsed).toBe(2000);
    const bad = parseUsageInput({ promptTokens: 300, kvCellsUsed: -1 });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.issues).toMatchObject([{ field: 'kvCellsUsed', value: -1, message: 'must be ≥ 0' }]);
  });

  it('reads the common body of a usage post and keeps only the usage update', () => {
    expect(
      parseUsageInput(JSON.parse('{"promptTokens":120000,"completionTokens":800,"cachedReadTokens":110000}')),
    ).toEqual({
      ok: true,
      value: {
        usage: {
          available: true,
          source: 'manual',
          promptTokens: 120_000,
          completionTokens: 800,
          totalTokens: 120_800,
          cachedReadTokens: 110_000,
          cachedWriteTokens: 0,
          reasoningTokens: 0,
        },
      },
    });
  });
});

describe('parseUsageInput of a provider response', () => {
  it('refuses what is no response (a number, null, an empty list of events), naming `response` (issue 40)', () => {
    for (const response of [5, null, [], true]) {
      const parsed = parseUsageInput({ format: 'openai-responses', response });
      expect(parsed.ok, JSON.stringify(response)).toBe(false);
      if (!parsed.ok) expect(parsed.issues.map((issue) => issue.field)).toEqual(['response']);
    }
    // A response without usage is a call whose usage is unknown, not a mistake: it is read.
    for (const response of [{}, [{}], 'event: done\n\n'])
      expect(parseUsageInput({ format: 'openai-responses', response }).ok, JSON.stringify(response)).toBe(
        true,
      );
  });
});
