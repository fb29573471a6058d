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
