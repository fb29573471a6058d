import * as z from 'zod';
import { type PromptCacheProvider, promptCacheCost } from '../cache/prompt-cache-cost.js';
import type { PromptCacheTokens } from '../cache/prompt-cache-tokens.js';
import type { ModelPrice } from '../models/model-price.js';
import { isoTime } from './iso-time.js';

const count = z.number().int().min(0);
const usd = z.number().min(0);

/**
 * What the proxy measured of one request it forwarded: the cache model's figures for the request as the agent sent
 * it (against the cache the unedited stream would have), for the request as it was sent (against the cache of the
 * stream barometer sent), and the provider's usage. Tokens are in the shape of `PromptCacheTokens`.
 */
export interface ReceiptInput {
  provider: Extract<PromptCacheProvider, 'anthropic' | 'openai'>;
  /** The model the provider answered with (priced as the session prices that call). */
  model: string;
  /** The request as the agent sent it, priced by the cache model against the unedited stream's cache. */
  wouldHave: PromptCacheTokens;
  /** The request as barometer sent it, by the cache model against the sent stream's cache. */
  predicted: PromptCacheTokens;
  /** The provider's usage of the request as sent. */
  reported: PromptCacheTokens;
  completionTokens: number;
  reasoningTokens?: number | undefined;
}

/**
 * The share of the prompt by which the provider's cache reads may differ from the model's before the call counts as
 * a departure: under one typical turn's share of an agent's prompt (a Claude Code tool result of 2–5 K tokens in a
 * 50–150 K prompt), above what two tokenizers' counts of the same prefix differ by once scaled to the provider's.
 */
export const DEPARTURE_SHARE = 0.05;

/** One proxied request's receipt, as the session keeps it (times in epoch ms). */
export const ReceiptRowSchema = z.strictObject({
  /** The session's generations recorded when the receipt was made: the call's generation number. */
  generation: count,
  at: z.number(),
  /** Null when the call could not be priced (no price known for the model). */
  wouldHaveCostUsd: usd.nullable(),
  costUsd: usd.nullable(),
  /** The agent's request, in the provider's tokens (the model's count scaled by the call's measured ratio). */
  wouldHavePromptTokens: count,
  promptTokens: count,
  /** Cache reads the model predicted for the request as sent, in the provider's tokens, and what it reported. */
  predictedCacheReadTokens: count,
  cacheReadTokens: count,
  /** `miss`: the provider read less than the model predicted; `hit`: more; null: as predicted. */
  departure: z.enum(['miss', 'hit']).nullable(),
});
export type ReceiptRow = z.infer<typeof ReceiptRowSchema>;

/** Rows kept: the latest calls, and the latest departures (which the latest calls may no longer hold). */
export const RECEIPT_ROWS = 50;
export const DEPARTURE_ROWS = 20;

/** A session's receipts so far, kept in its state: running totals and the latest rows. */
export const ReceiptTallySchema = z.strictObject({
  calls: count,
  /** Calls whose model has no price: their tokens are counted, their dollars are not. */
  unpricedCalls: count,
  wouldHaveCostUsd: usd,
  costUsd: usd,
  wouldHavePromptTokens: count,
  promptTokens: count,
  departures: count,
  recent: z.array(ReceiptRowSchema).max(RECEIPT_ROWS),
  departed: z.array(ReceiptRowSchema).max(DEPARTURE_ROWS),
});
export type ReceiptTally = z.infer<typeof ReceiptTallySchema>;

/** The model's tokens in the provider's: each part times `ratio`, rounded, the parts never above the whole. */
export function scaledTokens(tokens: PromptCacheTokens, ratio: number): PromptCacheTokens {
  if (ratio === 1) return tokens;
  const promptTokens = Math.round(tokens.promptTokens * ratio);
  const cacheReadTokens = Math.min(promptTokens, Math.round(tokens.cacheReadTokens * ratio));
  const cacheWrite1hTokens = Math.min(
    promptTokens - cacheReadTokens,
    Math.round(tokens.cacheWrite1hTokens * ratio),
  );
  const cacheWrite5mTokens = Math.min(
    promptTokens - cacheReadTokens - cacheWrite1hTokens,
    Math.round(tokens.cacheWrite5mTokens * ratio),
  );
  return { promptTokens, cacheReadTokens, cacheWrite1hTokens, cacheWrite5mTokens };
}

/** Whether, and which way, the provider's reads depart from the model's (both as shares of their own prompt). */
export function departureOf(
  predicted: PromptCacheTokens,
  reported: PromptCacheTokens,
): ReceiptRow['departure'] {
  const share = (tokens: PromptCacheTokens) =>
    tokens.promptTokens === 0 ? 0 : tokens.cacheReadTokens / tokens.promptTokens;
  const gap = share(reported) - share(predicted);
  if (gap < -DEPARTURE_SHARE) return 'miss';
  if (gap > DEPARTURE_SHARE) return 'hit';
  return null;
}

/**
 * One request's receipt. Both costs are `promptCacheCost` at the same price (the session's, for the model that
 * answered) with the same output: what it did cost is the provider's usage; what it would have cost is the agent's
 * own request priced by the cache model against the unedited stream, in the provider's tokens (the model's counts
 * times the call's ratio of reported to predicted prompt tokens: the counter is not the provider's tokenizer). Their
 * difference is the saving, net of every cache write barometer caused (its edits rewrite what follows them, and the
 * sent stream pays for that).
 */
export function receiptOf(
  input: ReceiptInput,
  price: ModelPrice | null | undefined,
  generation: number,
  at: number,
): ReceiptRow {
  const ratio =
    input.predicted.promptTokens === 0 ? 1 : input.reported.promptTokens / input.predicted.promptTokens;
  const wouldHave = scaledTokens(input.wouldHave, ratio);
  const output = { completionTokens: input.completionTokens, reasoningTokens: input.reasoningTokens };
  const dollars = (tokens: PromptCacheTokens) => {
    const cost = promptCacheCost(tokens, output, price, input.provider, input.model);
    return cost.known ? cost.usd : null;
  };
  const wouldHaveCostUsd = dollars(wouldHave);
  const costUsd = dollars(input.reported);
  const priced = wouldHaveCostUsd !== null && costUsd !== null;
  return {
    generation,
    at,
    wouldHaveCostUsd: priced ? wouldHaveCostUsd : null,
    costUsd: priced ? costUsd : null,
    wouldHavePromptTokens: wouldHave.promptTokens,
    promptTokens: input.reported.promptTokens,
    predictedCacheReadTokens: Math.round(input.predicted.cacheReadTokens * ratio),
    cacheReadTokens: input.reported.cacheReadTokens,
    departure: departureOf(input.predicted, input.reported),
  };
}

/** The tally with one more receipt. */
export function tallyReceipt(tally: ReceiptTally | undefined, row: ReceiptRow): ReceiptTally {
  const current = tally ?? {
    calls: 0,
    unpricedCalls: 0,
    wouldHaveCostUsd: 0,
    costUsd: 0,
    wouldHavePromptTokens: 0,
    promptTokens: 0,
    departures: 0,
    recent: [],
    departed: [],
  };
  const priced = row.wouldHaveCostUsd !== null && row.costUsd !== null;
  return {
    calls: current.calls + 1,
    unpricedCalls: current.unpricedCalls + (priced ? 0 : 1),
    wouldHaveCostUsd: current.wouldHaveCostUsd + (row.wouldHaveCostUsd ?? 0),
    costUsd: current.costUsd + (row.costUsd ?? 0),
    wouldHavePromptTokens: current.wouldHavePromptTokens + row.wouldHavePromptTokens,
    promptTokens: current.promptTokens + row.promptTokens,
    departures: current.departures + (row.departure === null ? 0 : 1),
    recent: [...current.recent.slice(1 - RECEIPT_ROWS), row],
    departed:
      row.departure === null ? current.departed : [...current.departed.slice(1 - DEPARTURE_ROWS), row],
  };
}

const iso = z.string().meta({ description: 'ISO 8601 time', format: 'date-time' });

/** A receipt row as answers show it. */
export const ReceiptCallSchema = ReceiptRowSchema.extend({ at: iso, savedUsd: z.number().nullable() }).meta({
  id: 'ReceiptCall',
});
export type ReceiptCall = z.infer<typeof ReceiptCallSchema>;

/**
 * What barometer's proxy saved a session, measured per request (docs/rules.md, "Proxy receipts"): what the requests
 * would have cost as the agent sent them, what they did cost by the provider's usage, the difference, and how many
 * calls departed from the cache model. Null for a session no acting proxy forwarded.
 */
export const ReceiptSchema = z
  .strictObject({
    calls: count,
    wouldHaveCostUsd: usd,
    costUsd: usd,
    /** `wouldHaveCostUsd − costUsd`, net of the cache writes barometer caused; negative when acting cost more. */
    savedUsd: z.number(),
    /** `savedUsd` as a share of `wouldHaveCostUsd` (100 at most, below 0 when acting cost more); null when nothing was priced. */
    savedPercent: z.number().nullable(),
    wouldHavePromptTokens: count,
    promptTokens: count,
    unpricedCalls: count,
    /** Calls where the provider's cache reads departed from the model's prediction by more than 5% of the prompt. */
    departures: count,
  })
  .meta({ id: 'Receipt' });
export type Receipt = z.infer<typeof ReceiptSchema>;

/** A session's receipt rows, in its full view: the latest calls and the latest departures, oldest first. */
export const ReceiptCallsSchema = z
  .strictObject({
    /** The latest calls (at most 50). */
    recent: z.array(ReceiptCallSchema),
    /** The latest departures (at most 20): which call, the reads predicted and reported. */
    departed: z.array(ReceiptCallSchema),
  })
  .meta({ id: 'ReceiptCalls' });
export type ReceiptCalls = z.infer<typeof ReceiptCallsSchema>;

function callOf(row: ReceiptRow): ReceiptCall {
  return {
    ...row,
    at: isoTime(row.at),
    savedUsd:
      row.wouldHaveCostUsd === null || row.costUsd === null ? null : row.wouldHaveCostUsd - row.costUsd,
  };
}

/** A session's receipt totals as its answers show them; null before any. */
export function receiptOfSession(tally: ReceiptTally | undefined): Receipt | null {
  if (!tally || tally.calls === 0) return null;
  const savedUsd = tally.wouldHaveCostUsd - tally.costUsd;
  return {
    calls: tally.calls,
    wouldHaveCostUsd: tally.wouldHaveCostUsd,
    costUsd: tally.costUsd,
    savedUsd,
    savedPercent: tally.wouldHaveCostUsd > 0 ? (100 * savedUsd) / tally.wouldHaveCostUsd : null,
    wouldHavePromptTokens: tally.wouldHavePromptTokens,
    promptTokens: tally.promptTokens,
    unpricedCalls: tally.unpricedCalls,
    departures: tally.departures,
  };
}

/** A session's receipt rows; null before any. */
export function receiptCallsOf(tally: ReceiptTally | undefined): ReceiptCalls | null {
  if (!tally || tally.calls === 0) return null;
  return { recent: tally.recent.map(callOf), departed: tally.departed.map(callOf) };
}
