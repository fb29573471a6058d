import type { Redis } from 'ioredis';

/** One notice of a kind per subject (a pool) per interval: a refused agent retrying must not flood receivers. */
export const DEFAULT_NOTICE_INTERVAL_MS = 60_000;

/**
 * Lets one notice per key through per interval, over the whole service: in this process by default, and with
 * Redis across every instance on it (`SET NX PX`), so that two instances refusing the same pool send one event.
 */
export class NoticeGate {
  readonly #redis: Redis | undefined;
  readonly #prefix: string;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #last = new Map<string, number>();

  constructor(options: { redis?: Redis; prefix?: string; intervalMs?: number; now?: () => number } = {}) {
    this.#redis = options.redis;
    this.#prefix = `${options.prefix ?? 'barometer:'}notice:`;
    this.#intervalMs = options.intervalMs ?? DEFAULT_NOTICE_INTERVAL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** True when a notice for `key` may be sent now (and no other may for the interval). */
  async admit(key: string): Promise<boolean> {
    if (this.#redis) {
      return (await this.#redis.set(`${this.#prefix}${key}`, '1', 'PX', this.#intervalMs, 'NX')) === 'OK';
    }
    const now = this.#now();
    const last = this.#last.get(key);
    if (last !== undefined && now - last < this.#intervalMs) return false;
    this.#last.set(key, now);
    if (this.#last.size > 10_000) this.#last.delete(this.#last.keys().next().value as string);
    return true;
  }
}
