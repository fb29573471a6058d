import {
  availableUsage,
  decodeBody,
  describeValue,
  isObject,
  type JsonObject,
  missingCount,
  notAnObject,
  text,
  tokenCount,
  type UsageMeta,
  unavailableUsage,
} from './usage-fields.js';
import { type NormalizeUsageOptions, resolveNormalizeOptions } from './usage-format.js';
import type { UsageIteration, UsageRecord, UsageSource } from './usage-record.js';

/** Anthropic's three prompt parts; the context the model read is their sum. */
function promptParts(usage: JsonObject) {
  const uncached = tokenCount(usage.input_tokens);
  const cachedReadTokens = tokenCount(usage.cache_read_input_tokens) ?? 0;
  const cachedWriteTokens = tokenCount(usage.cache_creation_input_tokens) ?? 0;
  // The writes split by lifetime (`cache_creation.ephemeral_5m_input_tokens` / `ephemeral_1h_input_tokens`).
  const split = isObject(usage.cache_creation) ? usage.cache_creation : undefined;
  const cachedWrite1hTokens = Math.min(cachedWriteTokens, tokenCount(split?.ephemeral_1h_input_tokens) ?? 0);
  return { uncached, cachedReadTokens, cachedWriteTokens, cachedWrite1hTokens };
}

function iterationsOf(value: unknown): UsageIteration[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const iterations: UsageIteration[] = [];
  for (const entry of value) {
    if (!isObject(entry)) continue;
    const { uncached, cachedReadTokens, cachedWriteTokens } = promptParts(entry);
    const completionTokens = tokenCount(entry.output_tokens);
    if (uncached === undefined || completionTokens === undefined) continue;
    iterations.push({
      type: text(entry.type) ?? 'unknown',
      promptTokens: uncached + cachedReadTokens + cachedWriteTokens,
      completionTokens,
      cachedReadTokens,
      cachedWriteTokens,
    });
  }
  return iterations.length > 0 ? iterations : undefined;
}

/**
 * Maps an Anthropic Messages `usage` object (also the one Claude Code logs). The prompt is
 * `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`: `input_tokens` alone counts
 * only the uncached tail. Thinking tokens are inside `output_tokens` and not reported apart, so
 * `reasoningTokens` is 0. The 1-hour part of the cache writes (`cache_creation.ephemeral_1h_input_tokens`) is kept
 * apart, because it is billed at another price. With server-side compaction the top-level figures are the final pass and
 * `iterations` lists every pass.
 */
export function anthropicUsageRecord(usage: unknown, source: UsageSource, meta: UsageMeta): UsageRecord {
  if (!isObject(usage)) {
    return unavailableUsage(source, `the response carries no usage (got ${describeValue(usage)})`, meta);
  }
  const { uncached, cachedReadTokens, cachedWriteTokens, cachedWrite1hTokens } = promptParts(usage);
  if (uncached === undefined) {
    return unavailableUsage(source, missingCount('usage.input_tokens', usage.input_tokens), meta);
  }
  const completionTokens = tokenCount(usage.output_tokens);
  if (completionTokens === undefined) {
    return unavailableUsage(source, missingCount('usage.output_tokens', usage.output_tokens), meta);
  }
  return availableUsage(
    source,
    {
      promptTokens: uncached + cachedReadTokens + cachedWriteTokens,
      completionTokens,
      cachedReadTokens,
      cachedWriteTokens,
      cachedWrite1hTokens,
      iterations: iterationsOf(usage.iterations),
    },
    meta,
  );
}

/**
 * A stream's usage is spread over two events: `message_start` carries the prompt figures (and a
 * provisional output count), `message_delta` the final, cumulative ones. Fields present in a later
 * event replace earlier ones; absent or null fields keep the earlier value.
 */
function fromEvents(events: readonly unknown[], timestamp: string | undefined): UsageRecord {
  const merged: JsonObject = {};
  let model: string | undefined;
  let sawUsage = false;
  let error: string | undefined;
  for (const event of events) {
    if (!isObject(event)) continue;
    let usage: unknown;
    if (event.type === 'message_start' && isObject(event.message)) {
      model = text(event.message.model) ?? model;
      usage = event.message.usage;
    } else if (event.type === 'message_delta') {
      usage = event.usage;
    } else if (event.type === 'error') {
      const detail = isObject(event.error) ? text(event.error.message) : undefined;
      error = `the stream ended with an error${detail ? `: ${detail}` : ''}`;
    }
    if (!isObject(usage)) continue;
    sawUsage = true;
    for (const [key, value] of Object.entries(usage))
      if (value !== null && value !== undefined) merged[key] = value;
  }
  const meta = { model, timestamp };
  if (!sawUsage) {
    return unavailableUsage(
      'anthropic',
      error ?? 'no message_start or message_delta event carries usage',
      meta,
    );
  }
  return anthropicUsageRecord(merged, 'anthropic', meta);
}

/**
 * Usage of an Anthropic Messages response: the message object, its JSON, the stream's events (an
 * array, or the SSE text), or a bare `usage` object.
 */
export function normalizeAnthropic(response: unknown, options?: NormalizeUsageOptions): UsageRecord {
  const { timestamp } = resolveNormalizeOptions(options);
  const body = decodeBody(response);
  if (Array.isArray(body)) return fromEvents(body, timestamp);
  if (!isObject(body)) {
    return notAnObject('anthropic', body, timestamp);
  }
  if (body.type === 'message_start' || body.type === 'message_delta') return fromEvents([body], timestamp);
  if (body.usage === undefined && 'input_tokens' in body)
    return anthropicUsageRecord(body, 'anthropic', { timestamp });
  return anthropicUsageRecord(body.usage, 'anthropic', { model: text(body.model), timestamp });
}

/** What a response that compacted its own context did, read from its iterations. */
export interface ServerCompaction {
  /** Compaction passes in the response (with server tools one request can compact more than once). */
  compactions: number;
  /** Prompt tokens the first compaction pass read: the context size before compaction. */
  contextBeforeTokens: number;
  /** Prompt tokens of the final pass: the compacted context the answer was produced from. */
  contextAfterTokens: number;
  /** Tokens the compaction passes wrote (the summaries). */
  summaryTokens: number;
  /** Prompt tokens billed: every pass, not only the top-level figure. */
  billedPromptTokens: number;
  /** Output tokens billed: every pass. */
  billedCompletionTokens: number;
}

/**
 * The compaction a response ran server-side (Anthropic `compact_20260112`), or undefined when it ran
 * none. The top-level usage of such a response is only its final pass, so a monitor that reads it as
 * "the context" sees the compacted size, and one that reads it as "the cost" misses the compaction.
 *
 * @example
 * // the recorded cassette: compaction read 55,196 tokens and wrote 131; the answer read 229
 * serverCompaction(normalizeAnthropic(body)) // → { compactions: 1, contextBeforeTokens: 55196, contextAfterTokens: 229, … }
 */
export function serverCompaction(usage: UsageRecord): ServerCompaction | undefined {
  if (!usage.available || !usage.iterations) return undefined;
  const compactionPasses = usage.iterations.filter((iteration) => iteration.type === 'compaction');
  const first = compactionPasses[0];
  if (!first) return undefined;
  let billedPromptTokens = 0;
  let billedCompletionTokens = 0;
  for (const iteration of usage.iterations) {
    billedPromptTokens += iteration.promptTokens;
    billedCompletionTokens += iteration.completionTokens;
  }
  return {
    compactions: compactionPasses.length,
    contextBeforeTokens: first.promptTokens,
    contextAfterTokens: usage.promptTokens,
    summaryTokens: compactionPasses.reduce((sum, iteration) => sum + iteration.completionTokens, 0),
    billedPromptTokens,
    billedCompletionTokens,
  };
}
