/**
 * A list inside a stored value that only ever grows at its end and keeps its last `limit` items (a timeline's
 * points). A store keeps it beside the value (a Redis list, an append-only file), so an update writes what it
 * appends instead of rewriting the whole list.
 */
export interface AppendOnlyList {
  /** Where the array is in the value: `['timeline', 'points']`. */
  path: readonly string[];
  /** Items kept; older ones are dropped as new ones come. */
  limit: number;
  /**
   * A field of the items that increases along the list (a timeline point's `index`). A store that finds what is
   * new since its last write looks for the last item it wrote by this field rather than by identity: the list's
   * items may be made anew each time they are read (a timeline kept in columns).
   */
  key?: string;
  /** Whether an item read back belongs in the list; one that does not is skipped (and reported) on load. */
  isItem?: (item: unknown) => boolean;
}

/**
 * What holds a list with a key and makes its items itself when they are read (a timeline kept in columns): the
 * items of its list `name` whose key comes after `last` (all of them when `last` is undefined), made for the
 * caller without making the others; undefined when no item it keeps has the key `last`; null for a list it leaves
 * to its array. The store writes them with JSON.stringify, as it writes every other list.
 */
export interface KeepsOwnList {
  itemsAfter(name: string, last: unknown): unknown[] | undefined | null;
}

export function keepsOwnList(value: unknown): value is KeepsOwnList {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<KeepsOwnList>).itemsAfter === 'function'
  );
}

/**
 * A copy of `value` with `replacement` at `path` (objects along the path copied, the rest shared). What was at
 * the path's end is not read: a column timeline makes its points as objects when they are read, and a session's
 * file is written without them (regression: every flush made a busy session's 500 points for nothing).
 */
export function withPath(value: unknown, path: readonly string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string, ...string[]];
  const container = (value ?? {}) as Record<string, unknown>;
  return {
    ...container,
    [head]: rest.length === 0 ? replacement : withPath(container[head], rest, replacement),
  };
}

/** What `value` holds at `path` (undefined when the path is not there). */
export function atPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) current = (current as Record<string, unknown> | undefined)?.[key];
  return current;
}
