import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { normalizeAnthropic } from '../usage/normalize-anthropic.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { Session } from './session.js';

// On a 2-second bucket boundary, so the waits below are whole.
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const at = (second: number) => T0 + second * 1000;
const anthropic = (uncached: number, cacheRead: number, output = 300, cacheWrite = 0): UsageRecord =>
  normalizeAnthropic({
    model: 'claude-sonnet-4-5',
    usage: {
      input_tokens: uncached,
      cache_read_input_tokens: cacheRead,
      cache_creation_input_tokens: cacheWrite,
      output_tokens: output,
    },
  });
const openai = (prompt: number, completion: number, model = 'gpt-5'): UsageRecord => ({
  available: true,
  source: 'openai-chat',
  model,
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  cachedReadTokens: 0,
  cachedWriteTokens: 0,
  reasoningTokens: 0,
});

describe('quotas as the providers count them', () => {
  it('four cached Anthropic calls of ~91K prompt tokens do not trip survival under a 400K limit (the found case)', () => {
    // 500 uncached + 90,500 cache reads each: Anthropic counts 500 + 300 output towards its limits.
    const s = new Session({ model: 'claude-sonnet-4-5', tpmLimit: 400_000 }, { now: () => T0 });
    const updates = [0, 8, 16, 24].map((second) =>
      s.update({ usage: anthropic(500, 90_500), timestamp: at(second) }),
    );
    const last = updates.at(-1)!;
    expect(last.signals.lastPromptTokens).toBe(91_000);
    expect(last.signals.quotas).toEqual([
      {
        dimension: 'tokens',
        limit: 400_000,
        used: 3200,
        left: 396_800,
        need: 800,
        source: 'estimate',
        waitSeconds: 0,
      },
    ]);
    expect(last.trigger.fire).toBe(false);
    expect(last.verdict).toMatchObject({ action: 'continue', waitSeconds: null });
  });

  it('counts Anthropic input (ITPM) as uncached + cache writes and output (OTPM) apart, and says when to wait', () => {
    const s = new Session(
      {
        model: 'claude-sonnet-4-5',
        rateLimits: { inputTokensPerMinute: 30_000, outputTokensPerMinute: 8_000 },
      },
      { now: () => T0 },
    );
    // 12,000 counted input tokens a call (10,000 uncached + 2,000 written to the cache), 60,000 read from it.
    const call = (second: number) =>
      s.update({ usage: anthropic(10_000, 60_000, 500, 2_000), timestamp: at(second) });
    expect(call(0).verdict.action).toBe('continue');
    // 24,000 counted, 6,000 left < 12,000 × 1.2: survival. The next 12,000 fit once the first call's bucket
    // leaves the window, 60 s after it: 50 s from now.
    const second = call(10);
    expect(second.signals.quotas).toEqual([
      {
        dimension: 'input',
        limit: 30_000,
        used: 24_000,
        left: 6000,
        need: 12_000,
        source: 'estimate',
        waitSeconds: 50,
      },
      {
        dimension: 'output',
        limit: 8000,
        used: 1000,
        left: 7000,
        need: 500,
        source: 'estimate',
        waitSeconds: 0,
      },
    ]);
    // With the margin, 14,400 fit once 15,600 or fewer are counted: also when the first bucket leaves, 50 s from
    // now, within the 60 s a session waits by default: wait, not compress.
    expect(second.trigger.fire).toBe(false);
    expect(second.verdict).toMatchObject({ action: 'wait', priority: 'high', waitSeconds: 50 });
    expect(second.verdict.reasons.find((reason) => reason.model === 'quota')?.reason).toMatch(
      /^wait 50 s rather than compress: input tokens per minute: 6000 left, 14400 needed with the margin/,
    );
    // At 20 s, 36,000 counted: the first bucket leaving (60 s) leaves 24,000 used, 6,000 short; the second
    // (70 s) leaves 12,000: 50 s from now.
    expect(call(20).verdict.waitSeconds).toBe(50);
  });

  it("takes the provider's headers over the estimate", () => {
    const s = new Session({ model: 'gpt-4o-mini' }, { now: () => T0 });
    const update = s.update({
      usage: openai(4_000, 1_000, 'gpt-4o-mini'),
      timestamp: T0,
      headers: {
        'X-RateLimit-Limit-Tokens': '30000',
        'x-ratelimit-remaining-tokens': '1000',
        'x-ratelimit-reset-tokens': '29s',
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-remaining-requests': '499',
        'x-ratelimit-reset-requests': '120ms',
      },
    });
    // 5,000 needed, 1,000 left; the 29,000 missing refill evenly over 29 s, 1,000 a second: 4 s (the standing).
    // With the survival margin, 6,000 are needed: 5 s, the verdict's wait.
    expect(update.signals.quotas).toEqual([
      { dimension: 'requests', limit: 500, used: 1, left: 499, need: 1, source: 'headers', waitSeconds: 0 },
      {
        dimension: 'tokens',
        limit: 30_000,
        used: 29_000,
        left: 1000,
        need: 5000,
        source: 'headers',
        waitSeconds: 4,
      },
    ]);
    expect(update.verdict).toMatchObject({ action: 'wait', waitSeconds: 5 });
    expect(update.signals.tpmLimit).toBe(30_000);
  });

  it('refuses tpmLimit and rateLimits.tokensPerMinute that contradict each other, naming the field', () => {
    const create = () =>
      new Session({ model: 'gpt-5', tpmLimit: 100_000, rateLimits: { tokensPerMinute: 200_000 } });
    expect(create).toThrow(BarometerValidationError);
    expect(() => create()).toThrow(/rateLimits\.tokensPerMinute/);
  });
});

describe('the thinking budget', () => {
  it('never lowers thinking on a model that does not reason (gpt-4o-mini, the found case)', () => {
    const s = new Session({ model: 'gpt-4o-mini', tpmLimit: 150_000 }, { now: () => T0 });
    const update = s.update({ usage: openai(20_000, 500, 'gpt-4o-mini'), timestamp: T0 });
    expect(update.verdict).toMatchObject({ action: 'continue', thinking: null });
  });

  it('lowers thinking under 20% of the quota left on a reasoning model, and raises it again only from 30%', () => {
    const s = new Session({ model: 'gpt-5', tpmLimit: 100_000 }, { now: () => T0 });
    // 9,500 tokens a call, every 2 s: after 9 calls 85,500 used, 14.5% left; the next call (11,400 with the
    // margin) still fits, so survival stays quiet and only thinking is lowered.
    const updates = Array.from({ length: 9 }, (_, call) =>
      s.update({ usage: openai(9_000, 500), timestamp: at(call * 2) }),
    );
    expect(updates.slice(0, 8).map((update) => update.verdict.thinking)).toEqual(Array(8).fill(null));
    const low = updates[8]!;
    expect(low.trigger.fire).toBe(false);
    expect(low.verdict).toMatchObject({ action: 'optimize', thinking: { reasoning_effort: 'low' } });
    expect(low.verdict.reasons.find((reason) => reason.model === 'triggers')?.reason).toMatch(
      /^thinking budget lowered to 8192 tokens: 14500 of 100000 tokens per minute left \(14.5%, under 20%\)/,
    );
    // At 61 s the call at 0 s has left the window: 76,000 used, 24% left. Without the band it would be raised.
    const held = s.update({ usage: openai(0, 0), timestamp: at(61) });
    expect(held.signals.tpmLeft).toBe(24_000);
    expect(held.verdict.thinking).toEqual({ reasoning_effort: 'low' });
    // At 65 s three calls have left: 57,000 used, 43% left, over 30%: raised.
    const raised = s.update({ usage: openai(0, 0), timestamp: at(65) });
    expect(raised.signals.tpmLeft).toBe(43_000);
    expect(raised.verdict.thinking).toBeNull();
  });

  it('gives each provider its own parameters', () => {
    const lowered = (model: string, usage: UsageRecord) =>
      new Session(
        { model, rateLimits: { inputTokensPerMinute: 10_000, tokensPerMinute: 10_000 } },
        { now: () => T0 },
      ).update({ usage, timestamp: T0 }).verdict.thinking;
    expect(lowered('claude-sonnet-4-5', anthropic(8_000, 0, 10))).toEqual({
      thinking: { type: 'enabled', budget_tokens: 8192 },
    });
    // Gemini 2.5 takes a thinking budget, Gemini 3 a level (the API refuses both at once).
    const gemini = (model: string): UsageRecord => ({ ...openai(8_500, 10, model), source: 'gemini' });
    expect(lowered('gemini-2.5-pro', gemini('gemini-2.5-pro'))).toEqual({
      thinkingConfig: { thinkingBudget: 8192 },
    });
    expect(lowered('gemini-3-pro-preview', gemini('gemini-3-pro-preview'))).toEqual({
      thinkingConfig: { thinkingLevel: 'LOW' },
    });
  });
});

describe('wait is an action (maxWaitSeconds)', () => {
  it('waits, not compresses, with 5,000 of 400,000 input tokens/min left and the bucket full in 20 s (the found case)', () => {
    const s = new Session({ model: 'claude-sonnet-4-5' }, { now: () => T0 });
    const update = s.update({
      usage: anthropic(20_000, 0),
      timestamp: T0,
      headers: {
        'anthropic-ratelimit-input-tokens-limit': '400000',
        'anthropic-ratelimit-input-tokens-remaining': '5000',
        'anthropic-ratelimit-input-tokens-reset': new Date(T0 + 20_000).toISOString(),
      },
    });
    // 395,000 refill over 20 s, 19,750 a second; 20,000 × 1.2 = 24,000 needed, 19,000 missing: 0.96 s, rounded up.
    expect(update.health.level).toBe('healthy');
    expect(update.trigger.fire).toBe(false);
    expect(update.verdict).toMatchObject({ action: 'wait', priority: 'high', waitSeconds: 1 });
    expect(update.verdict.reasons.find((reason) => reason.model === 'quota')).toMatchObject({
      action: 'wait',
      reason: expect.stringContaining('waiting keeps the prompt cache'),
    });
  });

  it('waits a moment when the next request fits but not with the 1.2 margin (2,000 of 30,000 left, the found case)', () => {
    const s = new Session({ model: 'gpt-4o-mini' }, { now: () => T0 });
    const update = s.update({
      usage: openai(1_500, 200, 'gpt-4o-mini'),
      timestamp: T0,
      headers: {
        'x-ratelimit-limit-tokens': '30000',
        'x-ratelimit-remaining-tokens': '2000',
        'x-ratelimit-reset-tokens': '28s',
      },
    });
    // 1,700 fit the 2,000 left (standing wait 0); 2,040 with the margin: 40 missing at 1,000 a second.
    expect(update.signals.quotas.find((quota) => quota.dimension === 'tokens')?.waitSeconds).toBe(0);
    expect(update.verdict).toMatchObject({ action: 'wait', waitSeconds: 0.1 });
  });

  it('compresses when the next request is larger than the whole per-minute limit: waiting cannot help', () => {
    const s = new Session({ model: 'gpt-4o-mini', tpmLimit: 10_000 }, { now: () => T0 });
    const update = s.update({ usage: openai(12_000, 100, 'gpt-4o-mini'), timestamp: T0 });
    expect(update.trigger).toMatchObject({ fire: true, trigger: 'survival' });
    expect(update.verdict).toMatchObject({ action: 'compress', priority: 'urgent', waitSeconds: null });
    expect(update.verdict.reasons.find((reason) => reason.model === 'quota')?.reason).toBe(
      'waiting cannot help: the next request needs 12100 tokens per minute, more than the whole limit of 10000; only a smaller request fits',
    );
  });

  it('never waits with maxWaitSeconds 0', () => {
    const s = new Session({ model: 'gpt-4o-mini', maxWaitSeconds: 0 }, { now: () => T0 });
    const update = s.update({
      usage: openai(1_500, 200, 'gpt-4o-mini'),
      timestamp: T0,
      headers: {
        'x-ratelimit-limit-tokens': '30000',
        'x-ratelimit-remaining-tokens': '2000',
        'x-ratelimit-reset-tokens': '28s',
      },
    });
    expect(update.verdict.action).toBe('compress');
    expect(update.verdict.reasons.find((reason) => reason.model === 'quota')?.reason).toContain(
      'longer than maxWaitSeconds (0 s); compress instead',
    );
  });

  it("records a refused request's headers and retry-after as a quota observation: no generation, the verdict waits", () => {
    let now = T0;
    const s = new Session({ model: 'gpt-4o-mini' }, { now: () => now });
    s.update({ usage: openai(1_000, 100, 'gpt-4o-mini'), timestamp: T0 });
    now = T0 + 5_000;
    const verdict = s.observeQuota({
      'x-ratelimit-limit-tokens': '30000',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '30s',
      'retry-after': '20',
    });
    expect(s.generations).toBe(1);
    expect(verdict).toMatchObject({ action: 'wait', waitSeconds: 20 });
    expect(verdict.reasons.find((reason) => reason.model === 'quota')?.reason).toContain(
      'the provider asked to retry after 20 s',
    );
    expect(s.lastVerdict).toEqual(verdict);
  });
});
