import { anthropicPromptCache } from '../../cache/anthropic-prompt-cache.js';
import { promptCacheCost } from '../../cache/prompt-cache-cost.js';
import { emptyPromptCacheState, type PromptCacheState } from '../../cache/prompt-cache-state.js';
import { findModel } from '../../models/find-model.js';
import type { ServedResponse } from '../../test-helpers/cassette-server.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { BlockDescriber, cacheRequestsOf } from '../cache-request-of.js';

type Json = Record<string, unknown>;

/** What the fake provider billed, summed over its calls. */
export interface CacheBill {
  calls: number;
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  usd: number;
}

/**
 * A fake Anthropic provider whose cache is `src/cache`'s model of Anthropic's (entries at the body's own
 * `cache_control` breakpoints, reads within 20 blocks of one, 5-minute and 1-hour lifetimes) and whose tokens are
 * barometer's counter's: each tool, system block and message content block is one block, identified and sized as
 * the proxy's receipts do it (`cacheRequestsOf`). It bills every call at the model's list price, and answers with
 * the usage Anthropic would report.
 */
export class CacheModelProvider {
  state: PromptCacheState = emptyPromptCacheState();
  readonly bill: CacheBill = {
    calls: 0,
    promptTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    usd: 0,
  };
  readonly #describer: BlockDescriber;
  readonly #now: () => number;

  constructor(counter: TokenCounter, now: () => number = Date.now) {
    this.#describer = new BlockDescriber(counter);
    this.#now = now;
  }

  /** Bills one request (as received) and answers the usage Anthropic reports for it, `output` tokens generated. */
  usage(body: Json, output: number): Json {
    const requests = cacheRequestsOf('anthropic', body, new Map(), this.#describer);
    if (requests?.provider !== 'anthropic') throw new Error('not a Messages request');
    const outcome = anthropicPromptCache(this.state, requests.unedited, this.#now());
    if (!outcome.ok) throw new Error(`the fake provider refuses the request: ${outcome.message}`);
    this.state = outcome.state;
    const model = String(body.model);
    const cost = promptCacheCost(
      outcome.tokens,
      { completionTokens: output },
      findModel(model)?.price,
      'anthropic',
      model,
    );
    if (!cost.known) throw new Error(`no price for ${model}`);
    const { tokens } = outcome;
    this.bill.calls++;
    this.bill.promptTokens += tokens.promptTokens;
    this.bill.cacheReadTokens += tokens.cacheReadTokens;
    this.bill.cacheWriteTokens += tokens.cacheWrite5mTokens + tokens.cacheWrite1hTokens;
    this.bill.outputTokens += output;
    this.bill.usd += cost.usd;
    return { ...outcome.usage, output_tokens: output };
  }

  /** A whole (unstreamed) Messages answer saying "ok", with the usage of `body`. */
  answer(body: Json, output = 20): ServedResponse {
    const usage = this.usage(body, output);
    return {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: `msg_${this.bill.calls}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage,
      }),
    };
  }
}
