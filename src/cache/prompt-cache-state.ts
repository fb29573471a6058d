import * as z from 'zod';

/**
 * One entry of a provider's prompt cache: the prefix it holds (its identity is the key of the state's record), how
 * many prompt tokens that prefix is, how long the entry lives after its last use, and when it expires unless used.
 */
export const PromptCacheEntrySchema = z.strictObject({
  /** Prompt tokens of the prefix, from the request's first token to the end of the block the entry ends at. */
  tokens: z.int().min(0),
  /** The entry's lifetime: each use (a write or a read) extends it to the use's time plus this. */
  lifetimeMs: z.int().min(1),
  /** Epoch ms from which the entry is gone: alive while `now < expiresAt`. */
  expiresAt: z.number(),
});
export type PromptCacheEntry = z.infer<typeof PromptCacheEntrySchema>;

/**
 * What one provider cache holds, as plain JSON: entries by prefix identity (`prefixKey`), every space (provider,
 * model, routing key) in one record since each identity starts from its space's root. A request at `now` answers a
 * new state; the old one is never changed.
 */
export const PromptCacheStateSchema = z.strictObject({
  entries: z.record(z.string().min(1), PromptCacheEntrySchema),
});
export type PromptCacheState = z.infer<typeof PromptCacheStateSchema>;

/** A cache that holds nothing: the state before a session's first request. */
export function emptyPromptCacheState(): PromptCacheState {
  return { entries: {} };
}

/**
 * The entries still alive at `now`, as a new record the caller may change (the state's own is never changed). An
 * entry is alive while `now < expiresAt`: Anthropic's lifetime "is measured from the start of the request that writes
 * or reads the cache entry", so a request that starts exactly one lifetime after the last use finds it gone.
 */
export function liveEntries(state: PromptCacheState, now: number): Record<string, PromptCacheEntry> {
  const live: Record<string, PromptCacheEntry> = {};
  for (const key in state.entries) {
    const entry = state.entries[key] as PromptCacheEntry;
    if (now < entry.expiresAt) live[key] = entry;
  }
  return live;
}

/**
 * Uses an entry at `now` (a read, or a write of a prefix already held): it lives on for the longer of its own lifetime
 * and `lifetimeMs` from now. Writes the entry when absent.
 */
export function useEntry(
  entries: Record<string, PromptCacheEntry>,
  key: string,
  tokens: number,
  lifetimeMs: number,
  now: number,
): void {
  const held = entries[key];
  const lifetime = Math.max(held?.lifetimeMs ?? 0, lifetimeMs);
  entries[key] = { tokens, lifetimeMs: lifetime, expiresAt: Math.max(held?.expiresAt ?? 0, now + lifetime) };
}
