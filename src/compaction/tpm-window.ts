import { z } from 'zod';
import { parseOrThrow } from './parse-or-throw.js';

/** Providers count tokens-per-minute quotas over the last 60 seconds. */
export const TPM_WINDOW_MS = 60_000;
/** Events kept before the oldest are merged, so a burst of tiny events cannot grow memory without bound. */
export const DEFAULT_TPM_MAX_EVENTS = 4096;

/** Tokens sent or received at one moment (milliseconds since the epoch). */
export const TokenEventSchema = z.strictObject({
  at: z.number().finite(),
  tokens: z.number().finite().min(0),
});
export type TokenEvent = z.infer<typeof TokenEventSchema>;

export const TpmWindowOptionsSchema = z.strictObject({
  /** Length of the window. @default 60000 */
  windowMs: z.number().int().positive().optional(),
  /** Events kept at most; beyond, the two oldest are merged. @default 4096 */
  maxEvents: z.number().int().min(2).optional(),
});
export type TpmWindowOptions = z.infer<typeof TpmWindowOptionsSchema>;

/**
 * Tokens in the window ending at `now`: events with `now − windowMs < at`. Events later than `now` count
 * too: a clock that lags the recorder must not hide usage the provider has already seen.
 */
export function tokensInWindow(events: readonly TokenEvent[], now: number, windowMs = TPM_WINDOW_MS): number {
  let sum = 0;
  const start = now - windowMs;
  for (const event of events) if (event.at > start) sum += event.tokens;
  return sum;
}

/**
 * A sliding tokens-per-minute window over timestamped events; time is always passed in.
 * Memory is bounded: past `maxEvents`, the two oldest events are merged into one at the later time, which can
 * only overstate usage (the merged tokens stay in the window a little longer), never understate it.
 * Events recorded out of order are placed at the latest time seen, for the same reason.
 *
 * @example
 * const window = new TpmWindow();
 * window.record(0, 120_000);
 * window.used(30_000); // 120000
 * window.used(60_000); // 0: the event left the window
 */
export class TpmWindow {
  readonly windowMs: number;
  readonly maxEvents: number;
  private times: number[] = [];
  private counts: number[] = [];
  private head = 0;
  private sum = 0;

  constructor(options: TpmWindowOptions = {}) {
    parseOrThrow(TpmWindowOptionsSchema, options, 'TPM window options');
    this.windowMs = options.windowMs ?? TPM_WINDOW_MS;
    this.maxEvents = options.maxEvents ?? DEFAULT_TPM_MAX_EVENTS;
  }

  /** Records `tokens` used at time `at`. */
  record(at: number, tokens: number): void {
    parseOrThrow(TokenEventSchema, { at, tokens }, 'token event');
    const last = this.times[this.times.length - 1];
    this.times.push(last !== undefined && last > at ? last : at);
    this.counts.push(tokens);
    this.sum += tokens;
    if (this.times.length - this.head > this.maxEvents) {
      this.counts[this.head + 1] = (this.counts[this.head + 1] ?? 0) + (this.counts[this.head] ?? 0);
      this.head += 1;
    }
    this.compactStorage();
  }

  /** Tokens used in the window ending at `now`. */
  used(now: number): number {
    const start = now - this.windowMs;
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= start) {
      this.sum -= this.counts[this.head] ?? 0;
      this.head += 1;
    }
    this.compactStorage();
    // Subtraction of many floats can leave a hair below zero; an empty window is exactly zero.
    if (this.head === this.times.length) this.sum = 0;
    return this.sum;
  }

  /** Tokens still allowed by a `limit` per window at `now` (negative when already over). */
  left(now: number, limit: number): number {
    return limit - this.used(now);
  }

  /** The events in the window ending at `now`, oldest first (merged events appear as one). */
  events(now: number): TokenEvent[] {
    this.used(now);
    const events: TokenEvent[] = [];
    for (let index = this.head; index < this.times.length; index += 1) {
      events.push({ at: this.times[index] ?? 0, tokens: this.counts[index] ?? 0 });
    }
    return events;
  }

  private compactStorage(): void {
    // Dropping the consumed prefix only when it is at least half the arrays keeps record() O(1) amortized.
    if (this.head > 0 && this.head * 2 >= this.times.length) {
      this.times = this.times.slice(this.head);
      this.counts = this.counts.slice(this.head);
      this.head = 0;
    }
  }
}
