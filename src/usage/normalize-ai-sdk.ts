import {
  availableUsage,
  decodeBody,
  describeValue,
  isObject,
  isoTimestamp,
  type JsonObject,
  missingCount,
  notAnObject,
  text,
  tokenCount,
  type UsageMeta,
  unavailableUsage,
} from './usage-fields.js';
import { type NormalizeUsageOptions, resolveNormalizeOptions } from './usage-format.js';
import type { UsageRecord } from './usage-record.js';

const detail = (value: unknown, key: string) => (isObject(value) ? tokenCount(value[key]) : undefined);

/**
 * Maps a Vercel AI SDK usage object, whichever major wrote it:
 * - v6 `LanguageModelUsage`: `inputTokens`, `inputTokenDetails.{cacheReadTokens, cacheWriteTokens}`,
 *   `outputTokens`, `outputTokenDetails.reasoningTokens`, `totalTokens`;
 * - v5: `inputTokens`, `outputTokens`, `totalTokens`, `reasoningTokens`, `cachedInputTokens`;
 * - the provider-level v3 spec usage: `inputTokens: { total, cacheRead, cacheWrite }`,
 *   `outputTokens: { total, reasoning }`;
 * - v4: `promptTokens`, `completionTokens`, `totalTokens` (v4 reports NaN when the provider gave
 *   nothing, which reads as "unavailable").
 * `inputTokens` is the whole prompt, cached tokens included, as the SDK documents it. (Some v5
 * provider packages reported Anthropic's uncached `input_tokens` there; the usage object alone cannot
 * tell, so such figures come out low.)
 */
function aiSdkUsageRecord(usage: JsonObject, meta: UsageMeta): UsageRecord {
  const nestedInput = isObject(usage.inputTokens) ? usage.inputTokens : undefined;
  const nestedOutput = isObject(usage.outputTokens) ? usage.outputTokens : undefined;
  const v4 = usage.inputTokens === undefined && 'promptTokens' in usage;
  const promptValue = nestedInput ? nestedInput.total : v4 ? usage.promptTokens : usage.inputTokens;
  const completionValue = nestedOutput
    ? nestedOutput.total
    : v4
      ? usage.completionTokens
      : usage.outputTokens;
  const promptTokens = tokenCount(promptValue);
  if (promptTokens === undefined) {
    const path = nestedInput ? 'inputTokens.total' : v4 ? 'promptTokens' : 'inputTokens';
    return unavailableUsage('ai-sdk', missingCount(path, promptValue), meta);
  }
  const completionTokens = tokenCount(completionValue);
  if (completionTokens === undefined) {
    const path = nestedOutput ? 'outputTokens.total' : v4 ? 'completionTokens' : 'outputTokens';
    return unavailableUsage('ai-sdk', missingCount(path, completionValue), meta);
  }
  return availableUsage(
    'ai-sdk',
    {
      promptTokens,
      completionTokens,
      totalTokens: tokenCount(usage.totalTokens),
      cachedReadTokens:
        detail(nestedInput, 'cacheRead') ??
        detail(usage.inputTokenDetails, 'cacheReadTokens') ??
        tokenCount(usage.cachedInputTokens),
      cachedWriteTokens:
        detail(nestedInput, 'cacheWrite') ?? detail(usage.inputTokenDetails, 'cacheWriteTokens'),
      reasoningTokens:
        detail(nestedOutput, 'reasoning') ??
        detail(usage.outputTokenDetails, 'reasoningTokens') ??
        tokenCount(usage.reasoningTokens),
    },
    meta,
  );
}

const USAGE_KEYS = ['inputTokens', 'outputTokens', 'promptTokens', 'completionTokens', 'totalTokens'];

/**
 * Usage from the Vercel AI SDK: the usage object itself, or a result that holds one
 * (`generateText`'s result, a `finish` stream part), whose `usage` is read and whose
 * `response.modelId` names the model.
 */
export function normalizeAiSdk(usageOrResult: unknown, options?: NormalizeUsageOptions): UsageRecord {
  const { timestamp } = resolveNormalizeOptions(options);
  const body = decodeBody(usageOrResult);
  if (!isObject(body)) {
    return notAnObject('ai-sdk', body, timestamp, 'usage');
  }
  if (USAGE_KEYS.some((key) => key in body)) return aiSdkUsageRecord(body, { timestamp });
  const response = isObject(body.response) ? body.response : {};
  const when = response.timestamp;
  const responseTime = when instanceof Date && !Number.isNaN(when.getTime()) ? when.toISOString() : when;
  const meta = { model: text(response.modelId), timestamp: timestamp ?? isoTimestamp(responseTime) };
  // `usage` is the last step's (its prompt is the context now); `totalUsage` sums the steps.
  const usage = body.usage ?? body.totalUsage;
  if (!isObject(usage)) {
    return unavailableUsage('ai-sdk', `the result carries no usage (got ${describeValue(usage)})`, meta);
  }
  return aiSdkUsageRecord(usage, meta);
}
