import type { AnthropicCacheTtl } from '../cache/anthropic-cache-rules.js';
import type { PromptCacheProvider } from '../cache/prompt-cache-cost.js';
import type { PromptCacheTokens } from '../cache/prompt-cache-tokens.js';
import type { HistoryItem } from '../compaction/history-item.js';
import type { LogCall } from './log-history.js';
import { roleOf, type WhatIfBlock, WhatIfCacheStream } from './what-if-cache.js';

/**
 * The lifetime the agent's breakpoints take: the one its calls wrote most of (Claude Code writes 5-minute entries
 * unless the account has the 1-hour one); 5 minutes on a tie or with no writes.
 */
export function agentCacheTtl(calls: readonly Pick<LogCall, 'usage'>[]): AnthropicCacheTtl {
  let oneHour = 0;
  let fiveMinutes = 0;
  for (const call of calls) {
    oneHour += call.usage?.cacheWrite1hTokens ?? 0;
    fiveMinutes += call.usage?.cacheWrite5mTokens ?? 0;
  }
  return oneHour > fiveMinutes ? '1h' : '5m';
}

/** One request's content: the base (system prompt, tools) and the history with each item's tokens. */
export interface WhatIfRequestContent {
  model: string | undefined;
  baseTokens: number;
  items: readonly HistoryItem[];
  sizes: readonly number[];
}

/**
 * The two streams of requests the what-if prices, each through its own copy of the provider's cache: the one the
 * agent sent (unedited) and the one barometer would have sent, with the proxy's own breakpoint. A block's identity
 * is its item object, shared by both streams (an edited item is a new object, so a new identity): the same content
 * is the same block wherever it is sent.
 */
export class WhatIfRequests {
  readonly #unedited: WhatIfCacheStream;
  readonly #whatIf: WhatIfCacheStream;
  readonly #identity = new WeakMap<HistoryItem, string>();
  #nextIdentity = 0;
  /** The position of the last tombstone of the latest batch: the proxy's own breakpoint (Anthropic). */
  #breakpoint: number | null = null;
  /**
   * The latest batch's last tombstone, the proxy's breakpoint from the request after the one that carried the batch
   * first: that first request keeps the previous batch's breakpoint, where the provider holds an entry, as the proxy
   * does (`ProxySessions.breakpoint`).
   */
  #pendingBreakpoint: number | null = null;

  constructor(provider: PromptCacheProvider, ttl: AnthropicCacheTtl) {
    this.#unedited = new WhatIfCacheStream(provider, ttl);
    this.#whatIf = new WhatIfCacheStream(provider, ttl);
  }

  /** The proxy's breakpoint the next what-if request carries (null: none). */
  get breakpoint(): number | null {
    return this.#breakpoint;
  }

  /** The request the agent sent, through the unedited stream's cache. */
  sendUnedited(content: WhatIfRequestContent, time: number): PromptCacheTokens {
    return this.#unedited.send(this.#request(content, null), time);
  }

  /** The request barometer would have sent, with the proxy's breakpoint, through the what-if stream's cache. */
  sendWhatIf(content: WhatIfRequestContent, time: number): PromptCacheTokens {
    return this.#whatIf.send(this.#request(content, this.#breakpoint), time);
  }

  /** A batch's last tombstone, the proxy's breakpoint once the request carrying the batch first was sent. */
  placeBreakpoint(position: number): void {
    this.#pendingBreakpoint = position;
  }

  /** After a call: the breakpoint a batch placed before it becomes the proxy's. */
  advanceBreakpoint(): void {
    if (this.#pendingBreakpoint === null) return;
    this.#breakpoint = this.#pendingBreakpoint;
    this.#pendingBreakpoint = null;
  }

  /** A new history (a compaction, a recap): the proxy holds no breakpoint in it. */
  dropBreakpoints(): void {
    this.#breakpoint = null;
    this.#pendingBreakpoint = null;
  }

  #request(content: WhatIfRequestContent, proxyBreakpoint: number | null) {
    return {
      model: content.model ?? '',
      baseTokens: Math.max(0, Math.round(content.baseTokens)),
      blocks: this.#blocks(content.items, content.sizes),
      proxyBreakpoint,
    };
  }

  #identityOf(item: HistoryItem): string {
    let id = this.#identity.get(item);
    if (id === undefined) {
      id = `b${this.#nextIdentity++}`;
      this.#identity.set(item, id);
    }
    return id;
  }

  #blocks(items: readonly HistoryItem[], sizes: readonly number[]): WhatIfBlock[] {
    return items.map((item, position) => ({
      id: this.#identityOf(item),
      tokens: Math.max(0, Math.round(sizes[position] ?? 0)),
      cacheable: item.kind !== 'opaque',
      role: roleOf(item),
    }));
  }
}
