import { openAIChatUsageRecord } from './normalize-openai-chat.js';
import {
  availableUsage,
  decodeBody,
  fromLastUsageChunk,
  isObject,
  isoFromUnixSeconds,
  type JsonObject,
  missingCount,
  notAnObject,
  text,
  tokenCount,
  type UsageMeta,
  type UsageStream,
  unavailableUsage,
} from './usage-fields.js';
import { type NormalizeUsageOptions, resolveNormalizeOptions } from './usage-format.js';
import type { UsageRecord } from './usage-record.js';

function metaOf(response: JsonObject, timestamp: string | undefined): UsageMeta {
  return { model: text(response.model), timestamp: timestamp ?? isoFromUnixSeconds(response.created) };
}

/**
 * Maps a llama.cpp server answer, preferring the most complete figures it carries:
 * 1. an OpenAI-compatible `usage` (/v1/chat/completions, /v1/completions), whose `prompt_tokens` is
 *    the whole prompt, cached tokens included;
 * 2. the native /completion fields `tokens_evaluated` (whole prompt) and `tokens_predicted`;
 * 3. `timings` alone: `prompt_n` counts only the prompt tokens evaluated in this request, so the
 *    tokens reused from the KV cache (`cache_n`) are added back.
 * The cached part is `prompt_tokens_details.cached_tokens`, else `timings.cache_n`.
 * (`tokens_cached` is not used: it is the slot's position after generation, not the cache hit.)
 */
function fromFinal(response: JsonObject, timestamp: string | undefined): UsageRecord {
  const meta = metaOf(response, timestamp);
  const timings = isObject(response.timings) ? response.timings : undefined;
  const cacheHit = timings ? tokenCount(timings.cache_n) : undefined;
  if (isObject(response.usage)) {
    const record = openAIChatUsageRecord(response.usage, 'llama-cpp', meta);
    const details = response.usage.prompt_tokens_details;
    const reportedCache = isObject(details) ? tokenCount(details.cached_tokens) : undefined;
    if (record.available && reportedCache === undefined && cacheHit !== undefined)
      record.cachedReadTokens = cacheHit;
    return record;
  }
  if ('tokens_evaluated' in response || 'tokens_predicted' in response) {
    const promptTokens = tokenCount(response.tokens_evaluated);
    if (promptTokens === undefined) {
      return unavailableUsage('llama-cpp', missingCount('tokens_evaluated', response.tokens_evaluated), meta);
    }
    const completionTokens = tokenCount(response.tokens_predicted);
    if (completionTokens === undefined) {
      return unavailableUsage('llama-cpp', missingCount('tokens_predicted', response.tokens_predicted), meta);
    }
    return availableUsage('llama-cpp', { promptTokens, completionTokens, cachedReadTokens: cacheHit }, meta);
  }
  if (timings) {
    const evaluated = tokenCount(timings.prompt_n);
    if (evaluated === undefined)
      return unavailableUsage('llama-cpp', missingCount('timings.prompt_n', timings.prompt_n), meta);
    const completionTokens = tokenCount(timings.predicted_n);
    if (completionTokens === undefined) {
      return unavailableUsage('llama-cpp', missingCount('timings.predicted_n', timings.predicted_n), meta);
    }
    return availableUsage(
      'llama-cpp',
      { promptTokens: evaluated + (cacheHit ?? 0), completionTokens, cachedReadTokens: cacheHit },
      meta,
    );
  }
  return unavailableUsage('llama-cpp', 'the response carries no usage, tokens_evaluated or timings', meta);
}

/** Streams: partial chunks carry no counts; the final one (`stop: true`, or the one with `usage`) does. */
const STREAM: UsageStream = {
  source: 'llama-cpp',
  carriesUsage: (chunk) =>
    isObject(chunk.usage) || 'tokens_evaluated' in chunk || isObject(chunk.timings) || chunk.stop === true,
  fromFinal,
  metaOf,
  noUsage: 'no chunk of the stream carries usage or timings',
};

/**
 * Usage of a llama.cpp server (`llama-server`) response: native /completion or OpenAI-compatible,
 * as an object, its JSON, or a stream (array of chunks or SSE text).
 */
export function normalizeLlamaCpp(response: unknown, options?: NormalizeUsageOptions): UsageRecord {
  const { timestamp } = resolveNormalizeOptions(options);
  const body = decodeBody(response);
  if (Array.isArray(body)) return fromLastUsageChunk(body, timestamp, STREAM);
  if (!isObject(body)) {
    return notAnObject('llama-cpp', body, timestamp);
  }
  return fromFinal(body, timestamp);
}
