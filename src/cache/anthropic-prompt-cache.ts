import {
  type AnthropicBreakpoint,
  type AnthropicCacheRefusal,
  type AnthropicCacheRequest,
  type CheckedAnthropicRequest,
  checkAnthropicRequest,
} from './anthropic-cache-request.js';
import { ANTHROPIC_LOOKBACK_POSITIONS, anthropicMinimumCacheableTokens } from './anthropic-cache-rules.js';
import { type PrefixChain, prefixChain, prefixKey } from './prefix-hash.js';
import { liveEntries, type PromptCacheEntry, type PromptCacheState, useEntry } from './prompt-cache-state.js';
import type { PromptCacheTokens } from './prompt-cache-tokens.js';

/** The usage Anthropic reports for a request's prompt, with its own field names. */
export interface AnthropicCacheUsage {
  /** "Tokens after the last cache breakpoint": neither read nor written. */
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** What a request did to the cache, and what the provider would bill and report for it. */
export interface AnthropicCacheOutcome {
  ok: true;
  usage: AnthropicCacheUsage;
  tokens: PromptCacheTokens;
  /** The cache after the request: the entries it read refreshed, the ones it wrote added, the expired ones gone. */
  state: PromptCacheState;
  /** The position (in tools → system → messages) of the entry read, or null for a miss. */
  hitPosition: number | null;
  /** Positions whose entries the request wrote and paid for, in order. */
  writtenPositions: number[];
  /** Breakpoints that wrote nothing because their prefix is under the model's minimum cacheable length. */
  tooShortPositions: number[];
}

/**
 * One Messages request through Anthropic's prompt cache, at `now` (epoch ms of the request's start): the usage the
 * API would report and the cache after it. The rules, from the prompt caching guide (docs/rules.md, "Prompt caches"):
 *
 * - an entry is "a hash of the prefix ending at" a breakpoint; "the system does not write entries for any earlier
 *   position" — a breakpoint below the model's minimum cacheable length writes none;
 * - a read looks for an entry at each breakpoint and then "walks backward one block at a time", at most 20 positions
 *   per breakpoint counting itself, window after window from the last breakpoint: the highest entry found is read;
 * - billing "determines three billing locations": A the tokens at the highest hit, B at the highest 1-hour breakpoint
 *   after A, C at the last breakpoint: reads A, 1-hour writes B − A, 5-minute writes C − B, and the rest (after the
 *   last breakpoint) is `input_tokens`;
 * - each use refreshes an entry ("The cache is refreshed for no additional cost each time the cached content is
 *   used"), from the request's start, for its lifetime (5 minutes or 1 hour); the breakpoints inside the prefix read
 *   are used too, so their entries live on (written free if they had expired: the request paid to read them).
 *
 * A request the API would refuse (a fifth breakpoint, a 1-hour breakpoint after a 5-minute one, …) answers
 * `{ ok: false }` with the field at fault, and no state.
 * @example anthropicPromptCache(emptyPromptCacheState(), { model: 'claude-sonnet-4-5', system: [{ id: 's', tokens: 2000, cacheControl: '5m' }], messages: [{ id: 'u', tokens: 20 }] }, Date.now()).usage
 * // { input_tokens: 20, cache_creation_input_tokens: 2000, cache_read_input_tokens: 0, … }
 */
export function anthropicPromptCache(
  state: PromptCacheState,
  request: AnthropicCacheRequest,
  now: number,
): AnthropicCacheOutcome | AnthropicCacheRefusal {
  const checked = checkAnthropicRequest(request);
  if (!checked.ok) return checked;
  const { blocks, breakpoints } = checked;
  const chain = anthropicPrefixChain(request, checked);
  const cumulative = new Array<number>(blocks.length);
  let total = 0;
  for (let position = 0; position < blocks.length; position++) {
    total += (blocks[position] as { tokens: number }).tokens;
    cumulative[position] = total;
  }
  const minimum = anthropicMinimumCacheableTokens(request.model);
  const effective = breakpoints.filter((point) => (cumulative[point.position] as number) >= minimum);
  const entries = liveEntries(state, now);
  const hit = highestHit(entries, chain, effective);
  const read = hit === null ? 0 : (cumulative[hit] as number);
  const last = effective.at(-1);
  let oneHourEnd = read;
  for (const point of effective)
    if (point.ttl === '1h' && (hit === null || point.position > hit))
      oneHourEnd = cumulative[point.position] as number;
  const cachedEnd = last === undefined ? 0 : Math.max(read, cumulative[last.position] as number);
  if (hit !== null) {
    const key = prefixKey(chain, hit);
    const held = entries[key] as PromptCacheEntry;
    useEntry(entries, key, held.tokens, held.lifetimeMs, now);
  }
  const writtenPositions: number[] = [];
  for (const point of effective) {
    if (hit === null || point.position > hit) writtenPositions.push(point.position);
    const key = prefixKey(chain, point.position);
    useEntry(entries, key, cumulative[point.position] as number, point.lifetimeMs, now);
  }
  const tokens: PromptCacheTokens = {
    promptTokens: total,
    cacheReadTokens: read,
    cacheWrite1hTokens: oneHourEnd - read,
    cacheWrite5mTokens: cachedEnd - oneHourEnd,
  };
  return {
    ok: true,
    usage: {
      input_tokens: total - cachedEnd,
      cache_creation_input_tokens: cachedEnd - read,
      cache_read_input_tokens: read,
      cache_creation: {
        ephemeral_5m_input_tokens: tokens.cacheWrite5mTokens,
        ephemeral_1h_input_tokens: tokens.cacheWrite1hTokens,
      },
    },
    tokens,
    state: { entries },
    hitPosition: hit,
    writtenPositions,
    tooShortPositions: breakpoints
      .filter((point) => (cumulative[point.position] as number) < minimum)
      .map((point) => point.position),
  };
}

/**
 * The highest position holding a live entry within the lookback windows of the breakpoints: from the last breakpoint
 * back, at most 20 positions each ("If the system finds no matching entry in that window, checking stops (or resumes
 * from the next explicit breakpoint, if any)").
 */
function highestHit(
  entries: Readonly<Record<string, PromptCacheEntry>>,
  chain: PrefixChain,
  breakpoints: readonly AnthropicBreakpoint[],
): number | null {
  for (let index = breakpoints.length - 1; index >= 0; index--) {
    const top = (breakpoints[index] as AnthropicBreakpoint).position;
    const bottom = Math.max(0, top - ANTHROPIC_LOOKBACK_POSITIONS + 1);
    for (let position = top; position >= bottom; position--)
      if (entries[prefixKey(chain, position)] !== undefined) return position;
  }
  return null;
}

/**
 * The chain of the request's prefixes: the model, then each block's identity in order, with the settings rendered
 * ahead of the system and the message levels folded in where those levels start.
 */
export function anthropicPrefixChain(
  request: AnthropicCacheRequest,
  checked: CheckedAnthropicRequest,
): PrefixChain {
  const settings = new Map<number, string>();
  const system = request.settings?.system;
  const messages = request.settings?.messages;
  if (system !== undefined) settings.set(checked.systemStart, `\u0001system-settings\u0000${system}`);
  if (messages !== undefined) {
    const both = settings.get(checked.messagesStart);
    const own = `\u0001messages-settings\u0000${messages}`;
    settings.set(checked.messagesStart, both === undefined ? own : `${both}\u0000${own}`);
  }
  return prefixChain(
    `anthropic\u0000${request.model}`,
    checked.blocks.map((block) => block.id),
    settings,
  );
}
