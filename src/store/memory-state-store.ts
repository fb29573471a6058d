import type { StateSnapshot } from './state-snapshot.js';
import type { StateStore } from './state-store.js';

export interface MemoryStateStoreOptions<T> {
  /** Values kept at most; creating one more is refused (`full`), never done by dropping one. @default 10000 */
  maxEntries?: number;
  /** Keeps the values across restarts: loaded by {@link MemoryStateStore.open}, written out as they change. */
  snapshot?: StateSnapshot<T>;
}

/** The default number of values a memory store keeps. */
export const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * The embedded default: values in this process's memory, optionally kept in a snapshot folder so that a restart
 * finds them again. Updates are atomic because they run to completion within one turn of the event loop.
 */
export class MemoryStateStore<T> implements StateStore<T> {
  readonly #values = new Map<string, T>();
  readonly #maxEntries: number;
  readonly #snapshot: StateSnapshot<T> | undefined;

  constructor(options: MemoryStateStoreOptions<T> = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#snapshot = options.snapshot;
  }

  /** A store filled with what its snapshot holds (none without one). */
  static async open<T>(options: MemoryStateStoreOptions<T> = {}): Promise<MemoryStateStore<T>> {
    const store = new MemoryStateStore(options);
    if (options.snapshot) {
      for (const [id, value] of await options.snapshot.load()) store.#values.set(id, value);
    }
    return store;
  }

  get maxEntries(): number {
    return this.#maxEntries;
  }

  async get(id: string): Promise<T | undefined> {
    return this.#values.get(id);
  }

  async values(): Promise<T[]> {
    return [...this.#values.values()];
  }

  async create(id: string, value: T): Promise<'created' | 'exists' | 'full'> {
    if (this.#values.has(id)) return 'exists';
    if (this.#values.size >= this.#maxEntries) return 'full';
    this.#values.set(id, value);
    this.#snapshot?.changed(id, value);
    return 'created';
  }

  /** Answers at once: the change runs to completion within this turn of the event loop, so no promise is needed. */
  update(id: string, change: (current: T) => T): T | undefined {
    const current = this.#values.get(id);
    if (current === undefined) return undefined;
    const next = change(current);
    this.#values.set(id, next);
    this.#snapshot?.changed(id, next);
    return next;
  }

  async delete(id: string): Promise<boolean> {
    const existed = this.#values.delete(id);
    if (existed) this.#snapshot?.removed(id);
    return existed;
  }

  async size(): Promise<number> {
    return this.#values.size;
  }

  async close(): Promise<void> {
    await this.#snapshot?.close();
  }
}
