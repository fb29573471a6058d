import {
  availableUsage,
  decodeBody,
  describeValue,
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

/**
 * Maps a Responses API `usage`: `input_tokens` includes `input_tokens_details.cached_tokens`, and
 * `output_tokens` includes `output_tokens_details.reasoning_tokens`.
 */
function responsesUsageRecord(usage: unknown, meta: UsageMeta): UsageRecord {
  if (!isObject(usage)) {
    return unavailableUsage(
      'openai-responses',
      `the response carries no usage (got ${describeValue(usage)})`,
      meta,
    );
  }
  const promptTokens = tokenCount(usage.input_tokens);
  if (promptTokens === undefined) {
    return unavailableUsage('openai-responses', missingCount('usage.input_tokens', usage.input_tokens), meta);
  }
  const completionTokens = tokenCount(usage.output_tokens);
  if (completionTokens === undefined) {
    return unavailableUsage(
      'openai-responses',
      missingCount('usage.output_tokens', usage.output_tokens),
      meta,
    );
  }
  const inputDetails = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const outputDetails = isObject(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return availableUsage(
    'openai-responses',
    {
      promptTokens,
      completionTokens,
      totalTokens: tokenCount(usage.total_tokens),
      cachedReadTokens: tokenCount(inputDetails.cached_tokens),
      reasoningTokens: tokenCount(outputDetails.reasoning_tokens),
    },
    meta,
  );
}

function metaOf(response: JsonObject, timestamp: string | undefined): UsageMeta {
  return { model: text(response.model), timestamp: timestamp ?? isoFromUnixSeconds(response.created_at) };
}

function fromResponse(response: JsonObject, timestamp: string | undefined): UsageRecord {
  // A bare usage object, as some SDKs hand it over.
  if (response.usage === undefined && 'input_tokens' in response && 'output_tokens' in response) {
    return responsesUsageRecord(response, { timestamp });
  }
  return responsesUsageRecord(response.usage, metaOf(response, timestamp));
}

/** Streamed events carry the final response, usage included, in `response.completed` (or `.incomplete`). */
const STREAM: UsageStream = {
  source: 'openai-responses',
  unwrap: (event) => (isObject(event.response) ? event.response : event),
  carriesUsage: (response) => isObject(response.usage),
  fromFinal: fromResponse,
  metaOf,
  noUsage: 'no event of the stream carries usage',
  noObjects: 'the stream holds no JSON events',
};

/**
 * Usage of an OpenAI Responses API response (also the `/responses/compact` result, whose object is
 * `response.compaction`). Accepts the response object, its JSON, or a stream of events (array or SSE).
 */
export function normalizeOpenAIResponses(response: unknown, options?: NormalizeUsageOptions): UsageRecord {
  const { timestamp } = resolveNormalizeOptions(options);
  const body = decodeBody(response);
  if (Array.isArray(body)) return fromLastUsageChunk(body, timestamp, STREAM);
  if (!isObject(body)) {
    return notAnObject('openai-responses', body, timestamp);
  }
  if (typeof body.type === 'string' && body.type.startsWith('response.'))
    return fromLastUsageChunk([body], timestamp, STREAM);
  return fromResponse(body, timestamp);
}
