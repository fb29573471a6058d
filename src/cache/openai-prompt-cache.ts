import { automaticPrefixCache } from './automatic-prefix-cache.js';
import {
  type OpenAiCacheBlock,
  type OpenAiCacheRefusal,
  type OpenAiCacheRequest,
  openAiRequestFault,
} from './openai-cache-request.js';
import {
  OPENAI_LOOKUP,
  OPENAI_MAX_CACHE_WRITES,
  OPENAI_RETENTION_LIFETIME_MS,
  type OpenAiCacheRules,
  openAiCacheRules,
} from './openai-cache-rules.js';
import { prefixChain, prefixKey } from './prefix-hash.js';
import { liveEntries, type PromptCacheEntry, type PromptCacheState, useEntry } from './prompt-cache-state.js';
import type { PromptCacheTokens } from './prompt-cache-tokens.js';

/** The usage OpenAI reports for a request's prompt (the Responses API's names; Chat Completions has `prompt_tokens`). */
export interface OpenAiCacheUsage {
  /** The whole visible prompt, cached tokens included. */
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
}

/** What a request did to the cache, and what the provider would bill and report for it. */
export interface OpenAiCacheOutcome {
  ok: true;
  usage: OpenAiCacheUsage;
  tokens: PromptCacheTokens;
  state: PromptCacheState;
  /** The last block of the prefix read, or null for a miss. */
  hitPosition: number | null;
  rules: OpenAiCacheRules;
}

/**
 * One request through OpenAI's prompt cache at `now`: the usage the API would report and the cache after it.
 *
 * - Models before GPT-5.6: automatic prefix caching. Every prompt served is kept; a later request under the same
 *   `prompt_cache_key` reads the longest prefix it shares with one, rounded down to the model's step (128 tokens;
 *   GPT-5.5's breakpoints are 2,048 apart), and nothing under 1,024 tokens. No write cost. An entry lives, from its
 *   last use, for the retention's typical lifetime (5 minutes `in_memory`, 30 minutes `24h`) unless `lifetimeMs`
 *   says otherwise.
 * - GPT-5.6 and later: entries are written at the implicit breakpoint (the end of the latest eligible message) and the
 *   explicit ones, at most 4 a request, and billed 1.25 × input; a read is the highest live entry among the lookup
 *   boundaries (2 first and 50 latest explicit breakpoints; in implicit mode also the implicit one, 20 earlier
 *   eligible message ends and the end of the initial developer messages), exact, at 0.1 × input; 30 minutes.
 *
 * Rules and choices, with their sources, in docs/rules.md ("Prompt caches").
 */
export function openAiPromptCache(
  state: PromptCacheState,
  request: OpenAiCacheRequest,
  now: number,
): OpenAiCacheOutcome | OpenAiCacheRefusal {
  // A model that is no id is refused just below, with the field named.
  const rules = openAiCacheRules(typeof request.model === 'string' ? request.model : '');
  const fault = openAiRequestFault(request, rules.kind === 'intervals' ? rules.retentions : null);
  if (fault) return fault;
  const space = `openai\u0000${request.model}\u0000${request.promptCacheKey ?? ''}`;
  if (rules.kind === 'breakpoints') return breakpointCache(state, request, space, rules, now);
  const retention = request.retention ?? (rules.retentions[0] as 'in_memory' | '24h');
  const lifetimeMs = request.lifetimeMs ?? OPENAI_RETENTION_LIFETIME_MS[retention];
  const found = automaticPrefixCache(state, space, request.blocks, rules.minimumTokens, lifetimeMs, now);
  // "rounding down to the nearest multiple of 128"; "Only breakpoints at or beyond the minimum cacheable length".
  const stepped = Math.floor(found.matchedTokens / rules.intervalTokens) * rules.intervalTokens;
  const cached = stepped >= rules.minimumTokens ? stepped : 0;
  return outcome(
    found.promptTokens,
    cached,
    0,
    found.state,
    cached > 0 ? found.matchedPosition : null,
    rules,
  );
}

function breakpointCache(
  state: PromptCacheState,
  request: OpenAiCacheRequest,
  space: string,
  rules: Extract<OpenAiCacheRules, { kind: 'breakpoints' }>,
  now: number,
): OpenAiCacheOutcome {
  const { blocks } = request;
  const chain = prefixChain(
    space,
    blocks.map((block) => block.id),
  );
  const cumulative = new Array<number>(blocks.length);
  let total = 0;
  for (let position = 0; position < blocks.length; position++) {
    total += (blocks[position] as OpenAiCacheBlock).tokens;
    cumulative[position] = total;
  }
  const long = (position: number) => (cumulative[position] as number) >= rules.minimumTokens;
  const { lookups, writes } = boundaries(blocks, request.mode ?? 'implicit');
  const entries = liveEntries(state, now);
  let hit: number | null = null;
  for (const position of lookups)
    if (
      long(position) &&
      entries[prefixKey(chain, position)] !== undefined &&
      (hit === null || position > hit)
    )
      hit = position;
  const read = hit === null ? 0 : (cumulative[hit] as number);
  const lifetimeMs = request.lifetimeMs ?? rules.lifetimeMs;
  if (hit !== null) {
    const key = prefixKey(chain, hit);
    const held = entries[key] as PromptCacheEntry;
    useEntry(entries, key, held.tokens, held.lifetimeMs, now);
  }
  const eligible = writes.filter(long);
  // "Each request can create up to four cache writes": the model keeps the four furthest (a choice: the guide does
  // not say which).
  const written = eligible
    .filter((position) => hit === null || position > hit)
    .slice(-OPENAI_MAX_CACHE_WRITES);
  for (const position of eligible)
    if ((hit !== null && position <= hit) || written.includes(position))
      useEntry(entries, prefixKey(chain, position), cumulative[position] as number, lifetimeMs, now);
  const writeEnd = written.length === 0 ? read : (cumulative[written.at(-1) as number] as number);
  return outcome(total, read, writeEnd - read, { entries }, hit, rules);
}

/**
 * The lookup boundaries and the write breakpoints of a request of GPT-5.6 and later, ascending. Eligible message ends:
 * "user messages; the last tool response in a consecutive group of tool responses; the last developer message in the
 * initial consecutive group of developer messages"; the implicit breakpoint is the latest of them.
 */
function boundaries(
  blocks: readonly OpenAiCacheBlock[],
  mode: 'implicit' | 'explicit',
): { lookups: number[]; writes: number[] } {
  const explicit: number[] = [];
  const ends: Array<{ position: number; role: string }> = [];
  for (let position = 0; position < blocks.length; position++) {
    const block = blocks[position] as OpenAiCacheBlock;
    if (block.breakpoint) explicit.push(position);
    if (block.messageEnd !== undefined) ends.push({ position, role: block.messageEnd });
  }
  let developerEnd: number | null = null;
  for (const end of ends) {
    if (end.role !== 'developer') break;
    developerEnd = end.position;
  }
  const eligible = ends
    .filter(
      (end, index) =>
        end.role === 'user' ||
        (end.role === 'tool' && ends[index + 1]?.role !== 'tool') ||
        end.position === developerEnd,
    )
    .map((end) => end.position);
  const explicitLookups = [
    ...explicit.slice(0, OPENAI_LOOKUP.firstExplicit),
    ...explicit.slice(-OPENAI_LOOKUP.latestExplicit),
  ];
  if (mode === 'explicit') return { lookups: sorted(explicitLookups), writes: explicit };
  const implicit = eligible.at(-1);
  const lookups = [...explicitLookups, ...eligible.slice(-1 - OPENAI_LOOKUP.earlierMessageEnds)];
  if (developerEnd !== null) lookups.push(developerEnd);
  return {
    lookups: sorted(lookups),
    writes: implicit === undefined ? explicit : sorted([...explicit, implicit]),
  };
}

function sorted(positions: number[]): number[] {
  return [...new Set(positions)].sort((a, b) => a - b);
}

function outcome(
  promptTokens: number,
  cached: number,
  written: number,
  state: PromptCacheState,
  hitPosition: number | null,
  rules: OpenAiCacheRules,
): OpenAiCacheOutcome {
  return {
    ok: true,
    usage: {
      input_tokens: promptTokens,
      input_tokens_details: { cached_tokens: cached, cache_write_tokens: written },
    },
    tokens: { promptTokens, cacheReadTokens: cached, cacheWrite5mTokens: written, cacheWrite1hTokens: 0 },
    state,
    hitPosition,
    rules,
  };
}
