import type { ModelPrice, ModelPriceTier } from '../models/model-price.js';
import { type UsageCost, usageCost } from '../usage/usage-cost.js';
import type { UsageSource } from '../usage/usage-record.js';
import { ANTHROPIC_CACHE_MULTIPLIERS } from './anthropic-cache-rules.js';
import { OPENAI_BREAKPOINT_MULTIPLIERS, openAiCacheRules } from './openai-cache-rules.js';
import type { PromptCacheTokens } from './prompt-cache-tokens.js';

/** The provider whose cache a request went through. */
export type PromptCacheProvider = 'anthropic' | 'openai' | 'gemini';

/** The output of a call, which the cache does not touch. */
export interface CallOutputTokens {
  completionTokens: number;
  /** The part of the completion that is reasoning (priced apart only where the price lists a reasoning price). */
  reasoningTokens?: number | undefined;
}

/** Cache prices as multipliers of a tier's input price, for a price table that gives none. */
interface CacheMultipliers {
  read?: number;
  write?: number;
}

/**
 * The provider's documented multipliers, used only where the price (a models.dev listing, a user's config) gives no
 * cache price of its own: the table wins, since the multipliers are not every model's (Anthropic reads Claude Opus
 * 5.5's cache at 0.05 × input). Anthropic: 5-minute write 1.25 ×, read 0.1 × (the 1-hour write is 2 × input in
 * `usageCost`). OpenAI GPT-5.6 and later: write 1.25 ×, read 0.1 ×; earlier models: "Model-dependent cached-input
 * rate" and no write charge, so no multiplier (a read the table does not price stays unknown). Gemini: "a 90%
 * discount on cached tokens" (read 0.1 ×), writes at the input price (never reported apart).
 */
function multipliers(provider: PromptCacheProvider, model: string): { key: string; rates: CacheMultipliers } {
  if (provider === 'anthropic')
    return {
      key: 'anthropic',
      rates: { read: ANTHROPIC_CACHE_MULTIPLIERS.read, write: ANTHROPIC_CACHE_MULTIPLIERS.write5m },
    };
  if (provider === 'gemini') return { key: 'gemini', rates: { read: 0.1 } };
  return openAiCacheRules(model).kind === 'breakpoints'
    ? { key: 'openai-breakpoints', rates: OPENAI_BREAKPOINT_MULTIPLIERS }
    : { key: 'openai-intervals', rates: {} };
}

const filled = new WeakMap<ModelPrice, Map<string, ModelPrice>>();

/**
 * A price with the cache prices it lacks filled in from the provider's multipliers, base and every tier alike
 * ("Prompt caching multipliers apply on top of long context pricing"). The same object for the same price and rule,
 * so `usageCost`'s per-price memo keeps working.
 */
export function promptCachePrice(
  price: ModelPrice,
  provider: PromptCacheProvider,
  model: string,
): ModelPrice {
  const { key, rates } = multipliers(provider, model);
  let byRule = filled.get(price);
  if (byRule === undefined) {
    byRule = new Map();
    filled.set(price, byRule);
  }
  let result = byRule.get(key);
  if (result === undefined) {
    const { tiers, ...base } = price;
    result = {
      ...fill(base, rates),
      ...(tiers === undefined ? {} : { tiers: tiers.map((tier) => fill(tier, rates)) }),
    };
    byRule.set(key, result);
  }
  return result;
}

function fill<T extends Omit<ModelPriceTier, 'aboveTokens'>>(rates: T, multiplier: CacheMultipliers): T {
  return {
    ...rates,
    ...(rates.cacheRead === undefined && multiplier.read !== undefined
      ? { cacheRead: rates.input * multiplier.read }
      : {}),
    ...(rates.cacheWrite === undefined && multiplier.write !== undefined
      ? { cacheWrite: rates.input * multiplier.write }
      : {}),
  } as T;
}

const SOURCE: Readonly<Record<PromptCacheProvider, UsageSource>> = {
  anthropic: 'anthropic',
  openai: 'openai-responses',
  gemini: 'gemini',
};

/**
 * The cost of a call whose prompt went through a provider's cache, with its parts, or why it is unknown: `usageCost`
 * (the one price of a call: long-context tiers, 1-hour writes at 2 × input) of the same tokens, at the price with
 * the cache prices it lacks filled in by the provider's multipliers.
 * @example promptCacheCost(outcome.tokens, { completionTokens: 500 }, findModel('claude-sonnet-4-5')?.price, 'anthropic', 'claude-sonnet-4-5')
 */
export function promptCacheCost(
  tokens: PromptCacheTokens,
  output: CallOutputTokens,
  price: ModelPrice | null | undefined,
  provider: PromptCacheProvider,
  model: string,
): UsageCost {
  const writes = tokens.cacheWrite5mTokens + tokens.cacheWrite1hTokens;
  return usageCost(
    {
      available: true,
      source: SOURCE[provider],
      model,
      promptTokens: tokens.promptTokens,
      completionTokens: output.completionTokens,
      totalTokens: tokens.promptTokens + output.completionTokens,
      cachedReadTokens: tokens.cacheReadTokens,
      cachedWriteTokens: writes,
      cachedWrite1hTokens: tokens.cacheWrite1hTokens,
      reasoningTokens: Math.min(output.reasoningTokens ?? 0, output.completionTokens),
    },
    price ? promptCachePrice(price, provider, model) : price,
  );
}
