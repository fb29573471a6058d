import type { PromptCacheTokens } from '../cache/prompt-cache-tokens.js';
import type { LogCallUsage } from './log-history.js';

/**
 * A prompt cache entry outlives a pause this long: Anthropic's default cache lives 5 minutes
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 */
export const CACHE_LIFETIME_MS = 5 * 60 * 1000;

/**
 * How long a pause the provider's cache surely does not outlive, after a call with this usage: Anthropic's entries
 * live 5 minutes, 1 hour when written with the 1-hour lifetime (the call wrote 1-hour tokens)
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching); OpenAI's in-memory cache is "typically"
 * cleared after 5 to 10 minutes of inactivity and always within one hour
 * (https://learn.microsoft.com/azure/foundry/openai/how-to/prompt-caching, OpenAI's prompt caching guide): only the
 * hour is sure.
 */
export function cacheLifetimeMs(
  source: string,
  usage: Pick<LogCallUsage, 'cacheWrite1hTokens'> | null | undefined,
): number {
  if (source === 'codex' || source === 'openai') return 60 * 60 * 1000;
  return (usage?.cacheWrite1hTokens ?? 0) > 0 ? 60 * 60 * 1000 : CACHE_LIFETIME_MS;
}

export interface CachedCallInput {
  /** The recorded call: its cache figures are the start, its output is the what-if's. */
  usage: LogCallUsage;
  /** The cache model's figures for the request the agent sent (the unedited stream). */
  unedited: PromptCacheTokens;
  /** The cache model's figures for the request barometer would have sent (the what-if stream). */
  whatIf: PromptCacheTokens;
  /** An extra call (a re-read) has its own output. */
  extra: { completionTokens: number; reasoningTokens: number } | null;
}

const round = (value: number) => Math.max(0, Math.round(value));

/**
 * A what-if call's tokens as the provider bills them: the recorded call plus what the cache model says barometer's
 * edits change, part by part — `recorded + (model(what-if) − model(unedited))` for the prompt, the reads, the 5-minute
 * and the 1-hour writes. A call barometer did not change is then the recorded call exactly, and a miss the log shows
 * (an expiry the model did not foresee) stays a miss. Each part is clamped to what is left of the prompt (reads first,
 * then 1-hour and 5-minute writes; the uncached input is the rest), so the parts sum to the what-if prompt.
 */
export function cachedCallTokens(input: CachedCallInput): LogCallUsage {
  const { usage, unedited, whatIf, extra } = input;
  const prompt = Math.max(1, round(usage.promptTokens + whatIf.promptTokens - unedited.promptTokens));
  const part = (recorded: number, model: number, base: number, room: number) =>
    Math.min(room, round(recorded + model - base));
  const read = part(usage.cacheReadTokens, whatIf.cacheReadTokens, unedited.cacheReadTokens, prompt);
  const write1h = part(
    usage.cacheWrite1hTokens,
    whatIf.cacheWrite1hTokens,
    unedited.cacheWrite1hTokens,
    prompt - read,
  );
  const write5m = part(
    usage.cacheWrite5mTokens,
    whatIf.cacheWrite5mTokens,
    unedited.cacheWrite5mTokens,
    prompt - read - write1h,
  );
  return {
    promptTokens: prompt,
    cacheReadTokens: read,
    cacheWrite5mTokens: write5m,
    cacheWrite1hTokens: write1h,
    completionTokens: extra ? extra.completionTokens : usage.completionTokens,
    reasoningTokens: extra ? extra.reasoningTokens : usage.reasoningTokens,
  };
}
