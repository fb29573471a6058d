import { describe, expect, it } from 'vitest';
import { parseConfig } from '../models/barometer-config.js';
import { findModel } from '../models/find-model.js';
import type { ModelPrice } from '../models/model-price.js';
import { resolveProfile } from '../models/resolve-profile.js';
import { normalizeAnthropic } from './normalize-anthropic.js';
import { normalizeGemini } from './normalize-gemini.js';
import { normalizeOpenAIChat } from './normalize-openai-chat.js';
import { readSessionLog } from './read-session-log.js';
import { loadCassette, readTrace } from './test-helpers/traces.js';
import { costOfUsage, usageCost } from './usage-cost.js';
import type { AvailableUsage, UsageRecord } from './usage-record.js';

/*
 * Expected figures are computed by hand from the recorded usage and the published prices (models.dev at the commit
 * named in src/models/data/README.md, USD per million tokens), in "token × $/M" units, divided by 1,000,000 at the end.
 */

const DIGITS = 12;

function call(path: string, index: number): UsageRecord {
  const usage = readSessionLog(readTrace(path)).calls[index]?.usage;
  if (!usage) throw new Error(`${path} has no call ${index}`);
  return usage;
}

function usage(figures: Partial<AvailableUsage> & Pick<AvailableUsage, 'promptTokens'>): AvailableUsage {
  return {
    available: true,
    source: 'manual',
    completionTokens: 0,
    totalTokens: figures.promptTokens + (figures.completionTokens ?? 0),
    cachedReadTokens: 0,
    cachedWriteTokens: 0,
    reasoningTokens: 0,
    ...figures,
  };
}

describe('costOfUsage on recorded calls', () => {
  it('prices a Claude Code call on claude-opus-4-6 with cache reads and writes, each token once', () => {
    // Call 61 of the reference session (the first after its compaction), as logged by Claude Code:
    // input_tokens 3, cache_read_input_tokens 21,478, cache_creation_input_tokens 14,600 (all ephemeral_5m),
    // output_tokens 639. anthropic/claude-opus-4-6: input 5, output 25, cache read 0.5, cache write 6.25.
    //   3 × 5 = 15; 21,478 × 0.5 = 10,739; 14,600 × 6.25 = 91,250; 639 × 25 = 15,975
    //   15 + 10,739 + 91,250 + 15,975 = 117,979 → $0.117979
    const record = call('claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', 61);
    expect(record).toMatchObject({
      promptTokens: 36_081,
      cachedReadTokens: 21_478,
      cachedWriteTokens: 14_600,
    });
    const cost = usageCost(record, findModel('claude-opus-4-6')?.price);
    expect(cost.known && cost.usd).toBeCloseTo(0.117979, DIGITS);
    expect(cost).toMatchObject({
      known: true,
      aboveTokens: null,
      passes: 1,
      parts: { inputUsd: 0.000015, cacheReadUsd: 0.010739, cacheWriteUsd: 0.09125, outputUsd: 0.015975 },
    });
  });

  it('prices a Codex call on gpt-5.3-codex whose input includes its cached tokens and output its reasoning', () => {
    // The second token_count of the rollout: last_token_usage input_tokens 18,686 (cached_input_tokens 17,408
    // included), output_tokens 456 (reasoning_output_tokens 285 included). openai/gpt-5.3-codex: 1.75 / 14 /
    // cache read 0.175.
    //   (18,686 − 17,408) = 1,278 × 1.75 = 2,236.5; 17,408 × 0.175 = 3,046.4; 456 × 14 = 6,384
    //   2,236.5 + 3,046.4 + 6,384 = 11,666.9 → $0.0116669 (the 285 reasoning tokens are not added again)
    const record = call('codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl', 1);
    expect(record).toMatchObject({ promptTokens: 18_686, cachedReadTokens: 17_408, reasoningTokens: 285 });
    expect(costOfUsage(record, findModel('gpt-5.3-codex')?.price)).toBeCloseTo(0.0116669, DIGITS);
  });

  it('prices Gemini CLI calls whose output excludes the thoughts it bills as output', () => {
    // Call 5 (gemini-3.1-pro-preview): tokens input 40,238, cached 0, output 266, thoughts 452. google lists
    // 2 / 12 / cache read 0.2, and 4 / 18 / 0.4 above 200,000 prompt tokens (not reached).
    //   40,238 × 2 = 80,476; (266 + 452) = 718 × 12 = 8,616 → 89,092 → $0.089092
    const pro = call('gemini/small-gemini-session.jsonl', 5);
    expect(costOfUsage(pro, findModel('gemini-3.1-pro-preview')?.price)).toBeCloseTo(0.089092, DIGITS);
    // Call 3 (gemini-3-flash-preview): input 40,914 with 32,637 cached, output 351, thoughts 161. 0.5 / 3 / 0.05.
    //   (40,914 − 32,637) = 8,277 × 0.5 = 4,138.5; 32,637 × 0.05 = 1,631.85; 512 × 3 = 1,536 → 7,306.35
    const flash = call('gemini/small-gemini-session.jsonl', 3);
    expect(costOfUsage(flash, findModel('gemini-3-flash-preview')?.price)).toBeCloseTo(0.00730635, DIGITS);
  });

  it('prices a Gemini 2.5 Pro stream with thinking below the long-context threshold', () => {
    // The recorded stream's last chunk: promptTokenCount 34, candidatesTokenCount 469, thoughtsTokenCount 787.
    // google/gemini-2.5-pro: 1.25 / 10 up to 200,000 prompt tokens.
    //   34 × 1.25 = 42.5; (469 + 787) = 1,256 × 10 = 12,560 → 12,602.5 → $0.0126025
    const [response] = loadCassette('test_google_model_thinking_part_iter.yaml');
    const record = normalizeGemini(response!.body);
    expect(record).toMatchObject({ promptTokens: 34, completionTokens: 1256, reasoningTokens: 787 });
    expect(costOfUsage(record, findModel('gemini-2.5-pro')?.price)).toBeCloseTo(0.0126025, DIGITS);
  });

  it('prices a gpt-4o-mini chat stream through the family entry of its dated snapshot', () => {
    // gpt-4o-mini-2024-07-18 is priced as openai/gpt-4o-mini: 0.15 / 0.6. prompt_tokens 53, completion_tokens 15.
    //   53 × 0.15 = 7.95; 15 × 0.6 = 9 → 16.95 → $0.00001695
    const [response] = loadCassette('test_run_stream_sync_streams_real_model.yaml');
    const record = normalizeOpenAIChat(response!.body);
    expect(record).toMatchObject({ model: 'gpt-4o-mini-2024-07-18', promptTokens: 53, completionTokens: 15 });
    expect(costOfUsage(record, findModel('gpt-4o-mini-2024-07-18')?.price)).toBeCloseTo(0.00001695, DIGITS);
  });

  it('bills every pass of an Anthropic response that compacted server-side, not only the last', () => {
    // claude-sonnet-4-6: 3 / 15 / cache read 0.3 / cache write 3.75.
    // compaction pass: 100 uncached + 55,096 cache write, 131 out: 100 × 3 = 300; 55,096 × 3.75 = 206,610;
    //   131 × 15 = 1,965 → 208,875. message pass: 229 uncached, 5 out: 687 + 75 = 762.
    //   208,875 + 762 = 209,637 → $0.209637 (the top-level figures alone would give $0.000762)
    const [response] = loadCassette('test_anthropic_compaction_usage_with_cache.yaml');
    const record = normalizeAnthropic(response!.body);
    const cost = usageCost(record, findModel('claude-sonnet-4-6')?.price);
    expect(cost.known && cost.usd).toBeCloseTo(0.209637, DIGITS);
    expect(cost.known && cost.passes).toBe(2);
  });
});

describe('costOfUsage when the price is unknown', () => {
  it('returns null for a model the registry does not know', () => {
    // The small Codex session ran "aide-gpt-5", a proxy's name no listing has.
    const record = call('codex/small-codex-session.jsonl', 0);
    expect(record.model).toBe('aide-gpt-5');
    expect(findModel('aide-gpt-5')).toBeUndefined();
    expect(costOfUsage(record, findModel('aide-gpt-5')?.price)).toBeNull();
    expect(usageCost(record, undefined)).toMatchObject({ known: false, reason: 'price_unknown' });
  });

  it('returns null for a response that carried no usage', () => {
    const record = normalizeAnthropic({ type: 'message', content: [] });
    expect(usageCost(record, findModel('claude-opus-4-6')?.price)).toMatchObject({
      known: false,
      reason: 'usage_unavailable',
    });
  });

  it('returns null for cached tokens when the price lists no cache-read price, rather than the input price', () => {
    // openai/gpt-4o-2024-05-13 lists 5 / 15 and no cache-read price.
    const price = findModel('gpt-4o-2024-05-13')?.price;
    expect(price?.cacheRead).toBeUndefined();
    const cost = usageCost(
      usage({ promptTokens: 2000, cachedReadTokens: 1024, completionTokens: 10 }),
      price,
    );
    expect(cost).toMatchObject({ known: false, reason: 'cache_read_price_unknown' });
    // Without cached tokens the same price is enough: 2,000 × 5 + 10 × 15 = 10,150 → $0.01015
    expect(costOfUsage(usage({ promptTokens: 2000, completionTokens: 10 }), price)).toBeCloseTo(
      0.01015,
      DIGITS,
    );
  });

  it('returns null for cache writes when the price lists no cache-write price', () => {
    const price: ModelPrice = { input: 1, output: 2, cacheRead: 0.1 };
    expect(usageCost(usage({ promptTokens: 100, cachedWriteTokens: 50 }), price)).toMatchObject({
      known: false,
      reason: 'cache_write_price_unknown',
    });
  });

  it('does not fall back to the base cache price when the tier in force lists none', () => {
    const price: ModelPrice = {
      input: 1,
      output: 2,
      cacheRead: 0.1,
      tiers: [{ aboveTokens: 1000, input: 2, output: 3 }],
    };
    expect(costOfUsage(usage({ promptTokens: 1000, cachedReadTokens: 500 }), price)).toBeCloseTo(
      (500 * 1 + 500 * 0.1) / 1e6,
      DIGITS,
    );
    expect(usageCost(usage({ promptTokens: 1001, cachedReadTokens: 500 }), price)).toMatchObject({
      known: false,
      reason: 'cache_read_price_unknown',
      detail: '500 cache-read tokens but no cache-read price above 1000 prompt tokens',
    });
  });

  it('returns null for a record whose cache tokens exceed its prompt', () => {
    const record = usage({ promptTokens: 100, cachedReadTokens: 80, cachedWriteTokens: 30 });
    expect(usageCost(record, { input: 1, output: 1, cacheRead: 0.1, cacheWrite: 1.25 })).toMatchObject({
      known: false,
      reason: 'usage_inconsistent',
    });
  });
});

describe('costOfUsage long-context tiers', () => {
  // google/gemini-2.5-pro: 1.25 / 10 / cache read 0.125; above 200,000 prompt tokens 2.5 / 15 / 0.25.
  const price = findModel('gemini-2.5-pro')?.price;

  it('keeps the base prices for a prompt of exactly the threshold', () => {
    // 190,000 × 1.25 = 237,500; 10,000 × 0.125 = 1,250; 1,000 × 10 = 10,000 → 248,750 → $0.24875
    const cost = usageCost(
      usage({ promptTokens: 200_000, cachedReadTokens: 10_000, completionTokens: 1000 }),
      price,
    );
    expect(cost.known && cost.usd).toBeCloseTo(0.24875, DIGITS);
    expect(cost.known && cost.aboveTokens).toBeNull();
  });

  it('prices every token of the request at the tier once the prompt, cache included, exceeds it', () => {
    // 190,001 × 2.5 = 475,002.5; 10,000 × 0.25 = 2,500; 1,000 × 15 = 15,000 → 492,502.5 → $0.4925025
    const cost = usageCost(
      usage({ promptTokens: 200_001, cachedReadTokens: 10_000, completionTokens: 1000 }),
      price,
    );
    expect(cost.known && cost.usd).toBeCloseTo(0.4925025, DIGITS);
    expect(cost.known && cost.aboveTokens).toBe(200_000);
  });

  it('counts cached tokens toward the threshold', () => {
    // 150,000 uncached + 60,000 cached = 210,000 > 200,000: the tier applies although fresh input is 150,000.
    //   150,000 × 2.5 = 375,000; 60,000 × 0.25 = 15,000 → 390,000 → $0.39
    expect(costOfUsage(usage({ promptTokens: 210_000, cachedReadTokens: 60_000 }), price)).toBeCloseTo(
      0.39,
      DIGITS,
    );
  });

  it('uses the highest threshold the prompt exceeds when there are several', () => {
    const tiered: ModelPrice = {
      input: 1,
      output: 1,
      tiers: [
        { aboveTokens: 256_000, input: 3, output: 3 },
        { aboveTokens: 32_000, input: 2, output: 2 },
      ],
    };
    expect(costOfUsage(usage({ promptTokens: 100_000 }), tiered)).toBeCloseTo(0.2, DIGITS);
    expect(costOfUsage(usage({ promptTokens: 300_000 }), tiered)).toBeCloseTo(0.9, DIGITS);
  });
});

describe('costOfUsage with a reasoning price', () => {
  it('prices reasoning tokens at the reasoning price and the rest of the completion at the output price', () => {
    // models.dev alibaba/qwen-plus: input 0.4, output 1.2, reasoning 4.
    //   1,000 × 0.4 = 400; (500 − 300) = 200 × 1.2 = 240; 300 × 4 = 1,200 → 1,840 → $0.00184
    const price = findModel('alibaba/qwen-plus')?.price;
    expect(price).toMatchObject({ input: 0.4, output: 1.2, reasoning: 4 });
    const cost = usageCost(usage({ promptTokens: 1000, completionTokens: 500, reasoningTokens: 300 }), price);
    expect(cost.known && cost.usd).toBeCloseTo(0.00184, DIGITS);
    expect(cost.known && cost.parts.reasoningUsd).toBeCloseTo(0.0012, DIGITS);
  });

  it('returns null when the reasoning tokens exceed the completion', () => {
    const cost = usageCost(usage({ promptTokens: 10, completionTokens: 5, reasoningTokens: 6 }), {
      input: 1,
      output: 1,
    });
    expect(cost).toMatchObject({ known: false, reason: 'usage_inconsistent' });
  });
});

describe('costOfUsage with a configured price', () => {
  it('uses the config price, which wins over the registry', () => {
    // A negotiated price for claude-opus-4-6: 4 / 20 / cache read 0.4 / cache write 5, on call 61 above:
    //   3 × 4 = 12; 21,478 × 0.4 = 8,591.2; 14,600 × 5 = 73,000; 639 × 20 = 12,780 → 94,383.2 → $0.0943832
    const parsed = parseConfig({
      models: { 'claude-opus-4-6': { price: { input: 4, output: 20, cache_read: 0.4, cache_write: 5 } } },
    });
    if (!parsed.ok) throw new Error('bad config');
    const profile = resolveProfile('claude-opus-4-6', { config: parsed.value });
    expect(profile?.priceSource).toBe('config');
    const record = call('claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', 61);
    expect(costOfUsage(record, profile?.price)).toBeCloseTo(0.0943832, DIGITS);
  });
});
