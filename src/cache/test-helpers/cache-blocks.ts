import type { AnthropicCacheBlock, AnthropicCacheRequest } from '../anthropic-cache-request.js';
import type { AnthropicCacheOutcome } from '../anthropic-prompt-cache.js';

/** `count` blocks of `tokens` each, identities `<name>1` … `<name>N` (1-based, as the guide numbers its blocks). */
export function numberedBlocks(count: number, tokens: number, name = 'b'): AnthropicCacheBlock[] {
  return Array.from({ length: count }, (_, index) => ({ id: `${name}${index + 1}`, tokens }));
}

/** The same blocks with `cache_control` on the 1-based block numbers given. */
export function marked(
  blocks: readonly AnthropicCacheBlock[],
  marks: Readonly<Record<number, '5m' | '1h'>>,
): AnthropicCacheBlock[] {
  return blocks.map((block, index) => {
    const ttl = marks[index + 1];
    return ttl === undefined ? { id: block.id, tokens: block.tokens } : { ...block, cacheControl: ttl };
  });
}

/** A request of messages only. */
export function messagesRequest(
  messages: readonly AnthropicCacheBlock[],
  model = 'claude-sonnet-4-5',
): AnthropicCacheRequest {
  return { model, messages };
}

/** The outcome of a request the model accepted, or a failed expectation with the refusal. */
export function accepted<T extends { ok: boolean }>(
  result: T | { ok: false; message: string },
): Extract<T, { ok: true }> {
  if (!result.ok) throw new Error(`refused: ${(result as { message: string }).message}`);
  return result as Extract<T, { ok: true }>;
}

export type { AnthropicCacheOutcome };
