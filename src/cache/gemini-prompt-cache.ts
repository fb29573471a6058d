import { automaticPrefixCache, type PrefixBlock, prefixBlockFault } from './automatic-prefix-cache.js';
import type { PromptCacheState } from './prompt-cache-state.js';
import type { PromptCacheTokens } from './prompt-cache-tokens.js';

/**
 * The minimum input of Gemini's implicit caching, by model, from the Gemini API's context caching page
 * (https://ai.google.dev/gemini-api/docs/caching, updated 2026-10-13). Sources and choices in docs/rules.md
 * ("Prompt caches").
 */
const MINIMUMS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gemini-4-argon/, 4096],
  [/^gemini-3\.[5-8]-flash/, 4096],
  [/^gemini-3\.1-pro/, 4096],
  [/^gemini-2\.5-(flash|pro)/, 2048],
];

/**
 * A Gemini model the page does not list, 2.5 or newer, gets the highest minimum it gives (4,096; 2,048 for a 2.5
 * model): never a read the provider may not give. Older models have no implicit caching ("enabled by default for all
 * Gemini 2.5 and newer models").
 */
export function geminiMinimumCacheableTokens(model: string): number | null {
  const id = model
    .toLowerCase()
    .replace(/^.*\//, '')
    .replace(/^models\//, '');
  for (const [pattern, minimum] of MINIMUMS) if (pattern.test(id)) return minimum;
  const version = /^gemini-(\d+)(?:\.(\d+))?/.exec(id);
  if (version === null || id.includes('latest')) return 4096;
  const major = Number(version[1]);
  const minor = version[2] === undefined ? 0 : Number(version[2]);
  if (major < 2 || (major === 2 && minor < 5)) return null;
  return major === 2 ? 2048 : 4096;
}

/**
 * How long the model keeps an implicit entry after its last use. The Gemini API does not say ("Try to send requests
 * with similar prefix in a short amount of time"); Vertex AI's page says implicit prefixes "expire within 24 hours of
 * creation; most entries are removed much earlier". 5 minutes: the shortest lifetime any provider documents for an
 * automatic cache (OpenAI's `in_memory`), so the model never predicts a read the provider is not likely to give.
 */
export const GEMINI_IMPLICIT_LIFETIME_MS = 5 * 60_000;

/** A generateContent request as Gemini's implicit cache sees it: its contents (system instruction and tools first). */
export interface GeminiCacheRequest {
  model: string;
  blocks: readonly PrefixBlock[];
  lifetimeMs?: number | undefined;
}

/** The usage Gemini reports for a request's prompt (`usageMetadata`). */
export interface GeminiCacheUsage {
  /** The whole prompt, cached tokens included. */
  promptTokenCount: number;
  cachedContentTokenCount: number;
}

export interface GeminiCacheOutcome {
  ok: true;
  usage: GeminiCacheUsage;
  tokens: PromptCacheTokens;
  state: PromptCacheState;
  hitPosition: number | null;
  /** The model's minimum cacheable input, or null when it has no implicit caching. */
  minimumTokens: number | null;
}

export interface GeminiCacheRefusal {
  ok: false;
  code: 'invalid_request';
  path: string;
  message: string;
}

/**
 * One request through Gemini's implicit cache at `now`: it reads the longest prefix it shares with a prompt served
 * before within the lifetime, when that prefix reaches the model's minimum; no write cost ("billed for the input
 * tokens used to create the cache at the standard input token price … no storage costs for implicit caching"); reads
 * at the model's cached price (a 90% discount on Gemini 2.5 and later).
 */
export function geminiPromptCache(
  state: PromptCacheState,
  request: GeminiCacheRequest,
  now: number,
): GeminiCacheOutcome | GeminiCacheRefusal {
  if (typeof request.model !== 'string' || request.model.length === 0)
    return { ok: false, code: 'invalid_request', path: 'model', message: 'model: expected a model id' };
  const fault = prefixBlockFault(request.blocks, 'blocks');
  if (fault)
    return {
      ok: false,
      code: 'invalid_request',
      path: fault.path,
      message: `${fault.path}: ${fault.message}`,
    };
  if (
    request.lifetimeMs !== undefined &&
    (!Number.isSafeInteger(request.lifetimeMs) || request.lifetimeMs < 1)
  )
    return {
      ok: false,
      code: 'invalid_request',
      path: 'lifetimeMs',
      message: 'lifetimeMs: expected a whole number ≥ 1',
    };
  const minimumTokens = geminiMinimumCacheableTokens(request.model);
  const total = request.blocks.reduce((sum, block) => sum + block.tokens, 0);
  if (minimumTokens === null) {
    const tokens = { promptTokens: total, cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 };
    const usage = { promptTokenCount: total, cachedContentTokenCount: 0 };
    return { ok: true, usage, tokens, state, hitPosition: null, minimumTokens };
  }
  const found = automaticPrefixCache(
    state,
    `gemini\u0000${request.model}`,
    request.blocks,
    minimumTokens,
    request.lifetimeMs ?? GEMINI_IMPLICIT_LIFETIME_MS,
    now,
  );
  return {
    ok: true,
    usage: { promptTokenCount: found.promptTokens, cachedContentTokenCount: found.matchedTokens },
    tokens: {
      promptTokens: found.promptTokens,
      cacheReadTokens: found.matchedTokens,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
    },
    state: found.state,
    hitPosition: found.matchedPosition,
    minimumTokens,
  };
}
