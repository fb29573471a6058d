import * as z from 'zod';

/**
 * The one interface every token counter implements, so a caller can plug in another tokenizer.
 * `name` says which counter produced a figure (e.g. `o200k_base`, `cl100k_base`, `chars/4-estimate`).
 */
export interface TokenCounter {
  readonly name: string;
  /** Whether this counter is an estimate rather than a real tokenizer. */
  readonly estimate: boolean;
  count(text: string): number;
}

/** Accepts any object that implements {@link TokenCounter}, for options objects that take a counter. */
export const TokenCounterSchema = z.custom<TokenCounter>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as TokenCounter).name === 'string' &&
    typeof (value as TokenCounter).estimate === 'boolean' &&
    typeof (value as TokenCounter).count === 'function',
  { message: 'must be a token counter ({ name, estimate, count(text) })' },
);
