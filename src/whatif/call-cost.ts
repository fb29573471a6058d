import type { ModelPrice } from '../models/model-price.js';
import { usageCost } from '../usage/usage-cost.js';
import type { UsageSource } from '../usage/usage-record.js';
import type { LogCallUsage } from './log-history.js';

export { ONE_HOUR_WRITE_INPUT_MULTIPLIER } from '../usage/usage-cost.js';

/**
 * The cost in US dollars of one call's tokens at a price: `usageCost` (the one price of a call, with every cache
 * tier: reads, 5-minute and 1-hour writes, long-context tiers) of the same figures. Null when the price is unknown
 * or lacks a price the tokens need (never a guess).
 */
export function callCost(
  tokens: LogCallUsage,
  price: ModelPrice | null | undefined,
  source: UsageSource,
): number | null {
  const cost = usageCost(
    {
      available: true,
      source,
      promptTokens: tokens.promptTokens,
      completionTokens: tokens.completionTokens,
      totalTokens: tokens.promptTokens + tokens.completionTokens,
      cachedReadTokens: tokens.cacheReadTokens,
      cachedWriteTokens: tokens.cacheWrite5mTokens + tokens.cacheWrite1hTokens,
      cachedWrite1hTokens: tokens.cacheWrite1hTokens,
      reasoningTokens: Math.min(tokens.reasoningTokens, tokens.completionTokens),
    },
    price,
  );
  return cost.known ? cost.usd : null;
}

/**
 * A what-if call's cost: `callCost`, or, when the price has no cache-read price and the what-if's figures read from a
 * cache, those reads billed as input. The cache model may find a prefix where the recorded calls of a provider that
 * bills no cache read nothing (the OpenHands trajectories' llama-4-maverick through OpenRouter, priced without cached
 * input); left unpriced, the call would fall out of the what-if's total while its recorded cost stays in the real
 * one, and a read never costs more than the input (an upper bound). Null when the price is unknown or lacks another
 * price the tokens need.
 */
export function whatIfCallCost(
  tokens: LogCallUsage,
  price: ModelPrice | null | undefined,
  source: UsageSource,
): number | null {
  return callCost(tokens, price, source) ?? callCost({ ...tokens, cacheReadTokens: 0 }, price, source);
}
