/**
 * Timestamped token counts over a sliding time window, in a fixed ring of typed arrays, so that a session
 * costs the same memory after ten calls or ten million. When more calls than `capacity` fall inside the
 * window, the oldest are merged into their neighbour rather than dropped, so sums stay exact.
 */
export class RollingWindow {
  readonly windowMs: number;
  readonly #times: Float64Array;
  readonly #tokens: Float64Array;
  #start = 0;
  #size = 0;

  /**
   * @param windowMs how far back the window reaches.
   * @param capacity how many entries are kept at most. @default 32
   */
  constructor(windowMs: number, capacity = 32) {
    this.windowMs = windowMs;
    this.#times = new Float64Array(capacity);
    this.#tokens = new Float64Array(capacity);
  }

  /** Adds `tokens` at time `at` (epoch ms). Times must not go backwards; an earlier time counts as the latest. */
  add(at: number, tokens: number): void {
    const capacity = this.#times.length;
    const last =
      this.#size > 0 ? this.#times[(this.#start + this.#size - 1) % capacity]! : Number.NEGATIVE_INFINITY;
    const time = at < last ? last : at;
    if (this.#size === capacity) {
      // Merge the oldest entry into the next one: the sum is kept, only its time resolution is lost.
      const next = (this.#start + 1) % capacity;
      this.#tokens[next] = this.#tokens[next]! + this.#tokens[this.#start]!;
      this.#start = next;
      this.#size--;
    }
    const slot = (this.#start + this.#size) % capacity;
    this.#times[slot] = time;
    this.#tokens[slot] = tokens;
    this.#size++;
  }

  /** Tokens added within the window that ends at `now` (entries older than now − window are forgotten). */
  sum(now: number): number {
    const capacity = this.#times.length;
    const from = now - this.windowMs;
    while (this.#size > 0 && this.#times[this.#start]! <= from) {
      this.#start = (this.#start + 1) % capacity;
      this.#size--;
    }
    let total = 0;
    for (let index = 0; index < this.#size; index++) total += this.#tokens[(this.#start + index) % capacity]!;
    return total;
  }

  /** The entries inside the window, oldest first, for consumers that want the events themselves. */
  entries(now: number): Array<{ at: number; tokens: number }> {
    this.sum(now);
    const capacity = this.#times.length;
    const result: Array<{ at: number; tokens: number }> = [];
    for (let index = 0; index < this.#size; index++) {
      const slot = (this.#start + index) % capacity;
      result.push({ at: this.#times[slot]!, tokens: this.#tokens[slot]! });
    }
    return result;
  }
}
