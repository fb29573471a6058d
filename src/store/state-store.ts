/** One page of a store's values, in id order, and the cursor of the next (null: none). */
export interface StatePage<T> {
  values: T[];
  next: string | null;
}

/** How a page reads its values. */
export interface PageOptions {
  /**
   * Read the values' append-only lists too (a session's timeline). false: they come empty, as in an update's
   * `current` (a list of sessions shows none of their timelines). @default true
   */
  lists?: boolean;
}

/**
 * Where state lives: a keyed collection of JSON values with an atomic read-modify-write. The embedded database
 * (SQLite) is the default; a Redis store implements the same interface. A store knows nothing of what it holds.
 */
export interface StateStore<T> {
  /** The value of `id`, or undefined. */
  get(id: string): Promise<T | undefined>;
  /** Every value, in no particular order. */
  values(): Promise<T[]>;
  /**
   * Up to `limit` values whose ids come after `after` (null: from the first) in code-unit order, and `next`, the
   * cursor of the following page (null on the last): a listing of 100,000 values in pages, none built whole.
   */
  page(after: string | null, limit: number, options?: PageOptions): Promise<StatePage<T>>;
  /**
   * The ids whose time (the store's `touchedAt` of the value) is before `before`, oldest first, at most `limit`:
   * what an idle sweep reads from an index instead of every value. Absent: the store keeps no such index.
   */
  idle?(before: number, limit: number): Promise<string[]>;
  /** The most values it holds (creating one more answers `full`), when it has a maximum. */
  readonly maxEntries?: number;
  /** Adds a value under a new id: `exists` when the id is taken, `full` when the store holds its maximum. */
  create(id: string, value: T): Promise<'created' | 'exists' | 'full'>;
  /**
   * Replaces the value of `id` with `change(current)`, atomically: no other update of `id` is applied between
   * the read and the write. When `change` throws, nothing is written and the error is passed on. A store may
   * call `change` more than once (optimistic concurrency); it must be a pure function of `current`.
   * Answers the new value, or undefined when there is no such id: at once from the embedded database in memory
   * (committed within the call), as a promise from one over a file (answered once the writer thread's transaction
   * holding it is committed: group commit) or from one that must ask elsewhere (Redis). Callers `await` it either
   * way, or pass a value on.
   */
  update(id: string, change: (current: T) => T): T | undefined | Promise<T | undefined>;
  /** Removes `id`; false when there was none. */
  delete(id: string): Promise<boolean>;
  size(): Promise<number>;
  /** Releases resources (every acknowledged update is already written). */
  close(): Promise<void>;
}
