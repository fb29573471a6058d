import type { DataDirLock } from './data-dir-lock.js';
import type { StateSnapshot } from './state-snapshot.js';
import type { StatePage, StateStore } from './state-store.js';

export interface MemoryStateStoreOptions<T> {
  /** Values kept at most; creating one more is refused (`full`), never done by dropping one. @default 10000 */
  maxEntries?: number;
  /** Keeps the values across restarts: loaded by {@link MemoryStateStore.open}, written out as they change. */
  snapshot?: StateSnapshot<T>;
  /**
   * Load the snapshot's values after `open` returns instead of before: a service with 100,000 sessions on disk
   * listens at once (issue 29, F8). A value asked for before its turn (`get`, `update`, `create` of its id) is
   * loaded first; `values`, `page` and `ready` wait for the whole load. @default false
   */
  background?: boolean;
  /** Values read at once by the background load. @default 8 */
  loadConcurrency?: number;
  /** The data dir's lock (see `lockDataDir`), released when the store closes. */
  lock?: DataDirLock;
}

/** The default number of values a memory store keeps. */
export const DEFAULT_MAX_ENTRIES = 10_000;

/** Ids in code-unit order, as the pages of {@link MemoryStateStore.page} go. */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The embedded default: values in this process's memory, optionally kept in a snapshot folder so that a restart
 * finds them again. Updates are atomic because they run to completion within one turn of the event loop.
 */
export class MemoryStateStore<T> implements StateStore<T> {
  readonly #values = new Map<string, T>();
  readonly #maxEntries: number;
  readonly #snapshot: StateSnapshot<T> | undefined;
  readonly #lock: DataDirLock | undefined;
  /** Ids on disk not loaded yet (background load). */
  readonly #unloaded = new Set<string>();
  /** Loads in flight, by id. */
  readonly #loading = new Map<string, Promise<void>>();
  /** Every id, sorted, built when a page is first asked for and kept up to date by create and delete. */
  #sorted: string[] | undefined;
  #ready: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: MemoryStateStoreOptions<T> = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#snapshot = options.snapshot;
    this.#lock = options.lock;
  }

  /** A store filled with what its snapshot holds (none without one), now or in the background. */
  static async open<T>(options: MemoryStateStoreOptions<T> = {}): Promise<MemoryStateStore<T>> {
    const store = new MemoryStateStore(options);
    const snapshot = options.snapshot;
    if (!snapshot) return store;
    try {
      if (!options.background) {
        for (const [id, value] of await snapshot.load()) store.#values.set(id, value);
        return store;
      }
      for (const id of await snapshot.ids()) store.#unloaded.add(id);
    } catch (error) {
      options.lock?.release();
      throw error;
    }
    store.#ready = store.#loadAll(snapshot, options.loadConcurrency ?? 8);
    return store;
  }

  /** Settles once every value on disk is loaded (at once without a background load). */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Values on disk not loaded yet. */
  get unloaded(): number {
    return this.#unloaded.size;
  }

  async #loadAll(snapshot: StateSnapshot<T>, concurrency: number): Promise<void> {
    const queue = [...this.#unloaded];
    const worker = async () => {
      while (!this.#closed) {
        const id = queue.pop();
        if (id === undefined) return;
        await this.#load(snapshot, id);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** Loads one id's value from the snapshot if it is still on disk only; once, however many ask. */
  #load(snapshot: StateSnapshot<T>, id: string): Promise<void> {
    if (!this.#unloaded.has(id)) return Promise.resolve();
    let loading = this.#loading.get(id);
    if (!loading) {
      loading = snapshot.loadOne(id).then((value) => {
        this.#loading.delete(id);
        if (!this.#unloaded.delete(id)) return;
        if (value === undefined) {
          if (this.#sorted) this.#removeSorted(id);
        } else this.#values.set(id, value);
      });
      this.#loading.set(id, loading);
    }
    return loading;
  }

  /** Resolves once `id` is in memory (or known not to be there). */
  #loaded(id: string): Promise<void> | undefined {
    if (!this.#snapshot || !this.#unloaded.has(id)) return undefined;
    return this.#load(this.#snapshot, id);
  }

  get maxEntries(): number {
    return this.#maxEntries;
  }

  async get(id: string): Promise<T | undefined> {
    await this.#loaded(id);
    return this.#values.get(id);
  }

  async values(): Promise<T[]> {
    await this.#ready;
    return [...this.#values.values()];
  }

  /**
   * Up to `limit` values whose ids come after `after` in code-unit order, and the cursor of the next page (the last
   * id given; null on the last page). Waits for a background load. The sorted ids are built once, at the first
   * page, and kept in order by create and delete (a binary search and a splice), so a page costs its own values.
   */
  async page(after: string | null, limit: number): Promise<StatePage<T>> {
    await this.#ready;
    this.#sorted ??= [...this.#values.keys()].sort(compareIds);
    const sorted = this.#sorted;
    let start = after === null ? 0 : this.#position(after);
    if (after !== null && sorted[start] === after) start++;
    const ids = sorted.slice(start, start + limit);
    const values: T[] = [];
    for (const id of ids) {
      const value = this.#values.get(id);
      if (value !== undefined) values.push(value);
    }
    const more = start + limit < sorted.length;
    return { values, next: more && ids.length > 0 ? (ids[ids.length - 1] as string) : null };
  }

  /** Where `id` is, or would be inserted, in the sorted ids. */
  #position(id: string): number {
    const sorted = this.#sorted as string[];
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareIds(sorted[middle] as string, id) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  #removeSorted(id: string): void {
    const at = this.#position(id);
    if (this.#sorted?.[at] === id) this.#sorted.splice(at, 1);
  }

  async create(id: string, value: T): Promise<'created' | 'exists' | 'full'> {
    await this.#loaded(id);
    if (this.#values.has(id)) return 'exists';
    if (this.#values.size + this.#unloaded.size >= this.#maxEntries) return 'full';
    this.#values.set(id, value);
    if (this.#sorted) this.#sorted.splice(this.#position(id), 0, id);
    this.#snapshot?.changed(id, value);
    return 'created';
  }

  /**
   * Answers at once: the change runs to completion within this turn of the event loop, so no promise is needed
   * (a value still on disk during a background load is read first, and the answer is then a promise).
   */
  update(id: string, change: (current: T) => T): T | undefined | Promise<T | undefined> {
    const loading = this.#loaded(id);
    if (loading) return loading.then(() => this.update(id, change));
    const current = this.#values.get(id);
    if (current === undefined) return undefined;
    const next = change(current);
    this.#values.set(id, next);
    this.#snapshot?.changed(id, next);
    return next;
  }

  async delete(id: string): Promise<boolean> {
    await this.#loaded(id);
    const existed = this.#values.delete(id);
    if (existed) {
      if (this.#sorted) this.#removeSorted(id);
      this.#snapshot?.removed(id);
    }
    return existed;
  }

  async size(): Promise<number> {
    return this.#values.size + this.#unloaded.size;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#ready;
    await Promise.all(this.#loading.values());
    try {
      await this.#snapshot?.close();
    } finally {
      this.#lock?.release();
    }
  }
}
