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
