/**
 * Where state lives: a keyed collection of JSON values with an atomic read-modify-write. The memory store is
 * the embedded default; a Redis store implements the same interface. A store knows nothing of what it holds.
 */
export interface StateStore<T> {
  /** The value of `id`, or undefined. */
  get(id: string): Promise<T | undefined>;
  /** Every value, in no particular order. */
  values(): Promise<T[]>;
  /** Adds a value under a new id: `exists` when the id is taken, `full` when the store holds its maximum. */
  create(id: string, value: T): Promise<'created' | 'exists' | 'full'>;
  /**
   * Replaces the value of `id` with `change(current)`, atomically: no other update of `id` is applied between
   * the read and the write. When `change` throws, nothing is written and the error is passed on. A store may
   * call `change` more than once (optimistic concurrency); it must be a pure function of `current`.
   * Resolves to the new value, or undefined when there is no such id.
   */
  update(id: string, change: (current: T) => T): Promise<T | undefined>;
  /** Removes `id`; false when there was none. */
  delete(id: string): Promise<boolean>;
  size(): Promise<number>;
  /** Writes out whatever is pending and releases resources. */
  close(): Promise<void>;
}
