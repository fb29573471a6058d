import { normalizeAiSdk } from './normalize-ai-sdk.js';
import { normalizeAnthropic } from './normalize-anthropic.js';
import { normalizeGemini } from './normalize-gemini.js';
import { normalizeLlamaCpp } from './normalize-llama-cpp.js';
import { normalizeOllama } from './normalize-ollama.js';
import { normalizeOpenAIChat } from './normalize-openai-chat.js';
import { normalizeOpenAIResponses } from './normalize-openai-responses.js';
import { assertUsageFormat, type NormalizeUsageOptions, type UsageFormat } from './usage-format.js';
import type { UsageRecord } from './usage-record.js';

const NORMALIZERS: Readonly<
  Record<UsageFormat, (response: unknown, options?: NormalizeUsageOptions) => UsageRecord>
> = {
  'openai-chat': normalizeOpenAIChat,
  'openai-responses': normalizeOpenAIResponses,
  anthropic: normalizeAnthropic,
  gemini: normalizeGemini,
  'ai-sdk': normalizeAiSdk,
  ollama: normalizeOllama,
  'llama-cpp': normalizeLlamaCpp,
};

/**
 * One provider response → one normalized usage record. `promptTokens` is always the size of the
 * context the model read (cached tokens included), so every provider's figure means the same thing.
 *
 * The response may be the parsed body, its raw text (JSON, SSE or newline-delimited JSON), or, for
 * streams, the array of chunks/events. A response without usage, or input that is no response at all,
 * gives `{ available: false, reason }` — never zeros and never a throw. Only a `format` that is not
 * one of `USAGE_FORMATS`, or invalid options, throw a `BarometerValidationError`.
 *
 * @example
 * normalizeUsage('openai-chat', await res.json())
 * // → { available: true, source: 'openai-chat', promptTokens: 104, completionTokens: 16, totalTokens: 120, … }
 * normalizeUsage('anthropic', sseText, { timestamp: '2026-02-12T16:02:27.718Z' })
 */
export function normalizeUsage(
  format: UsageFormat,
  response: unknown,
  options?: NormalizeUsageOptions,
): UsageRecord {
  assertUsageFormat(format);
  return NORMALIZERS[format](response, options);
}
