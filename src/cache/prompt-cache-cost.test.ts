import { describe, expect, it } from 'vitest';
import { findModel } from '../models/find-model.js';
import type { ModelPrice } from '../models/model-price.js';
import { openAiPromptCache } from './openai-prompt-cache.js';
import { promptCacheCost, promptCachePrice } from './prompt-cache-cost.js';
import { emptyPromptCacheState, type PromptCacheState } from './prompt-cache-state.js';
import type { PromptCacheTokens } from './prompt-cache-tokens.js';
import { accepted } from './test-helpers/cache-blocks.js';

/* Expected figures by hand, in "tokens × $/M", from the prices named (models.dev rows, or the price given). */

const DIGITS = 12;
const NO_OUTPUT = { completionTokens: 0 };

const tokens = (
  figures: Partial<PromptCacheTokens> & Pick<PromptCacheTokens, 'promptTokens'>,
): PromptCacheTokens => ({
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  ...figures,
});

function usd(cost: ReturnType<typeof promptCacheCost>): number {
  if (!cost.known) throw new Error(`unknown: ${cost.detail}`);
  return cost.usd;
}

describe('promptCacheCost: Anthropic', () => {
  it("takes the table's own cache prices: claude-sonnet-4-5 reads at 0.3, 5-minute writes at 3.75, 1-hour at 6 (2 × 3)", () => {
    const price = findModel('claude-sonnet-4-5')?.price;
    // 3,000 × 0.3 + 1,000 × 3.75 + 500 × 6 + 200 × 3 + 100 output × 15 = 900 + 3,750 + 3,000 + 600 + 1,500 = 9,750
    const figures = tokens({
      promptTokens: 4700,
      cacheReadTokens: 3000,
      cacheWrite5mTokens: 1000,
      cacheWrite1hTokens: 500,
    });
    expect(
      usd(promptCacheCost(figures, { completionTokens: 100 }, price, 'anthropic', 'claude-sonnet-4-5')),
    ).toBeCloseTo(0.00975, DIGITS);
  });

  it('fills a price without cache prices from the multipliers: reads 0.1 ×, 5-minute writes 1.25 ×, 1-hour 2 ×', () => {
    const price: ModelPrice = { input: 4, output: 20 };
    // 10,000 × 0.4 + 10,000 × 5 + 10,000 × 8 = 4,000 + 50,000 + 80,000 = 134,000
    const figures = tokens({
      promptTokens: 30_000,
      cacheReadTokens: 10_000,
      cacheWrite5mTokens: 10_000,
      cacheWrite1hTokens: 10_000,
    });
    expect(usd(promptCacheCost(figures, NO_OUTPUT, price, 'anthropic', 'claude-opus-5-5'))).toBeCloseTo(
      0.134,
      DIGITS,
    );
  });

  it("keeps a listed cache price that is not 0.1 × (Claude Opus 5.5's reads: $0.20 on a $4 input)", () => {
    const price: ModelPrice = { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 };
    const figures = tokens({ promptTokens: 10_000, cacheReadTokens: 10_000 });
    expect(usd(promptCacheCost(figures, NO_OUTPUT, price, 'anthropic', 'claude-opus-5-5'))).toBeCloseTo(
      0.002,
      DIGITS,
    );
  });

  it('applies the multipliers on top of a long-context tier that lists no cache price', () => {
    const price: ModelPrice = {
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
      tiers: [{ aboveTokens: 200_000, input: 6, output: 22.5 }],
    };
    // Above 200,000: 200,000 × 0.6 + 50,000 × 7.5 = 120,000 + 375,000 = 495,000
    const figures = tokens({ promptTokens: 250_000, cacheReadTokens: 200_000, cacheWrite5mTokens: 50_000 });
    expect(usd(promptCacheCost(figures, NO_OUTPUT, price, 'anthropic', 'claude-sonnet-4-5'))).toBeCloseTo(
      0.495,
      DIGITS,
    );
  });

  it('answers the same filled price for the same price, and leaves the price given unchanged', () => {
    const price: ModelPrice = { input: 4, output: 20 };
    expect(promptCachePrice(price, 'anthropic', 'claude-opus-5-5')).toBe(
      promptCachePrice(price, 'anthropic', 'claude-x'),
    );
    expect(price).toEqual({ input: 4, output: 20 });
  });
});

describe('promptCacheCost: OpenAI', () => {
  /** The input cost, in units of the prefix's ordinary cost, of `count` requests of one prefix on GPT-5.6. */
  function relativeCost(count: number, prefixTokens: number): number {
    const price: ModelPrice = { input: 1, output: 10 };
    let state: PromptCacheState = emptyPromptCacheState();
    let total = 0;
    for (let index = 0; index < count; index++) {
      const request = {
        model: 'gpt-5.6',
        mode: 'explicit' as const,
        blocks: [{ id: 'stable prefix', tokens: prefixTokens, breakpoint: true }],
      };
      const outcome = accepted(openAiPromptCache(state, request, index * 60_000));
      state = outcome.state;
      total += usd(promptCacheCost(outcome.tokens, NO_OUTPUT, price, 'openai', 'gpt-5.6'));
    }
    return total / (prefixTokens / 1_000_000);
  }

  it('"Writing a prefix once and fully reusing it once costs 1.35× its ordinary input cost"', () => {
    expect(relativeCost(2, 10_000)).toBeCloseTo(1.35, DIGITS);
  });

  it('"across ten requests, one write and nine full reads cost 2.15×, compared with 10× without caching"', () => {
    expect(relativeCost(10, 10_000)).toBeCloseTo(2.15, DIGITS);
  });

  it('"Across 10 requests, expanding an original prefix of at least 221 tokens to 1,024 tokens is cheaper"', () => {
    const expanded = relativeCost(10, 1024) * 1024;
    // A prefix under the minimum is never cached: 10 requests pay it 10 times.
    expect(relativeCost(10, 221) * 221).toBeCloseTo(2210, 6);
    expect(expanded).toBeCloseTo(2201.6, 6);
    expect(221 * 10).toBeGreaterThan(expanded);
    expect(220 * 10).toBeLessThan(expanded);
  });

  it("prices an earlier model's reads at its listed cached-input price, and leaves them unknown where none is listed", () => {
    const figures = tokens({ promptTokens: 10_000, cacheReadTokens: 8_000 });
    // gpt-5.3-codex: 2,000 × 1.75 + 8,000 × 0.175 = 3,500 + 1,400 = 4,900
    const codex = findModel('gpt-5.3-codex')?.price;
    expect(usd(promptCacheCost(figures, NO_OUTPUT, codex, 'openai', 'gpt-5.3-codex'))).toBeCloseTo(
      0.0049,
      DIGITS,
    );
    const pro = findModel('gpt-5-pro')?.price;
    expect(promptCacheCost(figures, NO_OUTPUT, pro, 'openai', 'gpt-5-pro')).toMatchObject({
      known: false,
      reason: 'cache_read_price_unknown',
    });
  });
});

describe('promptCacheCost: Gemini', () => {
  it("takes the long-context tier's cached price: gemini-2.5-pro above 200,000 reads at 0.25", () => {
    const price = findModel('gemini-2.5-pro')?.price;
    // Above 200,000: 50,000 × 2.5 + 200,000 × 0.25 + 1,000 output × 15 = 125,000 + 50,000 + 15,000 = 190,000
    const figures = tokens({ promptTokens: 250_000, cacheReadTokens: 200_000 });
    expect(
      usd(promptCacheCost(figures, { completionTokens: 1000 }, price, 'gemini', 'gemini-2.5-pro')),
    ).toBeCloseTo(0.19, DIGITS);
  });

  it('fills a missing cached price with the 90% discount', () => {
    const figures = tokens({ promptTokens: 10_000, cacheReadTokens: 10_000 });
    expect(
      usd(promptCacheCost(figures, NO_OUTPUT, { input: 1, output: 4 }, 'gemini', 'gemini-3.5-flash')),
    ).toBeCloseTo(0.001, DIGITS);
  });

  it('is unknown without a price, never a guess', () => {
    expect(
      promptCacheCost(tokens({ promptTokens: 1 }), NO_OUTPUT, undefined, 'gemini', 'gemini-x'),
    ).toMatchObject({
      known: false,
      reason: 'price_unknown',
    });
  });
});
