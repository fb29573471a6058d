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
import type { UsageRecord, UsageSource } from './usage-record.js';

/**
 * Maps an OpenAI-style `usage` object (Chat Completions, and the many servers that copy it: LiteLLM,
 * OpenRouter, Ollama's and llama.cpp's OpenAI-compatible endpoints). `prompt_tokens` already includes
 * the cached tokens and `completion_tokens` the reasoning tokens. LiteLLM adds Anthropic's
 * `cache_read_input_tokens`/`cache_creation_input_tokens` beside them, still inside `prompt_tokens`.
 */
export function openAIChatUsageRecord(
  usage: unknown,
  source: UsageSource,
  meta: UsageMeta,
  path = 'usage',
): UsageRecord {
  if (!isObject(usage)) {
    return unavailableUsage(source, `the response carries no ${path} (got ${describeValue(usage)})`, meta);
  }
  const promptTokens = tokenCount(usage.prompt_tokens);
  if (promptTokens === undefined) {
    return unavailableUsage(source, missingCount(`${path}.prompt_tokens`, usage.prompt_tokens), meta);
  }
  const completionTokens = tokenCount(usage.completion_tokens);
  if (completionTokens === undefined) {
    return unavailableUsage(source, missingCount(`${path}.completion_tokens`, usage.completion_tokens), meta);
  }
  const promptDetails = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completionDetails = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return availableUsage(
    source,
    {
      promptTokens,
      completionTokens,
      totalTokens: tokenCount(usage.total_tokens),
      cachedReadTokens: tokenCount(promptDetails.cached_tokens) ?? tokenCount(usage.cache_read_input_tokens),
      cachedWriteTokens:
        tokenCount(usage.cache_creation_input_tokens) ?? tokenCount(promptDetails.cache_write_tokens),
      reasoningTokens: tokenCount(completionDetails.reasoning_tokens),
    },
    meta,
  );
}

function metaOf(body: JsonObject, timestamp: string | undefined): UsageMeta {
  return { model: text(body.model), timestamp: timestamp ?? isoFromUnixSeconds(body.created) };
}

/**
 * Usage arrives once, in the final chunk (whose `choices` is empty), and only when the request asked
 * for it with stream_options.include_usage; every other chunk has `usage: null`.
 */
const STREAM: UsageStream = {
  source: 'openai-chat',
  carriesUsage: (chunk) => isObject(chunk.usage),
  fromFinal: (chunk, timestamp) =>
    openAIChatUsageRecord(chunk.usage, 'openai-chat', metaOf(chunk, timestamp)),
  metaOf,
  noUsage: 'no chunk of the stream carries usage (request it with stream_options: { include_usage: true })',
};

/**
 * Usage of a streamed Chat Completion: an array of `chat.completion.chunk` objects, or the SSE text
 * (`data: {…}` lines ending with `data: [DONE]`).
 *
 * @example normalizeOpenAIChatStream(sseBody) // → { available: true, promptTokens: 53, … }
 */
export function normalizeOpenAIChatStream(
  chunksOrSseText: unknown,
  options?: NormalizeUsageOptions,
): UsageRecord {
  const { timestamp } = resolveNormalizeOptions(options);
  const body = decodeBody(chunksOrSseText);
  if (Array.isArray(body)) return fromLastUsageChunk(body, timestamp, STREAM);
  if (isObject(body)) return fromLastUsageChunk([body], timestamp, STREAM);
  return unavailableUsage(
    'openai-chat',
    `the stream is not chunks or SSE text (got ${describeValue(body)})`,
    {
      timestamp,
    },
  );
}

/**
 * Usage of a Chat Completions response. Accepts the response object, its JSON or SSE text, an array
 * of stream chunks, or a bare `usage` object.
 */
export function normalizeOpenAIChat(response: unknown, options?: NormalizeUsageOptions): UsageRecord {
  const { timestamp } = resolveNormalizeOptions(options);
  const body = decodeBody(response);
  if (Array.isArray(body)) return fromLastUsageChunk(body, timestamp, STREAM);
  if (!isObject(body)) {
    return notAnObject('openai-chat', body, timestamp);
  }
  if (body.object === 'chat.completion.chunk') return fromLastUsageChunk([body], timestamp, STREAM);
  if (body.usage === undefined && 'prompt_tokens' in body) {
    return openAIChatUsageRecord(body, 'openai-chat', { timestamp });
  }
  return openAIChatUsageRecord(body.usage, 'openai-chat', metaOf(body, timestamp));
}
