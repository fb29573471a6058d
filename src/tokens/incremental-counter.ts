import { createHash } from 'node:crypto';
import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import {
  type ChatMessage,
  countMessage,
  DEFAULT_PER_MESSAGE_TOKENS,
  DEFAULT_REPLY_PRIMING_TOKENS,
  type MessageCount,
} from './count-messages.js';
import type { TokenCounter } from './token-counter.js';

/** How many distinct messages an {@link IncrementalCounter} remembers by default. */
export const DEFAULT_INCREMENTAL_MAX_ENTRIES = 10_000;

/** Options of {@link IncrementalCounter}; unknown keys are rejected. */
export const IncrementalCounterOptionsSchema = z.strictObject({
  /** Distinct messages remembered; the least recently used is forgotten beyond it. @default 10000 */
  maxEntries: z.number().int().min(1).optional(),
  /** Framing tokens per message. @default 3 */
  perMessageTokens: z.number().int().min(0).optional(),
  /** Reply-priming tokens, once per count. @default 3 */
  replyPrimingTokens: z.number().int().min(0).optional(),
});
export type IncrementalCounterOptions = z.infer<typeof IncrementalCounterOptionsSchema>;

/** A history's count, and what it cost. */
export interface IncrementalCount {
  /** Tokens of the whole history, equal to `countMessages` of the same messages. */
  tokens: number;
  /** Messages tokenized by this call (not seen before, or forgotten). */
  added: number;
  /** Messages whose count came from the cache. */
  reused: number;
  /** Tokens of the messages tokenized by this call: what this turn cost to count. */
  addedTokens: number;
  /** Parts a text tokenizer cannot count (images, audio, files). */
  uncounted: number;
  counter: string;
  estimate: boolean;
}

// Everything countMessage reads, so that two messages with the same key always count the same.
function messageKey(message: ChatMessage): string {
  const counted = [message.role, message.name ?? null, message.content ?? null, message.tool_calls ?? null];
  return createHash('sha1').update(JSON.stringify(counted)).digest('base64');
}

/**
 * Counts a growing message history so that each turn costs what it adds, not the whole history again:
 * a message is tokenized once and remembered by a hash of what is counted (role, name, content, tool calls).
 * The cache is an LRU bounded by `maxEntries`, so memory stays bounded however long the session.
 *
 * @example
 * const incremental = new IncrementalCounter(createTokenCounter());
 * incremental.count(history);            // tokenizes every message
 * incremental.count([...history, reply]); // tokenizes only `reply`
 */
export class IncrementalCounter {
  readonly counter: TokenCounter;
  private readonly maxEntries: number;
  private readonly perMessageTokens: number;
  private readonly replyPrimingTokens: number;
  private readonly cache = new Map<string, { count: MessageCount; usedAt: number }>();
  private generation = 0;
  /**
   * The key of each message object already seen, with the fields it was computed from. A history is resent
   * with the same message objects every turn; hashing all of them again would cost more than counting the
   * new one, so an unchanged object (same role, name, content and tool calls, compared by reference) reuses
   * its key. A field reassigned on the object is seen and rehashed; content-part arrays are expected not to
   * be mutated in place (chat SDKs treat messages as immutable).
   */
  private seen = new WeakMap<
    object,
    { role: unknown; name: unknown; content: unknown; toolCalls: unknown; key: string }
  >();

  /** @throws BarometerValidationError when the options are invalid */
  constructor(counter: TokenCounter, options: IncrementalCounterOptions = {}) {
    const parsed = parseWith(IncrementalCounterOptionsSchema, options);
    if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'incremental counter options');
    this.counter = counter;
    this.maxEntries = parsed.value.maxEntries ?? DEFAULT_INCREMENTAL_MAX_ENTRIES;
    this.perMessageTokens = parsed.value.perMessageTokens ?? DEFAULT_PER_MESSAGE_TOKENS;
    this.replyPrimingTokens = parsed.value.replyPrimingTokens ?? DEFAULT_REPLY_PRIMING_TOKENS;
  }

  /** Distinct messages currently remembered. */
  get size(): number {
    return this.cache.size;
  }

  /** Counts the history, tokenizing only the messages not already remembered. */
  count(messages: readonly ChatMessage[]): IncrementalCount {
    const result: IncrementalCount = {
      tokens: this.replyPrimingTokens,
      added: 0,
      reused: 0,
      addedTokens: 0,
      uncounted: 0,
      counter: this.counter.name,
      estimate: this.counter.estimate,
    };
    const generation = ++this.generation;
    for (const message of messages) {
      const key = this.keyOf(message);
      let entry = this.cache.get(key);
      if (entry) {
        // Marking use with a number, not by re-inserting into the Map, keeps a reused message at two look-ups.
        entry.usedAt = generation;
        result.reused += 1;
      } else {
        entry = { count: countMessage(message, this.counter, this.perMessageTokens), usedAt: generation };
        this.cache.set(key, entry);
        result.added += 1;
        result.addedTokens += entry.count.tokens;
        if (this.cache.size > this.maxEntries) this.evictLeastRecentlyUsed();
      }
      result.tokens += entry.count.tokens;
      result.uncounted += entry.count.uncounted;
    }
    return result;
  }

  /** Forgets every remembered message. */
  clear(): void {
    this.cache.clear();
    this.seen = new WeakMap();
  }

  /** Drops the least recently used tenth of the cache (at least one entry), so that eviction is rare. */
  private evictLeastRecentlyUsed(): void {
    const entries = [...this.cache.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt);
    const drop = Math.max(1, Math.floor(this.maxEntries / 10), this.cache.size - this.maxEntries);
    for (let index = 0; index < drop && index < entries.length; index++)
      this.cache.delete(entries[index]![0]);
  }

  private keyOf(message: ChatMessage): string {
    const memo = this.seen.get(message);
    if (
      memo &&
      memo.role === message.role &&
      memo.name === message.name &&
      memo.content === message.content &&
      memo.toolCalls === message.tool_calls
    ) {
      return memo.key;
    }
    const key = messageKey(message);
    this.seen.set(message, {
      role: message.role,
      name: message.name,
      content: message.content,
      toolCalls: message.tool_calls,
      key,
    });
    return key;
  }
}
