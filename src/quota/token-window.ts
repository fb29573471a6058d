import * as z from 'zod';

/**
 * Tokens over a sliding time window, as plain data: a ring of `buckets` counts, each `windowMs / buckets`
 * wide, and the index (time / bucket width) of the newest bucket written. It costs the same after ten calls or
 * ten million, old tokens always expire, and it is JSON, so a session holding it can live in any store. The
 * one window behind the burn rate, the quota window and the survival trigger; measured to one bucket's width.
 */
export const TokenWindowSchema = z.strictObject({
  /** Index of the newest bucket written; null before the first. */
  latest: z.number().int().nullable(),
  counts: z
    .custom<number[]>(isCounts, { error: 'expected an array of at least one finite number ≥ 0' })
    .meta({ type: 'array', items: { type: 'number', minimum: 0 }, minItems: 1 }),
});

/**
 * A window's counts, checked in one pass: as `z.array(z.number().min(0)).min(1)` would, without its result object
 * per element (a session holds five windows of 30 buckets: checked element by element they were ~37 KB of garbage
 * and ~160 µs of the ~255 µs a stored session's check took, which a restart with 100,000 sessions pays 100,000 times).
 */
function isCounts(value: unknown): value is number[] {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const count of value)
    if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) return false;
  return true;
}
export type TokenWindow = z.infer<typeof TokenWindowSchema>;

/** A window's shape: how far back it reaches and into how many buckets it is cut. */
export interface TokenWindowSpec {
  windowMs: number;
  buckets: number;
}

/** Providers count tokens-per-minute quotas over the last 60 seconds. */
export const TPM_WINDOW_MS = 60_000;

export function emptyTokenWindow(spec: TokenWindowSpec): TokenWindow {
  // Not `new Array(n).fill(0)`: that array stays "holey" in V8, whose JSON.stringify then takes its slow path for
  // it (a session's state, with five windows, was written ~24 % slower on every save). Nor pushed: that leaves
  // room for 43 where 30 are kept. Array.from with a function makes a packed array of exactly `n`.
  return { latest: null, counts: Array.from({ length: spec.buckets }, () => 0) };
}

function slotOf(index: number, size: number): number {
  return ((index % size) + size) % size;
}

/**
 * A new window with `tokens` added at `at` (epoch ms); the given one is untouched. A time older than the newest
 * bucket still counts in its own bucket while that bucket is inside the window; older than the window it is
 * dropped (it could not count anyway).
 */
export function addTokens(
  window: TokenWindow,
  spec: TokenWindowSpec,
  at: number,
  tokens: number,
): TokenWindow {
  const bucketMs = spec.windowMs / spec.buckets;
  const index = Math.floor(at / bucketMs);
  // A copy of 30 numbers (slice keeps the array packed): the state a session hands to its listeners never
  // changes afterwards (decision 021).
  const counts = window.counts.slice();
  const size = counts.length;
  let latest = window.latest;
  if (latest === null || index > latest) {
    if (latest === null || index - latest >= size) counts.fill(0);
    else for (let next = latest + 1; next <= index; next++) counts[slotOf(next, size)] = 0;
    latest = index;
  }
  if (index > latest - size) {
    const slot = slotOf(index, size);
    counts[slot] = counts[slot]! + tokens;
  }
  return { latest, counts };
}

/** Tokens in the window that ends at `now`. Buckets newer than `now` (a clock behind the data) still count. */
export function windowTokens(window: TokenWindow, spec: TokenWindowSpec, now: number): number {
  const latest = window.latest;
  if (latest === null) return 0;
  const counts = window.counts;
  const size = counts.length;
  const nowIndex = Math.floor(now / (spec.windowMs / spec.buckets));
  const oldest = Math.max(latest - size + 1, nowIndex - size + 1);
  // One division for the first bucket, then the ring is walked slot by slot (a session reads its windows
  // several times an update).
  let slot = slotOf(oldest, size);
  let total = 0;
  for (let left = latest - oldest; left >= 0; left--) {
    total += counts[slot]!;
    if (++slot === size) slot = 0;
  }
  return total;
}

/** The non-empty buckets of the window that ends at `now`, oldest first, each stamped with its start time. */
export function windowEntries(
  window: TokenWindow,
  spec: TokenWindowSpec,
  now: number,
): Array<{ at: number; tokens: number }> {
  if (window.latest === null) return [];
  const size = window.counts.length;
  const bucketMs = spec.windowMs / spec.buckets;
  const nowIndex = Math.floor(now / bucketMs);
  const oldest = Math.max(window.latest - size + 1, nowIndex - size + 1);
  const entries: Array<{ at: number; tokens: number }> = [];
  for (let index = oldest; index <= window.latest; index++) {
    const tokens = window.counts[slotOf(index, size)]!;
    if (tokens > 0) entries.push({ at: index * bucketMs, tokens });
  }
  return entries;
}

/**
 * When the window, with nothing added, holds at most `maxTokens`: the end (epoch ms) of the oldest non-empty
 * bucket whose expiry brings it there, `now` when it already does, or null when it never will (`maxTokens` < 0).
 * What {@link windowEntries} would give, walked without building the entries (a session asks on every update).
 */
export function windowExpiryAtMost(
  window: TokenWindow,
  spec: TokenWindowSpec,
  now: number,
  maxTokens: number,
  /** The window's {@link windowTokens} at `now`, when the caller has it already. */
  used: number = windowTokens(window, spec, now),
): number | null {
  if (used <= maxTokens) return now;
  const latest = window.latest;
  if (latest === null) return null;
  const counts = window.counts;
  const size = counts.length;
  const bucketMs = spec.windowMs / spec.buckets;
  const oldest = Math.max(latest - size + 1, Math.floor(now / bucketMs) - size + 1);
  let slot = slotOf(oldest, size);
  for (let index = oldest; index <= latest; index++) {
    const tokens = counts[slot]!;
    if (++slot === size) slot = 0;
    if (tokens <= 0) continue;
    used -= tokens;
    if (used <= maxTokens) return index * bucketMs + spec.windowMs;
  }
  return null;
}

/** Tokens used per request, timestamped: the triggers' input when a caller keeps its own events. */
export const TokenEventSchema = z.strictObject({
  at: z.number().finite(),
  tokens: z.number().finite().min(0),
});
export type TokenEvent = z.infer<typeof TokenEventSchema>;

/** Tokens of `events` in the window ending at `now` (`now − windowMs < at`); later events count too. */
export function tokensInWindow(events: readonly TokenEvent[], now: number, windowMs = TPM_WINDOW_MS): number {
  let sum = 0;
  const start = now - windowMs;
  for (const event of events) if (event.at > start) sum += event.tokens;
  return sum;
}
