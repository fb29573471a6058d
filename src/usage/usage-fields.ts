import { isObject, type JsonObject } from './json-object.js';
import { parseServerSentEvents } from './server-sent-events.js';
import type {
  AvailableUsage,
  UnavailableUsage,
  UsageIteration,
  UsageRecord,
  UsageSource,
} from './usage-record.js';

export { isObject, type JsonObject };

/** A token count: a non-negative safe integer. Anything else (NaN, -1, 2.5, '12', null) is no count. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** A non-empty string, or nothing. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** How a value that should have been an object looks, for the reason of an unavailable record. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.trim() === '' ? 'an empty string' : 'text that is not JSON';
  return `a ${typeof value}`;
}

/** Where a record came from, and when, when the response says. */
export interface UsageMeta {
  model?: string | undefined;
  timestamp?: string | undefined;
}

/** The figures of an available record; the optional ones default to 0, the total to prompt + completion. */
export interface UsageFigures {
  promptTokens: number;
  completionTokens: number;
  totalTokens?: number | undefined;
  cachedReadTokens?: number | undefined;
  cachedWriteTokens?: number | undefined;
  /** The 1-hour part of the cache writes (kept only when above 0). */
  cachedWrite1hTokens?: number | undefined;
  reasoningTokens?: number | undefined;
  iterations?: UsageIteration[] | undefined;
}

export function availableUsage(source: UsageSource, figures: UsageFigures, meta: UsageMeta): AvailableUsage {
  const record: AvailableUsage = {
    available: true,
    source,
    promptTokens: figures.promptTokens,
    completionTokens: figures.completionTokens,
    totalTokens: figures.totalTokens ?? figures.promptTokens + figures.completionTokens,
    cachedReadTokens: figures.cachedReadTokens ?? 0,
    cachedWriteTokens: figures.cachedWriteTokens ?? 0,
    reasoningTokens: figures.reasoningTokens ?? 0,
  };
  if (figures.cachedWrite1hTokens) record.cachedWrite1hTokens = figures.cachedWrite1hTokens;
  if (meta.model !== undefined) record.model = meta.model;
  if (meta.timestamp !== undefined) record.timestamp = meta.timestamp;
  if (figures.iterations !== undefined) record.iterations = figures.iterations;
  return record;
}

export function unavailableUsage(source: UsageSource, reason: string, meta: UsageMeta): UnavailableUsage {
  const record: UnavailableUsage = { available: false, source, reason };
  if (meta.model !== undefined) record.model = meta.model;
  if (meta.timestamp !== undefined) record.timestamp = meta.timestamp;
  return record;
}

/** How one provider's stream carries its usage, for {@link fromLastUsageChunk}. */
export interface UsageStream {
  source: UsageSource;
  /** Whether this object holds the figures (the final chunk, or the one with a usage field). */
  carriesUsage: (chunk: JsonObject) => boolean;
  /** The record of the object that holds the figures. */
  fromFinal: (chunk: JsonObject, timestamp: string | undefined) => UsageRecord;
  /** Model and time of an object, for the unavailable record when none holds the figures. */
  metaOf: (chunk: JsonObject, timestamp: string | undefined) => UsageMeta;
  /** The reason when the stream has objects but none holds the figures. */
  noUsage: string;
  /** The reason when the stream has no object at all. @default 'the stream holds no JSON chunks' */
  noObjects?: string;
  /** The object to look at inside each element (Responses events wrap the response). @default the element */
  unwrap?: (chunk: JsonObject) => JsonObject;
}

/**
 * The usage of a stream whose figures come in one late chunk: the last object that carries them
 * (later chunks are cumulative or final, so the last one wins). Without one the record is unavailable,
 * with the model and time of the last object, so the caller still learns what the stream was.
 */
export function fromLastUsageChunk(
  chunks: readonly unknown[],
  timestamp: string | undefined,
  stream: UsageStream,
): UsageRecord {
  let last: JsonObject | undefined;
  for (let index = chunks.length - 1; index >= 0; index--) {
    const element = chunks[index];
    if (!isObject(element)) continue;
    const chunk = stream.unwrap ? stream.unwrap(element) : element;
    last ??= chunk;
    if (stream.carriesUsage(chunk)) return stream.fromFinal(chunk, timestamp);
  }
  if (!last)
    return unavailableUsage(stream.source, stream.noObjects ?? 'the stream holds no JSON chunks', {
      timestamp,
    });
  return unavailableUsage(stream.source, stream.noUsage, stream.metaOf(last, timestamp));
}

/** The reason text for a count that is absent or not a non-negative integer. */
export function missingCount(path: string, value: unknown): string {
  if (value === undefined || value === null) return `${path} is missing`;
  // String() keeps NaN visible (JSON would say null); long values are cut so a reason stays a line.
  const shown = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  return `${path} is not a non-negative integer (got ${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown})`;
}

/** Unix seconds (OpenAI `created`, Responses `created_at`) as ISO 8601. */
export function isoFromUnixSeconds(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  const date = new Date(value * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

const ISO_WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const LONG_FRACTION = /(\.\d{3})\d+/;

/**
 * A recorded time as ISO 8601 UTC. Times without a zone designator (OpenHands writes local time
 * without one) are read as UTC, so that the result does not depend on the machine's zone.
 */
export function isoTimestamp(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  let source = value.replace(LONG_FRACTION, '$1');
  if (ISO_WITHOUT_ZONE.test(source)) source += 'Z';
  const date = new Date(source);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

const SSE_FIELD = /^(data|event|id|retry):|^:/;

/**
 * A response body given as text, decoded: server-sent events become the array of their payloads,
 * JSON becomes its value, newline-delimited JSON (Ollama streams) becomes an array. Text that is none
 * of these is returned as it is, for the caller to report as garbage. Non-strings pass through.
 */
export function decodeBody(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  const body = input.trim();
  if (body === '') return input;
  const newline = body.indexOf('\n');
  const firstLine = newline === -1 ? body : body.slice(0, newline);
  if (SSE_FIELD.test(firstLine)) return parseServerSentEvents(body);
  try {
    return JSON.parse(body);
  } catch {
    // Not one JSON value: maybe one per line.
  }
  const values: unknown[] = [];
  for (const line of body.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      return input;
    }
  }
  return values;
}

/** The record for an answer that is not a JSON object: unavailable, saying what it was instead. */
export function notAnObject(
  source: UsageSource,
  body: unknown,
  timestamp: string | undefined,
  what = 'response',
): UsageRecord {
  return unavailableUsage(source, `the ${what} is not an object (got ${describeValue(body)})`, { timestamp });
}
