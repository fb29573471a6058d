/**
 * A request's prompt tokens as a provider bills them, in one shape for every provider (the field names of the
 * what-if's `LogCallUsage`, so its figures can be spread into one): the parts sum to `promptTokens`.
 */
export interface PromptCacheTokens {
  /** The whole prompt: uncached input + cache reads + cache writes. */
  promptTokens: number;
  /** Read from the cache (Anthropic `cache_read_input_tokens`, OpenAI `cached_tokens`, Gemini `cachedContentTokenCount`). */
  cacheReadTokens: number;
  /**
   * Written to the cache at the cache-write price: Anthropic's 5-minute writes (`ephemeral_5m_input_tokens`, 1.25 ×
   * input), OpenAI's writes on GPT-5.6 and later (`cache_write_tokens`, 1.25 × input). 0 where writes cost nothing.
   */
  cacheWrite5mTokens: number;
  /** Written with Anthropic's 1-hour lifetime (`ephemeral_1h_input_tokens`, 2 × input). */
  cacheWrite1hTokens: number;
}

/** The uncached input of a request: what is neither read from nor written to the cache. */
export function uncachedTokens(tokens: PromptCacheTokens): number {
  return tokens.promptTokens - tokens.cacheReadTokens - tokens.cacheWrite5mTokens - tokens.cacheWrite1hTokens;
}
