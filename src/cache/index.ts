export {
  type AnthropicBreakpoint,
  type AnthropicCacheBlock,
  type AnthropicCacheRefusal,
  type AnthropicCacheRequest,
  type CheckedAnthropicRequest,
  checkAnthropicRequest,
} from './anthropic-cache-request.js';
export {
  ANTHROPIC_CACHE_MULTIPLIERS,
  ANTHROPIC_LOOKBACK_POSITIONS,
  ANTHROPIC_MAX_BREAKPOINTS,
  ANTHROPIC_TTL_MS,
  ANTHROPIC_UNKNOWN_MODEL_MINIMUM,
  type AnthropicCacheTtl,
  anthropicMinimumCacheableTokens,
  claudeModelKey,
} from './anthropic-cache-rules.js';
export {
  type AnthropicCacheOutcome,
  type AnthropicCacheUsage,
  anthropicPrefixChain,
  anthropicPromptCache,
} from './anthropic-prompt-cache.js';
export {
  type AutomaticPrefixOutcome,
  automaticPrefixCache,
  type PrefixBlock,
} from './automatic-prefix-cache.js';
export {
  GEMINI_IMPLICIT_LIFETIME_MS,
  type GeminiCacheOutcome,
  type GeminiCacheRefusal,
  type GeminiCacheRequest,
  type GeminiCacheUsage,
  geminiMinimumCacheableTokens,
  geminiPromptCache,
} from './gemini-prompt-cache.js';
export type {
  OpenAiCacheBlock,
  OpenAiCacheRefusal,
  OpenAiCacheRequest,
  OpenAiMessageRole,
} from './openai-cache-request.js';
export {
  OPENAI_BREAKPOINT_MULTIPLIERS,
  OPENAI_LOOKUP,
  OPENAI_MAX_CACHE_WRITES,
  OPENAI_RETENTION_LIFETIME_MS,
  type OpenAiCacheRetention,
  type OpenAiCacheRules,
  openAiCacheRules,
} from './openai-cache-rules.js';
export { type OpenAiCacheOutcome, type OpenAiCacheUsage, openAiPromptCache } from './openai-prompt-cache.js';
export { type PrefixChain, prefixChain, prefixKey } from './prefix-hash.js';
export {
  type CallOutputTokens,
  type PromptCacheProvider,
  promptCacheCost,
  promptCachePrice,
} from './prompt-cache-cost.js';
export {
  emptyPromptCacheState,
  liveEntries,
  type PromptCacheEntry,
  PromptCacheEntrySchema,
  type PromptCacheState,
  PromptCacheStateSchema,
  useEntry,
} from './prompt-cache-state.js';
export { type PromptCacheTokens, uncachedTokens } from './prompt-cache-tokens.js';
