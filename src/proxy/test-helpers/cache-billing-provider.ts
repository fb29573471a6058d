import { createHash } from 'node:crypto';
import type { AnthropicCacheBlock, AnthropicCacheRequest } from '../../cache/anthropic-cache-request.js';
import { type AnthropicCacheOutcome, anthropicPromptCache } from '../../cache/anthropic-prompt-cache.js';
import { promptCacheCost } from '../../cache/prompt-cache-cost.js';
import { emptyPromptCacheState, type PromptCacheState } from '../../cache/prompt-cache-state.js';
import { findModel } from '../../models/find-model.js';
import type { TokenCounter } from '../../tokens/token-counter.js';

type Json = Record<string, unknown>;

/**
 * A block's JSON with its keys in order and `cache_control` left out: a marker is not content, and two bodies that
 * say the same thing in another key order are the same prompt.
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (key, inner) => {
    if (key === 'cache_control') return undefined;
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return inner;
    const sorted: Json = {};
    for (const name of Object.keys(inner as Json).sort()) sorted[name] = (inner as Json)[name];
    return sorted;
  });
}

function ttlOf(block: unknown): '5m' | '1h' | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const mark = (block as Json).cache_control as Json | undefined;
  if (typeof mark !== 'object' || mark === null) return undefined;
  return mark.ttl === '1h' ? '1h' : '5m';
}

/**
 * One block as the cache sees it: a hash of its canonical JSON, its tokens as barometer counts that JSON, its
 * breakpoint. Thinking blocks and empty text blocks cannot carry `cache_control` (the prompt caching guide).
 */
function cacheBlock(block: unknown, counter: TokenCounter, where: string): AnthropicCacheBlock {
  const text = canonicalJson(block);
  const kind = typeof block === 'object' && block !== null ? (block as Json).type : undefined;
  const cacheable = !(
    kind === 'thinking' ||
    kind === 'redacted_thinking' ||
    (kind === 'text' && (block as Json).text === '')
  );
  const ttl = ttlOf(block);
  return {
    id: createHash('sha256').update(where).update('\u0000').update(text).digest('hex'),
    tokens: counter.count(text),
    ...(ttl === undefined ? {} : { cacheControl: ttl }),
    ...(cacheable ? {} : { cacheable: false }),
  };
}

/**
 * A Messages body as Anthropic's cache reads it (the test's own conversion: it is the test's provider): every tool
 * definition, system block and message content block one position, in the order tools → system → messages; a
 * message's role is part of its blocks' identity; `thinking` and `tool_choice` are settings that invalidate the
 * messages' cache when they change ("What invalidates the cache").
 */
export function anthropicCacheRequestOf(body: Json, counter: TokenCounter): AnthropicCacheRequest {
  const tools = ((body.tools as unknown[] | undefined) ?? []).map((tool) =>
    cacheBlock(tool, counter, 'tool'),
  );
  const systemList =
    typeof body.system === 'string'
      ? [{ type: 'text', text: body.system }]
      : ((body.system as unknown[] | undefined) ?? []);
  const system = systemList.map((block) => cacheBlock(block, counter, 'system'));
  const messages: AnthropicCacheBlock[] = [];
  for (const message of (body.messages as Json[] | undefined) ?? []) {
    const role = String(message.role);
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of (content as unknown[]) ?? []) messages.push(cacheBlock(block, counter, role));
  }
  const settings = canonicalJson({ thinking: body.thinking ?? null, tool_choice: body.tool_choice ?? null });
  return { model: String(body.model), tools, system, messages, settings: { messages: settings } };
}

/** What the provider billed, summed over its calls (prompt tokens in their three parts). */
export interface CacheBill {
  calls: number;
  uncached: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
  usd: number;
}

/** One billed call: its cache outcome (usage, hit position, entries written). */
export interface BilledCall {
  at: number;
  outcome: AnthropicCacheOutcome;
}

export interface CacheBillingProvider {
  /** Bills one request arriving at `now` (epoch ms) with `output` output tokens: the usage to report. */
  bill(body: Json, now: number, output: number): Json;
  readonly total: CacheBill;
  readonly calls: readonly BilledCall[];
}

/**
 * A fake Anthropic provider's billing by the documented cache rules (`anthropicPromptCache`): its cache state kept
 * across calls, each call priced at the model's listed price (cache writes and reads by `promptCacheCost`).
 */
export function cacheBillingProvider(counter: TokenCounter): CacheBillingProvider {
  let state: PromptCacheState = emptyPromptCacheState();
  const total: CacheBill = { calls: 0, uncached: 0, cacheWrite: 0, cacheRead: 0, output: 0, usd: 0 };
  const calls: BilledCall[] = [];
  return {
    total,
    calls,
    bill(body, now, output) {
      const request = anthropicCacheRequestOf(body, counter);
      const outcome = anthropicPromptCache(state, request, now);
      if (!outcome.ok) throw new Error(`the provider refuses this request (a 400): ${outcome.message}`);
      state = outcome.state;
      calls.push({ at: now, outcome });
      const cost = promptCacheCost(
        outcome.tokens,
        { completionTokens: output },
        findModel(request.model)?.price,
        'anthropic',
        request.model,
      );
      if (!cost.known) throw new Error(`no price for ${request.model}: ${cost.detail}`);
      total.calls++;
      total.uncached += outcome.usage.input_tokens;
      total.cacheWrite += outcome.usage.cache_creation_input_tokens;
      total.cacheRead += outcome.usage.cache_read_input_tokens;
      total.output += output;
      total.usd += cost.usd;
      return { ...outcome.usage, output_tokens: output };
    },
  };
}
