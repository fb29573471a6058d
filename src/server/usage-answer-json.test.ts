import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SessionMonitor } from '../session/session-monitor.js';
import type { UsageUpdate } from '../session/session-options.js';
import { type UsageAnswer, UsageAnswerSchema } from '../session/session-schemas.js';
import { usageAnswerJson } from './usage-answer-json.js';

const START = Date.parse('2026-11-22T12:00:00Z');

function update(step: {
  prompt: number;
  completion: number;
  cachedRead: number;
  gapMs: number;
  taskCompleted: boolean;
  headers: boolean;
  unavailable: boolean;
  at: number;
}): UsageUpdate {
  const usage: UsageUpdate['usage'] = step.unavailable
    ? { available: false, source: 'manual', reason: 'the "provider" sent no usage\n(a test)' }
    : {
        available: true,
        source: 'manual',
        promptTokens: step.prompt,
        completionTokens: step.completion,
        totalTokens: step.prompt + step.completion,
        cachedReadTokens: Math.min(step.cachedRead, step.prompt),
        cachedWriteTokens: 0,
        reasoningTokens: 0,
      };
  return {
    usage,
    timestamp: step.at,
    ...(step.taskCompleted ? { taskCompleted: true } : {}),
    ...(step.headers
      ? {
          headers: {
            'anthropic-ratelimit-input-tokens-limit': '400000',
            'anthropic-ratelimit-input-tokens-remaining': String(Math.max(0, 400_000 - step.prompt)),
            'anthropic-ratelimit-input-tokens-reset': new Date(step.at + 30_000).toISOString(),
          },
        }
      : {}),
  };
}

/** Every object key a schema allows, by path (`verdict.reasons[].model`), following nullable and arrays. */
function schemaKeys(schema: z.ZodType, path = ''): string[] {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  if (def.type === 'nullable' || def.type === 'optional') return schemaKeys(def.innerType as z.ZodType, path);
  if (def.type === 'array') return schemaKeys(def.element as z.ZodType, `${path}[]`);
  if (def.type !== 'object') return [];
  return Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([key, value]) => [
    `${path}.${key}`,
    ...schemaKeys(value, `${path}.${key}`),
  ]);
}

function writtenKeys(value: unknown, path = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) writtenKeys(item, `${path}[]`, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      into.add(`${path}.${key}`);
      writtenKeys(item, `${path}.${key}`, into);
    }
  }
  return into;
}

describe('usageAnswerJson', () => {
  it('writes what JSON.stringify writes, for the answers of sessions of every kind', async () => {
    const step = fc.record({
      prompt: fc.integer({ min: 0, max: 400_000 }),
      completion: fc.integer({ min: 0, max: 20_000 }),
      cachedRead: fc.integer({ min: 0, max: 400_000 }),
      gapMs: fc.integer({ min: 0, max: 90_000 }),
      taskCompleted: fc.boolean(),
      headers: fc.boolean(),
      unavailable: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('claude-opus-4-6', 'gpt-5', 'gemini-2.5-pro', 'claude-sonnet-4-5'),
        fc.record({
          tokenBudget: fc.option(fc.integer({ min: 1000, max: 3_000_000 }), { nil: undefined }),
          tpmLimit: fc.option(fc.integer({ min: 1000, max: 2_000_000 }), { nil: undefined }),
          kv: fc.boolean(),
        }),
        fc.array(step, { minLength: 1, maxLength: 12 }),
        async (model, limits, steps) => {
          const monitor = new SessionMonitor({ now: () => START });
          await monitor.create({
            id: 's',
            model,
            ...(limits.tokenBudget === undefined ? {} : { tokenBudget: limits.tokenBudget }),
            ...(limits.tpmLimit === undefined ? {} : { tpmLimit: limits.tpmLimit }),
            ...(limits.kv ? { kv: { nCtx: 200_000 } } : {}),
          });
          let at = START;
          for (const each of steps) {
            at += each.gapMs;
            const answer: UsageAnswer = await monitor.postUsage('s', update({ ...each, at }));
            expect(usageAnswerJson(answer)).toBe(JSON.stringify(answer));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('writes every key of the answer schema (an answer with a reminder, quotas, thinking and events)', async () => {
    const monitor = new SessionMonitor({ now: () => START });
    await monitor.create({ id: 's', model: 'claude-opus-4-6', tpmLimit: 200_000, tokenBudget: 10_000_000 });
    const keys = new Set<string>();
    for (let index = 0; index < 40; index++) {
      const answer = await monitor.postUsage(
        's',
        update({
          prompt: 120_000 + index * 1000,
          completion: 800,
          cachedRead: 1000,
          gapMs: 0,
          taskCompleted: false,
          headers: false,
          unavailable: false,
          at: START + index * 100,
        }),
      );
      writtenKeys(JSON.parse(usageAnswerJson(answer)), '', keys);
    }
    // The thinking parameters are the provider's own (a record), and events a union: written as they are.
    const expected = schemaKeys(UsageAnswerSchema).filter((key) => !key.startsWith('.events[].'));
    for (const key of expected) expect(keys, key).toContain(key);
  });

  it('escapes what JSON must escape, and writes NaN and infinities as null, as JSON.stringify does', async () => {
    const monitor = new SessionMonitor({ now: () => START });
    await monitor.create({ id: 's', model: 'gpt-5' });
    const answer = await monitor.postUsage(
      's',
      update({
        prompt: 1000,
        completion: 10,
        cachedRead: 0,
        gapMs: 0,
        taskCompleted: false,
        headers: false,
        unavailable: false,
        at: START,
      }),
    );
    const weird = 'quote " backslash \\ tab \t lone \ud800 pair \ud83d\ude00 é';
    const odd: UsageAnswer = {
      ...answer,
      sessionId: weird,
      at: `${weird}\n`,
      costUsd: Number.NaN,
      verdict: {
        ...answer.verdict,
        reasons: answer.verdict.reasons.map((reason, index) => ({ ...reason, reason: `${index} ${weird}` })),
      },
      health: { ...answer.health, reminder: { id: 'context_health', text: `\u0001${weird}"` } },
      signals: { ...answer.signals, tokensLastMinute: Number.POSITIVE_INFINITY, percentOfWindow: -0 },
      trigger: { ...answer.trigger, reasons: ['plain', weird, '', '"'] },
    };
    expect(usageAnswerJson(odd)).toBe(JSON.stringify(odd));
    // Every text is written between quotes the pieces around it hold: none, one, or only escapes.
    for (const reasons of [[], [weird], ['"'], ['a', 'b']]) {
      const each = { ...odd, trigger: { ...odd.trigger, reasons } };
      expect(usageAnswerJson(each)).toBe(JSON.stringify(each));
    }
  });

  it('writes the thinking parameters a step shares (frozen) once, and any other object as it is at each call', async () => {
    const monitor = new SessionMonitor({ now: () => START });
    for (const id of ['a', 'b']) await monitor.create({ id, model: 'claude-opus-4-6', tpmLimit: 200_000 });
    const post = (id: string, index: number) =>
      monitor.postUsage(
        id,
        update({
          prompt: 120_000,
          completion: 800,
          cachedRead: 0,
          gapMs: 0,
          taskCompleted: false,
          headers: false,
          unavailable: false,
          at: START + index * 100,
        }),
      );
    await post('a', 0);
    await post('b', 0);
    const first = await post('a', 1);
    const second = await post('b', 1);
    // The tokens per minute are over the quota: thinking is lowered (Anthropic's parameters, seed 004).
    expect(first.verdict.thinking).toEqual({ thinking: { type: 'enabled', budget_tokens: 8192 } });
    expect(second.verdict.thinking).toBe(first.verdict.thinking);
    const shared = first.verdict.thinking as { thinking: { budget_tokens: number } };
    expect(Object.isFrozen(shared) && Object.isFrozen(shared.thinking)).toBe(true);
    expect(() => {
      shared.thinking.budget_tokens = 1;
    }).toThrow(TypeError);
    for (const answer of [first, second, first]) expect(usageAnswerJson(answer)).toBe(JSON.stringify(answer));
    // An object of the caller's own (a state read back from JSON) is written as it is now, each time.
    const own = { thinking: { type: 'enabled', budget_tokens: 8192 } };
    const answer = { ...first, verdict: { ...first.verdict, thinking: own } };
    expect(usageAnswerJson(answer)).toBe(JSON.stringify(answer));
    own.thinking.budget_tokens = 1024;
    expect(usageAnswerJson(answer)).toContain('"budget_tokens":1024');
    expect(usageAnswerJson(answer)).toBe(JSON.stringify(answer));
    // Frozen on the outside only, its inside can still change: written each time too.
    const inner = { type: 'enabled', budget_tokens: 8192 };
    const shallow = { ...first, verdict: { ...first.verdict, thinking: Object.freeze({ thinking: inner }) } };
    expect(usageAnswerJson(shallow)).toContain('"budget_tokens":8192');
    inner.budget_tokens = 2048;
    expect(usageAnswerJson(shallow)).toContain('"budget_tokens":2048');
  });
});
