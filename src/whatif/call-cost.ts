import { type ModelPrice, priceRatesFor } from '../models/model-price.js';
import { usageCost } from '../usage/usage-cost.js';
import type { UsageSource } from '../usage/usage-record.js';
import type { LogCallUsage } from './log-history.js';

/**
 * Anthropic bills a 1-hour cache write at 2 × the base input price (a 5-minute write at 1.25 ×, models.dev's
 * `cache_write`): "1-hour cache write 2x base input price" (https://platform.claude.com/docs/en/about-claude/pricing).
 */
export const ONE_HOUR_WRITE_INPUT_MULTIPLIER = 2;

/**
 * The cost in US dollars of one call's tokens at a price, with the cache as the provider bills it: reads at the
 * cache-read price, 5-minute writes at the cache-write price, 1-hour writes at twice the input price (of the tier
 * the prompt falls in), the rest of the prompt at the input price, the completion at the output price. Null when
 * the price is unknown or lacks a price the tokens need (never a guess; see `usageCost`).
 */
export function callCost(
  tokens: LogCallUsage,
  price: ModelPrice | null | undefined,
  source: UsageSource,
): number | null {
  const written = tokens.cacheWrite5mTokens + tokens.cacheWrite1hTokens;
  const cost = usageCost(
    {
      available: true,
      source,
      promptTokens: tokens.promptTokens,
      completionTokens: tokens.completionTokens,
      totalTokens: tokens.promptTokens + tokens.completionTokens,
      cachedReadTokens: tokens.cacheReadTokens,
      cachedWriteTokens: written,
      reasoningTokens: Math.min(tokens.reasoningTokens, tokens.completionTokens),
    },
    price,
  );
  if (!cost.known) return null;
  if (tokens.cacheWrite1hTokens === 0 || !price) return cost.usd;
  const { rates } = priceRatesFor(price, tokens.promptTokens);
  // usageCost priced every write at the 5-minute rate: the 1-hour ones take the difference on top.
  const fiveMinute = rates.cacheWrite ?? rates.input;
  return (
    cost.usd +
    (tokens.cacheWrite1hTokens * (ONE_HOUR_WRITE_INPUT_MULTIPLIER * rates.input - fiveMinute)) / 1_000_000
  );
}
