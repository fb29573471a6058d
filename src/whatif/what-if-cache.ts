import type { AnthropicCacheBlock } from '../cache/anthropic-cache-request.js';
import { ANTHROPIC_CACHE_MULTIPLIERS, type AnthropicCacheTtl } from '../cache/anthropic-cache-rules.js';
import { anthropicPromptCache } from '../cache/anthropic-prompt-cache.js';
import { geminiPromptCache } from '../cache/gemini-prompt-cache.js';
import type { OpenAiCacheBlock, OpenAiMessageRole } from '../cache/openai-cache-request.js';
import { OPENAI_BREAKPOINT_MULTIPLIERS, openAiCacheRules } from '../cache/openai-cache-rules.js';
import { openAiPromptCache } from '../cache/openai-prompt-cache.js';
import type { PromptCacheProvider } from '../cache/prompt-cache-cost.js';
import { emptyPromptCacheState, type PromptCacheState } from '../cache/prompt-cache-state.js';
import type { PromptCacheTokens } from '../cache/prompt-cache-tokens.js';
import type { HistoryItem } from '../compaction/history-item.js';
import type { ModelPrice } from '../models/model-price.js';
import type { UsageSource } from '../usage/usage-record.js';

/**
 * The provider cache a recorded call went through, by the agent and the model it names: Claude models through
 * Anthropic's, Gemini models through Gemini's implicit cache, every other model through OpenAI's automatic prefix cache
 * (Codex's GPT models; a model no provider documents a cache for, such as OpenHands' Llama through OpenRouter, is
 * priced by the same prefix rule: the what-if then only carries the difference the edits make, see docs/rules.md).
 */
export function cacheProviderOf(source: UsageSource, model: string | undefined): PromptCacheProvider {
  const id = (model ?? '').toLowerCase();
  if (id.includes('claude') || (id === '' && (source === 'claude-code' || source === 'anthropic')))
    return 'anthropic';
  if (id.includes('gemini')) return 'gemini';
  return 'openai';
}

/** One block of a what-if request: an identity (equal content, equal identity) and its calibrated tokens. */
export interface WhatIfBlock {
  id: string;
  tokens: number;
  /** False for a block `cache_control` cannot mark (thinking). */
  cacheable: boolean;
  /** The role of the message the block is part of, for OpenAI's message-end breakpoints. */
  role: OpenAiMessageRole;
}

/** A what-if request as a provider's cache reads it. */
export interface WhatIfRequest {
  model: string;
  /** The system prompt and tool definitions, in tokens (one block). */
  baseTokens: number;
  blocks: readonly WhatIfBlock[];
  /**
   * Anthropic: the proxy's own breakpoint, the position in `blocks` of the last tombstone of the latest batch
   * (agreement 2 of issue 38); null when there is none.
   */
  proxyBreakpoint: number | null;
}

/**
 * One stream of requests through one provider's prompt cache model (`src/cache/`), the state carried from request to
 * request. The agent's breakpoints are where Claude Code (2.1.328: two system blocks and the last message block) and
 * the pi coding agent (`packages/ai/src/providers/anthropic.ts`: the system prompt and the last block of the last user
 * message) put them; the proxy's breakpoint, where it adds one, takes the lifetime of the first agent breakpoint after
 * it (the last message block's).
 */
export class WhatIfCacheStream {
  #state: PromptCacheState = emptyPromptCacheState();

  constructor(
    readonly provider: PromptCacheProvider,
    /** The lifetime of the agent's breakpoints (Anthropic). */
    readonly ttl: AnthropicCacheTtl,
  ) {}

  /** Sends the request at `now` (epoch ms): its prompt tokens as the provider would bill them, the cache kept. */
  send(request: WhatIfRequest, now: number): PromptCacheTokens {
    const outcome =
      this.provider === 'anthropic'
        ? anthropicPromptCache(this.#state, anthropicRequest(request, this.ttl), now)
        : this.provider === 'gemini'
          ? geminiPromptCache(this.#state, { model: request.model, blocks: plainBlocks(request) }, now)
          : openAiPromptCache(this.#state, { model: request.model, blocks: openAiBlocks(request) }, now);
    if (!outcome.ok) throw new Error(`what-if cache request refused: ${outcome.message}`);
    this.#state = outcome.state;
    return outcome.tokens;
  }

  /** Forgets every entry (the agent's history was replaced: nothing of it is cached any more). */
  reset(): void {
    this.#state = emptyPromptCacheState();
  }
}

function anthropicRequest(request: WhatIfRequest, ttl: AnthropicCacheTtl) {
  // The system prompt as two blocks with a breakpoint each, as Claude Code sends it: the first is counted in the
  // second (the model caches the prefix at a breakpoint; the split inside the base changes no figure).
  const system: AnthropicCacheBlock[] = [
    { id: 'system-head', tokens: 0, cacheControl: ttl },
    { id: 'system', tokens: request.baseTokens, cacheControl: ttl },
  ];
  let last = request.blocks.length - 1;
  while (last >= 0 && request.blocks[last]?.cacheable === false) last--;
  const proxy = request.proxyBreakpoint;
  const messages: AnthropicCacheBlock[] = request.blocks.map((block, position) => ({
    id: block.id,
    tokens: block.tokens,
    cacheable: block.cacheable,
    ...(position === last || (position === proxy && block.cacheable) ? { cacheControl: ttl } : {}),
  }));
  return { model: request.model, system, messages };
}

function plainBlocks(request: WhatIfRequest) {
  return [
    { id: 'system', tokens: request.baseTokens },
    ...request.blocks.map(({ id, tokens }) => ({ id, tokens })),
  ];
}

function openAiBlocks(request: WhatIfRequest): OpenAiCacheBlock[] {
  return [
    { id: 'system', tokens: request.baseTokens, messageEnd: 'developer' },
    ...request.blocks.map(({ id, tokens, role }) => ({ id, tokens, messageEnd: role })),
  ];
}

/** The role of the message an item is part of, for OpenAI's message-end breakpoints. */
export function roleOf(item: HistoryItem): OpenAiMessageRole {
  switch (item.kind) {
    case 'tool-result':
      return 'tool';
    case 'user':
      return 'user';
    case 'system':
      return 'developer';
    case 'assistant':
    case 'tool-call':
      return 'assistant';
    default:
      return 'other';
  }
}

/**
 * What rewriting a cached token costs over reading it again, as multipliers of the input price: Anthropic writes at
 * 1.25 × (1-hour: 2 ×) and reads at 0.1 × ("Pricing", the prompt caching guide); OpenAI before GPT-5.6 has no write
 * cost, so a rewritten token is sent uncached (1 ×) against its cached price (the price table's, else 0.1 ×); GPT-5.6
 * and later write at 1.25 × and read at 0.1 ×; Gemini sends it uncached against a 0.1 × read. The price table's own
 * read price wins where it lists one (Claude Opus 5.5 reads at 0.05 ×).
 */
export function rewriteMultipliers(
  provider: PromptCacheProvider,
  model: string | undefined,
  ttl: AnthropicCacheTtl,
  price: ModelPrice | null | undefined,
): { write: number; read: number } {
  const listedRead =
    price && price.input > 0 && price.cacheRead !== undefined ? price.cacheRead / price.input : undefined;
  if (provider === 'anthropic')
    return {
      write: ttl === '1h' ? ANTHROPIC_CACHE_MULTIPLIERS.write1h : ANTHROPIC_CACHE_MULTIPLIERS.write5m,
      read: listedRead ?? ANTHROPIC_CACHE_MULTIPLIERS.read,
    };
  if (provider === 'openai' && openAiCacheRules(model ?? '').kind === 'breakpoints')
    return { ...OPENAI_BREAKPOINT_MULTIPLIERS, ...(listedRead === undefined ? {} : { read: listedRead }) };
  return { write: 1, read: listedRead ?? OPENAI_BREAKPOINT_MULTIPLIERS.read };
}
