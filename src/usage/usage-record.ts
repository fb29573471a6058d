/** Where a usage figure came from. */
export type UsageSource =
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic'
  | 'gemini'
  | 'ai-sdk'
  | 'ollama'
  | 'llama-cpp'
  | 'claude-code'
  | 'codex'
  | 'gemini-cli'
  | 'openhands'
  | 'pi'
  | 'manual';

/**
 * One sampling pass inside a single API response. Anthropic's server-side compaction runs a
 * `compaction` pass (which reads the whole pre-compaction conversation and writes a summary) before
 * the `message` pass that answers from the compacted context; the response's top-level usage is the
 * last pass only, and the provider bills the sum of all passes.
 */
export interface UsageIteration {
  /** The provider's name for the pass: 'compaction' or 'message' for Anthropic. */
  type: string;
  /** Prompt tokens this pass read, cache read and cache write included. */
  promptTokens: number;
  completionTokens: number;
  cachedReadTokens: number;
  cachedWriteTokens: number;
}

/**
 * One generation's usage, normalized across providers. Prompt tokens include cached prompt tokens
 * (read and written), so `promptTokens` is the size of the context the model saw.
 */
export interface AvailableUsage {
  available: true;
  source: UsageSource;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens served from the provider's cache (Anthropic cache_read, OpenAI cached_tokens, Gemini cachedContentTokenCount). */
  cachedReadTokens: number;
  /** Prompt tokens written to the cache (Anthropic cache_creation); 0 where the provider has no such notion. */
  cachedWriteTokens: number;
  /**
   * The part of `cachedWriteTokens` written with a 1-hour lifetime (Anthropic `cache_creation.ephemeral_1h_input_tokens`),
   * billed at 2 × input instead of the 5-minute write's 1.25 ×. Absent: every write is a 5-minute one.
   */
  cachedWrite1hTokens?: number;
  /** Reasoning/thinking tokens, included in completionTokens where the provider counts them there. */
  reasoningTokens: number;
  model?: string;
  /** ISO 8601 time of the generation, when known. */
  timestamp?: string;
  /**
   * The sampling passes of a response that ran more than one (Anthropic `usage.iterations`, present
   * when server-side compaction ran). The fields above describe the final pass, i.e. the context the
   * answer was produced from; see `serverCompaction` for the figures before and after the compaction.
   */
  iterations?: UsageIteration[];
}

/** A response that carried no usage: never zeros, never a local guess. */
export interface UnavailableUsage {
  available: false;
  source: UsageSource;
  reason: string;
  model?: string;
  timestamp?: string;
}

export type UsageRecord = AvailableUsage | UnavailableUsage;
