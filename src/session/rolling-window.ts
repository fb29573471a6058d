/**
 * Tokens over a sliding time window, kept in fixed time buckets (a ring of `buckets` counts, each
 * `windowMs / buckets` wide), so that a session costs the same memory after ten calls or ten million and old
 * tokens always expire. The window is measured to one bucket's resolution: with 60 buckets a minute is
 * measured to the second. Float32 counts are exact up to 16,777,216 tokens per bucket.
 */
export class RollingWindow {
  readonly windowMs: number;
  readonly bucketMs: number;
  readonly #counts: Float32Array;
  /** Index (time / bucketMs) of the newest bucket written; -Infinity before the first. */
  #latest = Number.NEGATIVE_INFINITY;

  /**
   * @param windowMs how far back the window reaches.
   * @param buckets how many buckets it is divided into. @default 60
   */
  constructor(windowMs: number, buckets = 60) {
    this.windowMs = windowMs;
    this.bucketMs = windowMs / buckets;
    this.#counts = new Float32Array(buckets);
  }

  /**
   * Adds `tokens` at time `at` (epoch ms). A time older than the newest bucket still counts in its own bucket
   * while that bucket is inside the window; older than the window, it is dropped (it could not count anyway).
   */
  add(at: number, tokens: number): void {
    const index = Math.floor(at / this.bucketMs);
    this.#advance(index);
    if (index <= this.#latest - this.#counts.length) return;
    const slot = this.#slot(index);
    this.#counts[slot] = this.#counts[slot]! + tokens;
  }

  /** Tokens in the window that ends at `now`. */
  sum(now: number): number {
    let total = 0;
    this.#each(now, (_index, tokens) => {
      total += tokens;
    });
    return total;
  }

  /** The non-empty buckets in the window that ends at `now`, oldest first, each stamped with its start time. */
  entries(now: number): Array<{ at: number; tokens: number }> {
    const result: Array<{ at: number; tokens: number }> = [];
    this.#each(now, (index, tokens) => {
      if (tokens > 0) result.push({ at: index * this.bucketMs, tokens });
    });
    return result;
  }

  /** Moves the newest bucket forward to `index`, clearing the buckets it passes (they held older tokens). */
  #advance(index: number): void {
    if (index <= this.#latest) return;
    const size = this.#counts.length;
    if (index - this.#latest >= size) this.#counts.fill(0);
    else for (let next = this.#latest + 1; next <= index; next++) this.#counts[this.#slot(next)] = 0;
    this.#latest = index;
  }

  #each(now: number, visit: (index: number, tokens: number) => void): void {
    const size = this.#counts.length;
    const nowIndex = Math.floor(now / this.bucketMs);
    // Buckets newer than `now` (a clock behind the data) count as current rather than vanish.
    const newest = Math.min(this.#latest, Math.max(nowIndex, this.#latest));
    const oldest = Math.max(this.#latest - size + 1, nowIndex - size + 1);
    for (let index = oldest; index <= newest; index++) visit(index, this.#counts[this.#slot(index)]!);
  }

  /** The ring position of a bucket index; indices before the epoch are negative. */
  #slot(index: number): number {
    const size = this.#counts.length;
    return ((index % size) + size) % size;
  }
}
