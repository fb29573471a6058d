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
   * listens at once (issue 29, F8). The ids come from the index the last clean close wrote (see
   * {@link StateSnapshot.readIndex}), else from the folder's names, listed first (under a second for 100,000); then
   * the values are read in slices of the snapshot's `sliceMs`, the event loop running between them. A value asked
   * for before its turn (`get`, `update`, `create` or `delete` of its id, a `page` that holds it) is read first,
   * once the ids are known; `values` and `ready` wait for the whole load. @default false
   */
  background?: boolean;
  /** The data dir's lock (see `lockDataDir`), released when the store closes. */
  lock?: DataDirLock;
  /**
   * During a background load, how long a page may spend reading its values off disk: past it, the page answers
   * with those read so far (at least one) and its cursor, and the next page goes on from there. @default 40
   */
  pageReadMs?: number;
}

/** The default number of values a memory store keeps. */
export const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * How long a page may read values off disk during a background load (decision 091): under half of the 100 ms a
 * page of 100 may take at 100,000 sessions (issue 29), the rest left to build the answer, send it and the turns of
 * other requests between slices. 100 values read in ~25 ms on a quiet machine, and up to ~180 ms measured while a
 * full collection of a growing 400 MB heap ran beside them on two cores.
 */
export const DEFAULT_PAGE_READ_MS = 40;

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
  readonly #pageReadMs: number;
  /** Ids on disk not loaded yet (background load). */
  readonly #unloaded = new Set<string>();
  /**
   * Every id (loaded or not), in code-unit order, kept so by create and delete (a binary search and a splice, a few
   * µs at 100,000): a page is a slice of it, where sorting the ids per page took ~50 ms at 100,000.
   */
  #sorted: string[] = [];
  /** Settles once the snapshot's ids are listed (at once without a background load). */
  #listed: Promise<void> | undefined;
  #ready: Promise<void> = Promise.resolve();
  /** Pages reading their values off disk: the background load waits for them. */
  #paging = 0;
  #closed = false;

  constructor(options: MemoryStateStoreOptions<T> = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#snapshot = options.snapshot;
    this.#lock = options.lock;
    this.#pageReadMs = options.pageReadMs ?? DEFAULT_PAGE_READ_MS;
  }

  /** A store filled with what its snapshot holds (none without one), now or in the background. */
  static async open<T>(options: MemoryStateStoreOptions<T> = {}): Promise<MemoryStateStore<T>> {
    const store = new MemoryStateStore(options);
    const snapshot = options.snapshot;
    if (!snapshot) return store;
    try {
      if (!options.background) {
        for (const [id, value] of await snapshot.load()) store.#values.set(id, value);
        store.#sorted = [...store.#values.keys()].sort(compareIds);
        return store;
      }
      const indexed = snapshot.readIndex();
      if (indexed) {
        // Listed by the last clean close, in order: no folder to list, and the first page answers at once.
        store.#sorted = indexed;
        for (const id of indexed) store.#unloaded.add(id);
      } else {
        const ids = snapshot.ids();
        // The first slice here: a folder that cannot be read stops the start.
        const first = await ids.next();
        store.#listed = store.#list(first.done ? [] : first.value, ids);
      }
    } catch (error) {
      options.lock?.release();
      throw error;
    }
    store.#ready = (store.#listed ?? Promise.resolve()).then(() => store.#loadAll(snapshot));
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

  /**
   * Takes in the ids on disk as the snapshot lists them, a slice at a time in the folder's order: each slice is
   * sorted, and the sorted runs merged as a merge sort would (a run merged into the one below while that one is at
   * most twice its length), then all at once when the folder is listed. Merging each slice into every id listed so
   * far took up to 17 ms a slice at 100,000.
   */
  async #list(first: string[], rest: AsyncIterable<string[]>): Promise<void> {
    const runs: string[][] = [];
    const add = (ids: string[]) => {
      for (const id of ids) this.#unloaded.add(id);
      let run = ids.sort(compareIds);
      while (runs.length > 0 && (runs[runs.length - 1] as string[]).length <= 2 * run.length)
        run = merged(runs.pop() as string[], run);
      runs.push(run);
    };
    add(first);
    for await (const ids of rest) add(ids);
    this.#sorted = runs.reduceRight((after, run) => merged(run, after), []);
    this.#listed = undefined;
  }

  /** Reads every value still on disk, a slice of the snapshot's `sliceMs` at a time. */
  async #loadAll(snapshot: StateSnapshot<T>): Promise<void> {
    let began = performance.now();
    // A Set visits what was added and skips what was deleted meanwhile: a value read before its turn is not read twice.
    for (const id of this.#unloaded) {
      // A page reading its values has the turns to itself: a turn holds one slice of reading, not two.
      while (this.#paging > 0 && !this.#closed) {
        await new Promise((resolve) => setImmediate(resolve));
        began = performance.now();
      }
      if (this.#closed) return;
      this.#load(snapshot, id);
      if (performance.now() - began >= snapshot.sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        began = performance.now();
      }
    }
  }

  /** Reads one id's value from the snapshot if it is still on disk only. */
  #load(snapshot: StateSnapshot<T>, id: string): void {
    if (!this.#unloaded.delete(id)) return;
    const value = snapshot.loadOne(id);
    if (value === undefined) this.#removeSorted(id);
    else this.#values.set(id, value);
  }

  /** Makes `id`'s value in memory if it is on disk (once the names are listed: a promise until then). */
  #loaded(id: string): Promise<void> | undefined {
    if (this.#listed) return this.#listed.then(() => this.#loaded(id));
    if (this.#snapshot && this.#unloaded.size > 0) this.#load(this.#snapshot, id);
    return undefined;
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
   * id given; null on the last page): a slice of the sorted ids, so a page costs its own values. During a
   * background load, the page's values still on disk are read first, in slices of the snapshot's `sliceMs`, for at
   * most `pageReadMs`: past it the page ends at the last value read (a page holds fewer than `limit` and a cursor,
   * as DynamoDB's pages end at 1 MB), so that no page waits for a hundred reads slowed by a collection. A value that
   * does not read back, or one deleted meanwhile, is left out, and the page has fewer.
   */
  async page(after: string | null, limit: number): Promise<StatePage<T>> {
    await this.#listed;
    let start = after === null ? 0 : this.#position(after);
    if (after !== null && this.#sorted[start] === after) start++;
    let ids = this.#sorted.slice(start, start + limit);
    let more = start + limit < this.#sorted.length;
    const snapshot = this.#snapshot;
    if (snapshot && this.#unloaded.size > 0) {
      // Read in slices, as the background load reads: a page of 100 values still on disk is ~25 ms of reading.
      this.#paging++;
      try {
        const began = performance.now();
        let sliceBegan = began;
        let read = 0;
        for (let index = 0; index < ids.length; index++) {
          const id = ids[index] as string;
          if (!this.#unloaded.has(id)) continue;
          if (read > 0 && performance.now() - began >= this.#pageReadMs) {
            ids = ids.slice(0, index);
            more = true;
            break;
          }
          this.#load(snapshot, id);
          read++;
          if (performance.now() - sliceBegan >= snapshot.sliceMs) {
            await new Promise((resolve) => setImmediate(resolve));
            sliceBegan = performance.now();
          }
        }
      } finally {
        this.#paging--;
      }
    }
    const values: T[] = [];
    for (const id of ids) {
      const value = this.#values.get(id);
      if (value !== undefined) values.push(value);
    }
    return { values, next: more && ids.length > 0 ? (ids[ids.length - 1] as string) : null };
  }

  /** Where `id` is, or would be inserted, in the sorted ids. */
  #position(id: string): number {
    const sorted = this.#sorted;
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
    if (this.#sorted[at] === id) this.#sorted.splice(at, 1);
  }

  async create(id: string, value: T): Promise<'created' | 'exists' | 'full'> {
    await this.#loaded(id);
    if (this.#values.has(id)) return 'exists';
    if (this.#values.size + this.#unloaded.size >= this.#maxEntries) return 'full';
    this.#values.set(id, value);
    this.#sorted.splice(this.#position(id), 0, id);
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
      this.#removeSorted(id);
      this.#snapshot?.removed(id);
    }
    return existed;
  }

  async size(): Promise<number> {
    await this.#listed;
    return this.#values.size + this.#unloaded.size;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#ready;
    try {
      // The ids in order beside the folder: the next start's first page need not wait for the folder's listing.
      await this.#snapshot?.close(this.#sorted);
    } finally {
      this.#lock?.release();
    }
  }
}

/** Two arrays of ids in code-unit order, merged into one. */
function merged(a: string[], b: string[]): string[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length)
    out[k++] = (a[i] as string) <= (b[j] as string) ? (a[i++] as string) : (b[j++] as string);
  while (i < a.length) out[k++] = a[i++] as string;
  while (j < b.length) out[k++] = b[j++] as string;
  return out;
}
