import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** The counter the discipline checks use when none is given: o200k_base, loaded on its first count. */
export const defaultTokenCounter: TokenCounter = createTokenCounter();

/**
 * Counts a text, or returns null when the counter throws or answers something that is not a count, so
 * that every budget check can fail closed on it.
 */
export function tryCount(counter: TokenCounter, text: string): number | null {
  try {
    const tokens = counter.count(text);
    return Number.isInteger(tokens) && tokens >= 0 ? tokens : null;
  } catch {
    return null;
  }
}
