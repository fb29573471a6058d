import type { UsageUpdate } from '../session/session-options.js';
import { isObject } from '../usage/json-object.js';
import { normalizeAiSdk } from '../usage/normalize-ai-sdk.js';

/**
 * A LangChain message's `usage_metadata` as a usage update. `@langchain/core`'s `UsageMetadata`: `input_tokens`
 * is the "sum of all input token types" (the whole prompt, cache reads included), `input_token_details.cache_read`
 * the tokens read from the cache and `cache_creation` those written to it, `output_tokens` the whole output with
 * `output_token_details.reasoning` (docs/rules.md, "Framework adapters"). It is read through the AI SDK's spec usage,
 * which has the same meanings; no `usage_metadata` is usage unavailable.
 */
export function langChainUsageUpdate(usage: unknown, modelId: unknown): UsageUpdate {
  const metadata = isObject(usage) ? usage : {};
  const input = isObject(metadata.input_token_details) ? metadata.input_token_details : {};
  const output = isObject(metadata.output_token_details) ? metadata.output_token_details : {};
  const spec = isObject(usage)
    ? {
        inputTokens: {
          total: metadata.input_tokens,
          ...(input.cache_read === undefined ? {} : { cacheRead: input.cache_read }),
          ...(input.cache_creation === undefined ? {} : { cacheWrite: input.cache_creation }),
        },
        outputTokens: {
          total: metadata.output_tokens,
          ...(output.reasoning === undefined ? {} : { reasoning: output.reasoning }),
        },
      }
    : usage;
  return { usage: normalizeAiSdk({ usage: spec, response: { modelId } }) };
}
