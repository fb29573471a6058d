import type { LogCallUsage } from './log-history.js';

/**
 * A prompt cache entry outlives a pause this long: Anthropic's default cache lives 5 minutes
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching). Used only where the log cannot say
 * (the first call after the agent's own compaction, which the what-if never made).
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

/** The call before, as the cache saw it. */
export interface PreviousCall {
  /** The recorded and what-if prompts of the previous call (or extra call). */
  realPrompt: number;
  whatIfPrompt: number;
  /** What-if items the previous call was sent. */
  length: number;
  segment: number;
  timestamp: number;
  /** The previous call was an extra one made right before this call: everything it sent is in the cache. */
  backToBack: boolean;
}

export interface CachedCallInput {
  /** The what-if prompt of this call. */
  prompt: number;
  /** The what-if tokens of the previous call's prompt up to the first item changed since (all of it if none). */
  unchangedPrefix: number;
  /** The recorded call: its cache figures set the proportions, its output is the what-if's. */
  usage: LogCallUsage;
  previous: PreviousCall | null;
  segment: number;
  /** Epoch ms of the call. */
  time: number;
  /** An extra call (a re-read) has its own output. */
  extra: { completionTokens: number; reasoningTokens: number } | null;
}

const round = (value: number) => Math.max(0, Math.round(value));

/**
 * A what-if call's tokens as the provider bills them. It reads from the cache the unchanged prefix of the previous
 * call's prompt, in the proportion the recorded call read its previous call's prompt (so a cache the log shows
 * expired is expired here too); after the agent's own compaction, which the what-if never made, as much as the
 * pause allows (5 minutes); right after an extra call, all of it. The rest is written to the cache and sent
 * uncached in the recorded call's proportions (5-minute writes, 1-hour writes, uncached input). The first call
 * reads what the recorded one read, scaled to its prompt. Rounded to whole tokens, parts never above the whole.
 */
export function cachedCallTokens(input: CachedCallInput): LogCallUsage {
  const { prompt, usage, previous, extra } = input;
  let read: number;
  if (previous === null) read = usage.cacheReadTokens * (prompt / Math.max(1, usage.promptTokens));
  else {
    const ratio = previous.backToBack
      ? 1
      : extra === null && previous.segment !== input.segment
        ? input.time - previous.timestamp <= CACHE_LIFETIME_MS
          ? 1
          : 0
        : usage.cacheReadTokens / Math.max(1, previous.realPrompt);
    read = ratio * input.unchangedPrefix;
  }
  read = Math.min(prompt, read);
  const fresh = prompt - read;
  const notRead = usage.promptTokens - usage.cacheReadTokens;
  const figures: LogCallUsage = {
    promptTokens: round(prompt),
    cacheReadTokens: round(read),
    cacheWrite5mTokens: notRead > 0 ? round((fresh * usage.cacheWrite5mTokens) / notRead) : 0,
    cacheWrite1hTokens: notRead > 0 ? round((fresh * usage.cacheWrite1hTokens) / notRead) : 0,
    completionTokens: extra ? extra.completionTokens : usage.completionTokens,
    reasoningTokens: extra ? extra.reasoningTokens : usage.reasoningTokens,
  };
  const over =
    figures.cacheReadTokens + figures.cacheWrite5mTokens + figures.cacheWrite1hTokens - figures.promptTokens;
  if (over > 0) figures.cacheReadTokens = Math.max(0, figures.cacheReadTokens - over);
  return figures;
}
