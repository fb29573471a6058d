import { openAIChatUsageRecord } from './normalize-openai-chat.js';
import {
  availableUsage,
  decodeBody,
  fromLastUsageChunk,
  isObject,
  isoFromUnixSeconds,
  isoTimestamp,
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
  return {
    model: text(response.model),
    timestamp: timestamp ?? isoTimestamp(response.created_at) ?? isoFromUnixSeconds(response.created),
  };
}

/**
 * Maps Ollama's native counts: `prompt_eval_count` (prompt tokens) and `eval_count` (generated
 * tokens). Ollama leaves `prompt_eval_count` out when it evaluated no prompt token because the whole
 * prompt was still in its cache; the prompt size is then unknown, so the record is unavailable rather
 * than 0.
 */
function fromFinal(response: JsonObject, timestamp: string | undefined): UsageRecord {
  const meta = metaOf(response, timestamp);
  // The OpenAI-compatible endpoint (/v1/chat/completions) answers with an OpenAI `usage` object.
  if (response.prompt_eval_count === undefined && response.eval_count === undefined && 'usage' in response) {
    return openAIChatUsageRecord(response.usage, 'ollama', meta);
  }
  const promptTokens = tokenCount(response.prompt_eval_count);
  if (promptTokens === undefined) {
    const reason =
      response.prompt_eval_count === undefined && response.eval_count !== undefined
        ? 'prompt_eval_count is missing (Ollama omits it when the whole prompt came from its cache)'
        : missingCount('prompt_eval_count', response.prompt_eval_count);
    return unavailableUsage('ollama', reason, meta);
  }
  const completionTokens = tokenCount(response.eval_count);
  if (completionTokens === undefined) {
    return unavailableUsage('ollama', missingCount('eval_count', response.eval_count), meta);
  }
  return availableUsage('ollama', { promptTokens, completionTokens }, meta);
}

/** In a stream only the last object (`done: true`) carries the counts. */
const STREAM: UsageStream = {
  source: 'ollama',
  carriesUsage: (chunk) => chunk.done === true || 'eval_count' in chunk || 'usage' in chunk,
  fromFinal,
  metaOf,
  noUsage: 'the stream has no final chunk (done: true); was it cut short?',
};

/**
 * Usage of an Ollama `/api/chat` or `/api/generate` response: the final object, the stream of
 * objects (array, or the newline-delimited JSON text), or an OpenAI-compatible response.
 */
export function normalizeOllama(response: unknown, options?: NormalizeUsageOptions): UsageRecord {
  const { timestamp } = resolveNormalizeOptions(options);
  const body = decodeBody(response);
  if (Array.isArray(body)) return fromLastUsageChunk(body, timestamp, STREAM);
  if (!isObject(body)) {
    return notAnObject('ollama', body, timestamp);
  }
  if (body.done === false) {
    return unavailableUsage(
      'ollama',
      'this is a partial chunk (done: false); usage comes with the final one',
      {
        ...metaOf(body, timestamp),
      },
    );
  }
  return fromFinal(body, timestamp);
}
