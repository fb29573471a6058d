import type { AnthropicCacheRequest } from '../cache/anthropic-cache-request.js';
import { anthropicPromptCache } from '../cache/anthropic-prompt-cache.js';
import type { OpenAiCacheRequest } from '../cache/openai-cache-request.js';
import { openAiPromptCache } from '../cache/openai-prompt-cache.js';
import { emptyPromptCacheState, type PromptCacheState } from '../cache/prompt-cache-state.js';
import type { PromptCacheTokens } from '../cache/prompt-cache-tokens.js';
import type { ReceiptInput } from '../session/proxy-receipt.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { normalizeUsage } from '../usage/normalize-usage.js';
import type { AvailableUsage } from '../usage/usage-record.js';
import { BlockDescriber, type CacheRequests, cacheRequestsOf } from './cache-request-of.js';
import type { CarriedEdits, ProxySession } from './proxy-session.js';
import type { WireFormat } from './session-key.js';
import type { EditedBlock } from './wire-history.js';

type Json = Record<string, unknown>;

/** The two caches the receipts follow for one session: the stream as the agent sent it, and as barometer sent it. */
interface Streams {
  unedited: PromptCacheState;
  sent: PromptCacheState;
}

export interface ProxyReceiptsOptions {
  monitor: Pick<SessionMonitor, 'recordReceipt'>;
  counter: TokenCounter;
  now: () => number;
  onFailure: (error: unknown) => void;
}

/** What the cache model said of one request: tokens, and the state after it; null when it could not read it. */
type Modelled = { tokens: PromptCacheTokens; state: PromptCacheState } | null;

function modelled(requests: CacheRequests, which: 'unedited' | 'sent', state: PromptCacheState, now: number) {
  const outcome =
    requests.provider === 'anthropic'
      ? anthropicPromptCache(state, requests[which] as AnthropicCacheRequest, now)
      : openAiPromptCache(state, requests[which] as OpenAiCacheRequest, now);
  return outcome.ok ? { tokens: outcome.tokens, state: outcome.state } : null;
}

/** The provider's usage in the cache models' terms. */
function reportedTokens(usage: AvailableUsage): PromptCacheTokens {
  const oneHour = Math.min(usage.cachedWrite1hTokens ?? 0, usage.cachedWriteTokens);
  return {
    promptTokens: usage.promptTokens,
    cacheReadTokens: usage.cachedReadTokens,
    cacheWrite1hTokens: oneHour,
    cacheWrite5mTokens: usage.cachedWriteTokens - oneHour,
  };
}

/**
 * The receipt of every request the proxy forwards acting (docs/rules.md, "Proxy receipts"). Per session it follows
 * two caches with the provider's cache model: the one the requests as the agent sent them would have made, and the one
 * the requests barometer sent made. Each answered request is priced against both, and the receipt (with the
 * provider's usage) goes to the monitor's session. A request the model cannot read, or an answer without usage, gets
 * no receipt and moves neither cache.
 */
export class ProxyReceipts {
  readonly #options: ProxyReceiptsOptions;
  readonly #describer: BlockDescriber;
  readonly #streams = new WeakMap<ProxySession, Streams>();

  constructor(options: ProxyReceiptsOptions) {
    this.#options = options;
    this.#describer = new BlockDescriber(options.counter);
  }

  /**
   * The request in its provider's cache model terms, as the agent sent it (`body`, parsed, before the session's edits
   * are written into it) and as it went upstream: `blocks` are the session's edits it carried (none for an observed
   * session), `carried` where the proxy's breakpoint went. Read while the request is with the provider, so that its
   * record does not wait for it. Null when the request cannot be modelled; never throws (a failure is reported).
   */
  describe(
    format: WireFormat,
    body: Json,
    blocks: readonly EditedBlock[],
    carried?: CarriedEdits,
  ): CacheRequests | null {
    try {
      const edited = new Map<object, Json>();
      const breakpoint = carried?.breakpoint ?? null;
      const mark = carried?.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
      // The proxy's own breakpoint went out on this block (outgoing-request.ts): the sent stream holds it.
      for (const { block, edited: copy, key } of blocks)
        edited.set(block, key !== undefined && key === breakpoint ? { ...copy, cache_control: mark } : copy);
      const requests = cacheRequestsOf(format, body, edited, this.#describer);
      // Nothing edited: the request that went is the agent's (`measure` then models it once).
      return requests && edited.size === 0
        ? ({ ...requests, sent: requests.unedited } as CacheRequests)
        : requests;
    } catch (error) {
      this.#options.onFailure(error);
      return null;
    }
  }

  /**
   * The receipt of an answered request (`requests`: its {@link describe}), `text` the provider's answer. Null when the
   * answer has no usage or the request could not be modelled; never throws (a failure is reported and gives null).
   * Called in the order of the answers: the session's modelled caches move on with each.
   */
  measure(
    entry: ProxySession,
    format: WireFormat,
    requests: CacheRequests | null,
    text: string,
  ): ReceiptInput | null {
    try {
      return requests ? this.#measure(entry, format, requests, text) : null;
    } catch (error) {
      this.#options.onFailure(error);
      return null;
    }
  }

  /** Writes a measured receipt into the monitor's session. Never rejects. */
  save(entry: ProxySession, receipt: ReceiptInput): Promise<void> {
    return this.#options.monitor.recordReceipt(entry.id, receipt).then(
      () => undefined,
      (error: unknown) => this.#options.onFailure(error),
    );
  }

  #measure(
    entry: ProxySession,
    format: WireFormat,
    requests: CacheRequests,
    text: string,
  ): ReceiptInput | null {
    const usage = normalizeUsage(format, text);
    if (!usage.available) return null;
    const empty = emptyPromptCacheState();
    // One state for both until they part: then an unedited request is modelled once.
    const streams = this.#streams.get(entry) ?? { unedited: empty, sent: empty };
    const now = this.#options.now();
    const unedited: Modelled = modelled(requests, 'unedited', streams.unedited, now);
    // Nothing edited: the sent request is the agent's, and so is its cache when both streams were alike so far.
    const sent: Modelled =
      requests.sent === requests.unedited && streams.sent === streams.unedited
        ? unedited
        : modelled(requests, 'sent', streams.sent, now);
    if (!unedited || !sent) return null;
    this.#streams.set(entry, { unedited: unedited.state, sent: sent.state });
    return {
      provider: requests.provider,
      model: usage.model ?? requests.unedited.model,
      wouldHave: unedited.tokens,
      predicted: sent.tokens,
      reported: reportedTokens(usage),
      completionTokens: usage.completionTokens,
      reasoningTokens: usage.reasoningTokens,
    };
  }
}
