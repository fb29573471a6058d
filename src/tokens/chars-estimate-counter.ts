import type { TokenCounter } from './token-counter.js';

/**
 * The explicitly named fallback: one token per four characters, rounded up. It is fast and needs no
 * tokenizer, but errs by −41% on logs, −22% on JSON and +21% on prose (measured against o200k), so every
 * figure it produces says so: `estimate` is true and `name` is `chars/4-estimate`.
 *
 * @example
 * charsEstimateCounter.count('abcdefgh'); // 2
 */
export const charsEstimateCounter: TokenCounter = Object.freeze({
  name: 'chars/4-estimate',
  estimate: true,
  count(text: string): number {
    return Math.ceil(text.length / 4);
  },
});
