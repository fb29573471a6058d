import { describe, expect, it } from 'vitest';
import type { ModelPrice } from '../models/model-price.js';
import type { LogCallUsage } from './log-history.js';
import { WhatIfLedger } from './what-if-ledger.js';

/** USD per million tokens: input 3, output 15, cache reads 0.30, 5-minute writes 3.75 (Claude Sonnet's list). */
const sonnet: ModelPrice = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const priceOf = (model: string | undefined) => (model === 'sonnet' ? sonnet : null);

const usage = (prompt: number, read: number, write: number, completion: number): LogCallUsage => ({
  promptTokens: prompt,
  cacheReadTokens: read,
  cacheWrite5mTokens: write,
  cacheWrite1hTokens: 0,
  completionTokens: completion,
  reasoningTokens: 0,
});

// Recorded: 1,000 uncached × 3 + 8,000 read × 0.30 + 1,000 written × 3.75 + 100 out × 15 = 10,650 µ$.
const recorded = usage(10_000, 8_000, 1_000, 100);
// What-if: 500 × 3 + 5,000 × 0.30 + 500 × 3.75 + 100 × 15 = 6,375 µ$.
const whatIf = usage(6_000, 5_000, 500, 100);

describe('a measured call', () => {
  it('prices the call both ways and writes its row', () => {
    const ledger = new WhatIfLedger({ priceOf, source: 'claude-code', compactionPoint: null });
    ledger.measured({
      call: { index: 3, model: 'sonnet' },
      usage: recorded,
      whatIf,
      predictedPromptTokens: 9_876.5,
      driftPercent: 12.34,
      whatIfDriftPercent: 4.56,
      rereads: 0,
    });
    expect(ledger.real.promptTokens).toBe(10_000);
    expect(ledger.real.peakPromptTokens).toBe(10_000);
    expect(ledger.real.costUsd).toBeCloseTo(0.01065, 12);
    expect(ledger.policy.promptTokens).toBe(6_000);
    expect(ledger.policy.costUsd).toBeCloseTo(0.006375, 12);
    expect(ledger.calls).toEqual([
      {
        index: 3,
        reconstructedPromptTokens: 9_877,
        whatIfPromptTokens: 6_000,
        whatIfCacheReadTokens: 5_000,
        whatIfCacheWriteTokens: 500,
        whatIfCostUsd: expect.closeTo(0.006375, 12),
        realCostUsd: expect.closeTo(0.01065, 12),
        driftPercent: 12.3,
        whatIfDriftPercent: 4.6,
        rereads: 0,
      },
    ]);
  });

  it('adds an extra call (a re-read) to barometer’s side only', () => {
    const ledger = new WhatIfLedger({ priceOf, source: 'claude-code', compactionPoint: null });
    // 6,000 read × 0.30 + 60 out × 15 = 2,700 µ$.
    ledger.extra('sonnet', usage(6_000, 6_000, 0, 60));
    ledger.measured({
      call: { index: 0, model: 'sonnet' },
      usage: recorded,
      whatIf,
      predictedPromptTokens: 10_000,
      driftPercent: 0,
      whatIfDriftPercent: 0,
      rereads: 1,
    });
    expect(ledger.real.promptTokens).toBe(10_000);
    expect(ledger.policy.promptTokens).toBe(12_000);
    expect(ledger.policy.peakPromptTokens).toBe(6_000);
    expect(ledger.policy.costUsd).toBeCloseTo(0.009075, 12);
    expect(ledger.calls[0]?.rereads).toBe(1);
  });

  it('counts a model without a price apart, its tokens in both totals and its cost in neither', () => {
    const ledger = new WhatIfLedger({ priceOf, source: 'claude-code', compactionPoint: null });
    ledger.measured({
      call: { index: 0, model: 'unknown' },
      usage: recorded,
      whatIf,
      predictedPromptTokens: 10_000,
      driftPercent: 0,
      whatIfDriftPercent: 0,
      rereads: 0,
    });
    expect(ledger.unpricedCalls).toBe(1);
    expect(ledger.real).toMatchObject({ promptTokens: 10_000, costUsd: null });
    expect(ledger.policy).toMatchObject({ promptTokens: 6_000, costUsd: null });
    expect(ledger.calls[0]).toMatchObject({ realCostUsd: null, whatIfCostUsd: null });
  });

  it('counts the calls whose what-if prompt is above the agent’s compaction point (not at it)', () => {
    const ledger = new WhatIfLedger({ priceOf, source: 'claude-code', compactionPoint: 6_000 });
    const measured = (prompt: number) =>
      ledger.measured({
        call: { index: 0, model: 'sonnet' },
        usage: recorded,
        whatIf: usage(prompt, 0, 0, 0),
        predictedPromptTokens: 0,
        driftPercent: 0,
        whatIfDriftPercent: 0,
        rereads: 0,
      });
    measured(6_000);
    measured(6_001);
    expect(ledger.aboveCompactionPoint).toBe(1);
  });
});

describe('a call without usage', () => {
  it('writes a row of its drifts only and counts it in neither total', () => {
    const ledger = new WhatIfLedger({ priceOf, source: 'claude-code', compactionPoint: null });
    ledger.unmeasured(2, 33.35, 10.04);
    expect(ledger.calls).toEqual([
      {
        index: 2,
        reconstructedPromptTokens: null,
        whatIfPromptTokens: null,
        whatIfCacheReadTokens: null,
        whatIfCacheWriteTokens: null,
        whatIfCostUsd: null,
        realCostUsd: null,
        driftPercent: 33.4,
        whatIfDriftPercent: 10,
        rereads: 0,
      },
    ]);
    expect(ledger.real).toEqual({ promptTokens: 0, costUsd: null, peakPromptTokens: null, compactions: 0 });
    expect(ledger.policy).toEqual(ledger.real);
  });
});
