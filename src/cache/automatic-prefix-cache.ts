import { prefixChain, prefixKey } from './prefix-hash.js';
import { liveEntries, type PromptCacheState, useEntry } from './prompt-cache-state.js';

/** A block of a request to a cache that matches prefixes on its own (no markers): its identity and its tokens. */
export interface PrefixBlock {
  /** A stable identity of the block's content, given by the caller; equal content, equal identity. */
  id: string;
  tokens: number;
}

/** What an automatic prefix cache did with one request. */
export interface AutomaticPrefixOutcome {
  promptTokens: number;
  /** Tokens of the longest prefix, at a block's end, that a live entry holds (before any rounding). */
  matchedTokens: number;
  /** The last block of that prefix, or null. */
  matchedPosition: number | null;
  state: PromptCacheState;
}

/**
 * One request through a cache that keeps every prompt it serves and reads the longest prefix a later request shares
 * with one of them (OpenAI before GPT-5.6, Gemini's implicit caching): the match ends at a block's end, since a
 * block whose identity changed may differ from its first token. After the request every prefix of its prompt that
 * reaches the minimum is held (written or refreshed) for `lifetimeMs` from `now`; a prompt under the minimum is not
 * cached at all.
 */
export function automaticPrefixCache(
  state: PromptCacheState,
  space: string,
  blocks: readonly PrefixBlock[],
  minimumTokens: number,
  lifetimeMs: number,
  now: number,
): AutomaticPrefixOutcome {
  const chain = prefixChain(
    space,
    blocks.map((block) => block.id),
  );
  const cumulative = new Array<number>(blocks.length);
  let total = 0;
  for (let position = 0; position < blocks.length; position++) {
    total += (blocks[position] as PrefixBlock).tokens;
    cumulative[position] = total;
  }
  const entries = liveEntries(state, now);
  let matchedPosition: number | null = null;
  // Every prefix at or above the minimum: the longest one held is read, and all are held after the request.
  for (let position = blocks.length - 1; position >= 0; position--) {
    const tokens = cumulative[position] as number;
    if (tokens < minimumTokens) break;
    const key = prefixKey(chain, position);
    if (matchedPosition === null && entries[key] !== undefined) matchedPosition = position;
    useEntry(entries, key, tokens, lifetimeMs, now);
  }
  return {
    promptTokens: total,
    matchedTokens: matchedPosition === null ? 0 : (cumulative[matchedPosition] as number),
    matchedPosition,
    state: { entries },
  };
}

/** Checks a request's blocks: the path and the fault of the first bad one, or null. */
export function prefixBlockFault(
  blocks: readonly PrefixBlock[],
  list: string,
): { path: string; message: string } | null {
  if (!Array.isArray(blocks)) return { path: list, message: 'expected a list of blocks' };
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index] as PrefixBlock;
    if (typeof block.id !== 'string' || block.id.length === 0)
      return { path: `${list}[${index}].id`, message: 'expected a non-empty identity' };
    if (!Number.isSafeInteger(block.tokens) || block.tokens < 0)
      return {
        path: `${list}[${index}].tokens`,
        message: `expected a whole number ≥ 0, got ${String(block.tokens)}`,
      };
  }
  return null;
}
