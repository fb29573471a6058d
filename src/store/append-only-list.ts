import { BarometerError } from '../errors/barometer-error.js';

/**
 * A list inside a stored value that only ever grows at its end and keeps its last `limit` items (a timeline's
 * points). A store keeps it beside the value (rows of their own, a Redis list), so an update writes what it
 * appends instead of rewriting the whole list.
 */
export interface AppendOnlyList {
  /** Where the array is in the value: `['timeline', 'points']`. */
  path: readonly string[];
  /** Items kept; older ones are dropped as new ones come. */
  limit: number;
  /** Whether an item read back belongs in the list; one that does not is skipped (and reported) on import. */
  isItem?: (item: unknown) => boolean;
}

/** How a store checks a value read back (see the stores' `parse` option). */
export type ReadBackCheck<T> = (
  value: unknown,
) => { ok: true; value: T; repaired?: string } | { ok: false; reason: string };

/**
 * A copy of `value` with `replacement` at `path` (objects along the path copied, the rest shared). What was at
 * the path's end is not read: a column timeline makes its points as objects when they are read.
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

/** A value as a store writes it: without its lists (each emptied), and each list's last `limit` items as JSON. */
export function splitLists<T>(value: T, lists: readonly AppendOnlyList[]): { bare: T; items: string[][] } {
  let bare: unknown = value;
  const items: string[][] = [];
  for (const list of lists) {
    const array = atPath(value, list.path);
    items.push(Array.isArray(array) ? array.slice(-list.limit).map((item) => JSON.stringify(item)) : []);
    bare = withPath(bare, list.path, []);
  }
  return { bare: bare as T, items };
}

/**
 * A stored value read back: its JSON without its lists, each list's item texts put back (`items` of the list's
 * index; undefined: left empty), checked by `parse` (a repair told to `onRepair`).
 * @throws BarometerError BR_ERR_INTEGRITY naming the id when it is not JSON or does not pass the check
 */
export function readBack<T>(
  id: string,
  json: string,
  lists: readonly AppendOnlyList[],
  items: (index: number) => readonly string[] | undefined,
  parse: ReadBackCheck<T> | undefined,
  onRepair?: (reason: string) => void,
): T {
  let value: unknown;
  try {
    value = JSON.parse(json);
    lists.forEach((list, index) => {
      const texts = items(index) ?? [];
      value = withPath(value, list.path, texts.length === 0 ? [] : JSON.parse(`[${texts.join(',')}]`));
    });
  } catch (error) {
    throw new BarometerError('BR_ERR_INTEGRITY', `The stored value of ${JSON.stringify(id)} is not JSON`, {
      cause: error,
    });
  }
  if (!parse) return value as T;
  const parsed = parse(value);
  if (!parsed.ok) {
    throw new BarometerError(
      'BR_ERR_INTEGRITY',
      `The stored value of ${JSON.stringify(id)} does not read back: ${parsed.reason}`,
    );
  }
  if (parsed.repaired !== undefined) onRepair?.(parsed.repaired);
  return parsed.value;
}
