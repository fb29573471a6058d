import {
  availableUsage,
  decodeBody,
  describeValue,
  fromLastUsageChunk,
  isObject,
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
 * Maps Gemini `usageMetadata`. The API serializes protobuf, which omits fields whose value is 0, so
 * an absent `candidatesTokenCount` (a chunk that has only thought so far) or `cachedContentTokenCount`
 * means 0. `promptTokenCount` includes the cached tokens; `candidatesTokenCount` excludes the
 * thoughts, which we add so that `completionTokens` counts everything generated (and
 * `total = prompt + completion` like the other providers). Tool-use prompt tokens (results of
 * built-in tools the model read) are part of the prompt.
 */
function geminiUsageRecord(metadata: unknown, meta: UsageMeta): UsageRecord {
  if (!isObject(metadata)) {
    return unavailableUsage(
      'gemini',
      `the response carries no usageMetadata (got ${describeValue(metadata)})`,
      meta,
    );
  }
  const promptCount = tokenCount(metadata.promptTokenCount);
  if (promptCount === undefined) {
    return unavailableUsage(
      'gemini',
      missingCount('usageMetadata.promptTokenCount', metadata.promptTokenCount),
      meta,
    );
  }
  const thoughts = tokenCount(metadata.thoughtsTokenCount) ?? 0;
  const promptTokens = promptCount + (tokenCount(metadata.toolUsePromptTokenCount) ?? 0);
  const completionTokens = (tokenCount(metadata.candidatesTokenCount) ?? 0) + thoughts;
  return availableUsage(
    'gemini',
    {
      promptTokens,
      completionTokens,
      totalTokens: tokenCount(metadata.totalTokenCount),
      cachedReadTokens: tokenCount(metadata.cachedContentTokenCount),
      reasoningTokens: thoughts,
    },
    meta,
  );
}

function metaOf(response: JsonObject, timestamp: string | undefined): UsageMeta {
  return { model: text(response.modelVersion), timestamp };
}

/** Every streamed chunk repeats the cumulative usage so far; the last one that has it is final. */
const STREAM: UsageStream = {
  source: 'gemini',
  carriesUsage: (chunk) => isObject(chunk.usageMetadata),
  fromFinal: (chunk, timestamp) => geminiUsageRecord(chunk.usageMetadata, metaOf(chunk, timestamp)),
  metaOf,
  noUsage: 'no chunk of the stream carries usageMetadata',
};

/**
 * Usage of a Gemini `generateContent` response, or of a `streamGenerateContent` stream (an array of
 * chunks, or the SSE text of `?alt=sse`). A bare `usageMetadata` object is accepted too.
 */
export function normalizeGemini(response: unknown, options?: NormalizeUsageOptions): UsageRecord {
  const { timestamp } = resolveNormalizeOptions(options);
  const body = decodeBody(response);
  if (Array.isArray(body)) return fromLastUsageChunk(body, timestamp, STREAM);
  if (!isObject(body)) {
    return notAnObject('gemini', body, timestamp);
  }
  if (body.usageMetadata === undefined && 'promptTokenCount' in body)
    return geminiUsageRecord(body, { timestamp });
  return geminiUsageRecord(body.usageMetadata, metaOf(body, timestamp));
}
