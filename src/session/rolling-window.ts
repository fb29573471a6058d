/**
 * Timestamped token counts over a sliding time window, in one fixed ring (a single typed array of
 * time/tokens pairs), so that a session costs the same memory after ten calls or ten million. When more calls
 * than `capacity` fall inside the window, the oldest entry is merged into the next one rather than dropped:
 * sums stay exact, only the merged tokens' time moves later (a conservative error for a rate limit).
 */
export class RollingWindow {
  readonly windowMs: number;
  readonly #ring: Float64Array;
  #start = 0;
  #size = 0;

  /**
   * @param windowMs how far back the window reaches; shorter windows can be summed too.
   * @param capacity how many entries are kept at most. @default 24
   */
  constructor(windowMs: number, capacity = 24) {
    this.windowMs = windowMs;
    this.#ring = new Float64Array(capacity * 2);
  }

  get #capacity(): number {
    return this.#ring.length / 2;
  }

  #time(position: number): number {
    return this.#ring[((this.#start + position) % this.#capacity) * 2]!;
  }

  #tokens(position: number): number {
    return this.#ring[((this.#start + position) % this.#capacity) * 2 + 1]!;
  }

  /** Adds `tokens` at time `at` (epoch ms). Times must not go backwards; an earlier time counts as the latest. */
  add(at: number, tokens: number): void {
    const capacity = this.#capacity;
    const last = this.#size > 0 ? this.#time(this.#size - 1) : Number.NEGATIVE_INFINITY;
    const time = Math.max(at, last);
    if (this.#size === capacity) {
      const next = ((this.#start + 1) % capacity) * 2 + 1;
      this.#ring[next] = this.#ring[next]! + this.#tokens(0);
      this.#start = (this.#start + 1) % capacity;
      this.#size--;
    }
    const slot = ((this.#start + this.#size) % capacity) * 2;
    this.#ring[slot] = time;
    this.#ring[slot + 1] = tokens;
    this.#size++;
  }

  #expire(now: number): void {
    const capacity = this.#capacity;
    const from = now - this.windowMs;
    while (this.#size > 0 && this.#time(0) <= from) {
      this.#start = (this.#start + 1) % capacity;
      this.#size--;
    }
  }

  /** Tokens added within `windowMs` (at most the window's own) before `now`. */
  sum(now: number, windowMs: number = this.windowMs): number {
    this.#expire(now);
    const from = now - Math.min(windowMs, this.windowMs);
    let total = 0;
    for (let position = 0; position < this.#size; position++) {
      if (this.#time(position) > from) total += this.#tokens(position);
    }
    return total;
  }

  /** The entries within `windowMs` before `now`, oldest first, for consumers that want the events themselves. */
  entries(now: number, windowMs: number = this.windowMs): Array<{ at: number; tokens: number }> {
    this.#expire(now);
    const from = now - Math.min(windowMs, this.windowMs);
    const result: Array<{ at: number; tokens: number }> = [];
    for (let position = 0; position < this.#size; position++) {
      const at = this.#time(position);
      if (at > from) result.push({ at, tokens: this.#tokens(position) });
    }
    return result;
  }
}
