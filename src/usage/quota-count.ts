import type { UsageRecord, UsageSource } from './usage-record.js';

/** How a provider counts a call against its per-minute quotas. */
export type QuotaRules = 'anthropic' | 'openai' | 'gemini' | 'total';

/** One call as the quotas count it. */
export interface QuotaCounts {
  requests: number;
  /** Input tokens as the provider's input limit counts them (Anthropic ITPM: uncached input + cache writes). */
  input: number;
  output: number;
  /** Tokens as the provider's combined tokens-per-minute limit counts them. */
  tokens: number;
}

const RULES_OF_SOURCE: Partial<Record<UsageSource, QuotaRules>> = {
  anthropic: 'anthropic',
  'claude-code': 'anthropic',
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  codex: 'openai',
  gemini: 'gemini',
  'gemini-cli': 'gemini',
};

/**
 * Whose counting rules apply to a usage record: its source's provider, else (for sources that serve many
 * providers: the AI SDK, OpenHands, manual figures) the maker of the model, else plain totals.
 */
export function quotaRulesOf(source: UsageSource, model?: string): QuotaRules {
  const bySource = RULES_OF_SOURCE[source];
  if (bySource) return bySource;
  const name = model ?? '';
  // A session asks about its one model on every update: the last answer is kept.
  if (name !== lastModel) {
    lastRules = rulesOfModel(name);
    lastModel = name;
  }
  return lastRules;
}

let lastModel: string | undefined;
let lastRules: QuotaRules = 'total';

function rulesOfModel(model: string): QuotaRules {
  const id = model.toLowerCase().replace(/^.*\//, '');
  if (id.startsWith('claude')) return 'anthropic';
  if (/^(?:gpt-|chatgpt-|codex-|o\d)/.test(id)) return 'openai';
  if (id.startsWith('gemini')) return 'gemini';
  return 'total';
}

/**
 * A call counted the way its provider counts it against per-minute quotas:
 * - Anthropic: input (ITPM) is the uncached input plus the cache writes; cache reads do not count on current
 *   models ("cache-aware ITPM"); output (OTPM) is the output; a combined tokens-per-minute limit, which
 *   Anthropic does not have, is taken as input + output counted so.
 * - OpenAI: tokens per minute count the whole prompt (cached tokens included: the rate-limit guide makes no
 *   exception for them) and the output.
 * - Gemini: its tokens-per-minute limit counts input tokens.
 * - Otherwise: the prompt and the output, whole.
 * An unavailable record counts one request and no tokens.
 */
export function quotaCounts(usage: UsageRecord, rules: QuotaRules): QuotaCounts {
  if (!usage.available) return { requests: 1, input: 0, output: 0, tokens: 0 };
  const output = usage.completionTokens;
  switch (rules) {
    case 'anthropic': {
      const input = Math.max(0, usage.promptTokens - usage.cachedReadTokens);
      return { requests: 1, input, output, tokens: input + output };
    }
    case 'gemini':
      return { requests: 1, input: usage.promptTokens, output, tokens: usage.promptTokens };
    default:
      return { requests: 1, input: usage.promptTokens, output, tokens: usage.promptTokens + output };
  }
}
