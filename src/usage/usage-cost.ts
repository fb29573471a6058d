import { type ModelPrice, priceRatesFor } from '../models/model-price.js';
import type { UsageRecord } from './usage-record.js';

/** Why a usage record has no cost: the figures to price it, or the price of a part of it, are missing. */
export type UsageCostUnknownReason =
  /** The record carries no usage (the provider reported none). */
  | 'usage_unavailable'
  /** No price for the model: not in the registry, or its listing gives none, and none configured. */
  | 'price_unknown'
  /** Cache-read tokens were reported, but the price in force lists no cache-read price. */
  | 'cache_read_price_unknown'
  /** Cache-write tokens were reported, but the price in force lists no cache-write price. */
  | 'cache_write_price_unknown'
  /** The record's parts exceed its totals (cache tokens above the prompt, reasoning above the completion). */
  | 'usage_inconsistent';

/** Dollars by token kind; together they make the cost. */
export interface UsageCostParts {
  /** Uncached prompt tokens × the input price. */
  inputUsd: number;
  cacheReadUsd: number;
  cacheWriteUsd: number;
  /** Completion tokens (reasoning included, unless the price prices reasoning apart) × the output price. */
  outputUsd: number;
  /** Reasoning tokens × the reasoning price, where the price lists one; else 0 (they are in `outputUsd`). */
  reasoningUsd: number;
}

/** The cost of one usage record, or why it has none. Decisions are data: every surface says it its own way. */
export type UsageCost =
  | {
      known: true;
      /** US dollars, full double precision, not rounded (round when showing it). */
      usd: number;
      parts: UsageCostParts;
      /** The highest long-context threshold any pass was billed above, or null when all were at base prices. */
      aboveTokens: number | null;
      /** Sampling passes billed: 1, or the number of `iterations` of a response that compacted server-side. */
      passes: number;
    }
  | { known: false; reason: UsageCostUnknownReason; detail: string };

/** One billed sampling pass, in the normalized record's terms. */
interface Pass {
  promptTokens: number;
  completionTokens: number;
  cachedReadTokens: number;
  cachedWriteTokens: number;
  cachedWrite1hTokens?: number | undefined;
  reasoningTokens: number;
}

/**
 * Anthropic bills a 1-hour cache write at 2 × the base input price (a 5-minute write at 1.25 ×, models.dev's
 * `cache_write`): "1-hour cache write 2x base input price" (https://platform.claude.com/docs/en/about-claude/pricing).
 */
export const ONE_HOUR_WRITE_INPUT_MULTIPLIER = 2;

type PassCost = { parts: UsageCostParts; aboveTokens: number | null } | Extract<UsageCost, { known: false }>;

const PER_MILLION = 1_000_000;

function unknown(reason: UsageCostUnknownReason, detail: string): Extract<UsageCost, { known: false }> {
  return { known: false, reason, detail };
}

/**
 * The normalized record's prompt includes the cache reads and writes (every normalizer adds Anthropic's
 * `cache_read_input_tokens` and `cache_creation_input_tokens` to `input_tokens`; OpenAI's `prompt_tokens` and
 * Gemini's `promptTokenCount` already include their cached tokens), and the completion includes the reasoning
 * tokens (OpenAI's `completion_tokens`, Codex's `output_tokens`, Anthropic's `output_tokens` hold them; the Gemini
 * normalizers add `thoughtsTokenCount`). So each token is priced exactly once below.
 */
function passCost(pass: Pass, price: ModelPrice): PassCost {
  const uncached = pass.promptTokens - pass.cachedReadTokens - pass.cachedWriteTokens;
  if (uncached < 0) {
    return unknown(
      'usage_inconsistent',
      `cache reads ${pass.cachedReadTokens} + writes ${pass.cachedWriteTokens} exceed the prompt (${pass.promptTokens})`,
    );
  }
  if (pass.reasoningTokens > pass.completionTokens) {
    return unknown(
      'usage_inconsistent',
      `reasoning ${pass.reasoningTokens} exceeds the completion (${pass.completionTokens})`,
    );
  }
  // The tier is chosen by the whole prompt, cache included, and then prices every token of the request.
  const { rates, aboveTokens } = priceRatesFor(price, pass.promptTokens);
  const where = aboveTokens === null ? '' : ` above ${aboveTokens} prompt tokens`;
  // No cache price means the listing does not say what cached tokens cost; the input price would be a guess.
  if (pass.cachedReadTokens > 0 && rates.cacheRead === undefined) {
    return unknown(
      'cache_read_price_unknown',
      `${pass.cachedReadTokens} cache-read tokens but no cache-read price${where}`,
    );
  }
  const fiveMinuteWrites =
    pass.cachedWriteTokens - Math.min(pass.cachedWrite1hTokens ?? 0, pass.cachedWriteTokens);
  if (fiveMinuteWrites > 0 && rates.cacheWrite === undefined) {
    return unknown(
      'cache_write_price_unknown',
      `${pass.cachedWriteTokens} cache-write tokens but no cache-write price${where}`,
    );
  }
  const apart = rates.reasoning !== undefined ? pass.reasoningTokens : 0;
  // 1-hour writes (a part of the writes) at twice the input price of the tier in force, the rest at the 5-minute price.
  const oneHour = Math.min(pass.cachedWrite1hTokens ?? 0, pass.cachedWriteTokens);
  const fiveMinute = pass.cachedWriteTokens - oneHour;
  return {
    aboveTokens,
    parts: {
      inputUsd: (uncached * rates.input) / PER_MILLION,
      cacheReadUsd: pass.cachedReadTokens > 0 ? (pass.cachedReadTokens * rates.cacheRead!) / PER_MILLION : 0,
      cacheWriteUsd:
        (fiveMinute > 0 ? (fiveMinute * rates.cacheWrite!) / PER_MILLION : 0) +
        (oneHour > 0 ? (oneHour * ONE_HOUR_WRITE_INPUT_MULTIPLIER * rates.input) / PER_MILLION : 0),
      outputUsd: ((pass.completionTokens - apart) * rates.output) / PER_MILLION,
      reasoningUsd: apart > 0 ? (apart * rates.reasoning!) / PER_MILLION : 0,
    },
  };
}

function passesOf(record: Extract<UsageRecord, { available: true }>): Pass[] {
  // A response that compacted server-side is billed for every pass; its top-level figures are the last pass only.
  if (record.iterations && record.iterations.length > 0) {
    return record.iterations.map((iteration) => ({ ...iteration, reasoningTokens: 0 }));
  }
  return [record];
}

/**
 * The cost in US dollars of one normalized usage record at a price, with its parts, or the reason it is unknown.
 *
 * - uncached prompt × input + cache reads × cacheRead + cache writes × cacheWrite + completion × output, where the
 *   completion includes the reasoning tokens (providers bill them as output), unless the price lists a separate
 *   `reasoning` price: then reasoning tokens × reasoning + the rest of the completion × output;
 * - a long-context tier replaces all the prices of a request whose prompt (cache included) exceeds its threshold;
 * - a response with `iterations` (Anthropic server-side compaction) costs the sum of its passes, each priced alone;
 * - unknown, never guessed: no usage, no price, cached tokens without a cache price, or parts above their totals.
 *
 * Cache writes are priced by lifetime: the record's `cachedWrite1hTokens` (Anthropic 1-hour writes) at 2 × the input
 * price of the tier in force, the other writes at the cache-write price (the 5-minute write, 1.25 × input).
 *
 * This is the one price of a call: the replay summary, the what-if's real cost, live sessions, the status line and
 * the dashboard all price each call with it, at the call's own model.
 *
 * @example usageCost(normalizeAnthropic(body), findModel('claude-opus-4-6')?.price)
 */
export function usageCost(record: UsageRecord, price: ModelPrice | null | undefined): UsageCost {
  if (!record.available) return unknown('usage_unavailable', record.reason);
  if (!price) {
    return unknown(
      'price_unknown',
      `no price for ${record.model ? JSON.stringify(record.model) : 'the model'}`,
    );
  }
  const parts: UsageCostParts = {
    inputUsd: 0,
    cacheReadUsd: 0,
    cacheWriteUsd: 0,
    outputUsd: 0,
    reasoningUsd: 0,
  };
  let aboveTokens: number | null = null;
  const passes = passesOf(record);
  for (const pass of passes) {
    const cost = passCost(pass, price);
    if ('known' in cost) return cost;
    parts.inputUsd += cost.parts.inputUsd;
    parts.cacheReadUsd += cost.parts.cacheReadUsd;
    parts.cacheWriteUsd += cost.parts.cacheWriteUsd;
    parts.outputUsd += cost.parts.outputUsd;
    parts.reasoningUsd += cost.parts.reasoningUsd;
    if (cost.aboveTokens !== null && (aboveTokens === null || cost.aboveTokens > aboveTokens))
      aboveTokens = cost.aboveTokens;
  }
  const usd =
    parts.inputUsd + parts.cacheReadUsd + parts.cacheWriteUsd + parts.outputUsd + parts.reasoningUsd;
  return { known: true, usd, parts, aboveTokens, passes: passes.length };
}

/**
 * The cost in US dollars of one normalized usage record at a price, or null when it is unknown (no usage, no
 * price, or cached tokens the price does not price): never a guess. Full precision; see {@link usageCost} for the
 * rules and the parts.
 * @example costOfUsage(record, resolveProfile(record.model ?? 'gpt-4o-mini', { config })?.price) // 0.00012345 or null
 */
export function costOfUsage(record: UsageRecord, price: ModelPrice | null | undefined): number | null {
  const cost = usageCost(record, price);
  return cost.known ? cost.usd : null;
}
