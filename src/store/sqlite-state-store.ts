import { BarometerError } from '../errors/barometer-error.js';
import { type AppendOnlyList, atPath, withPath } from './append-only-list.js';
import { StateDatabase, storeFailure } from './state-database.js';
import type { PageOptions, StatePage, StateStore } from './state-store.js';

/** Something a store had to mend in a value it read back (`repair`), told to its `onProblem`. */
export interface StoreProblem {
  id: string;
  action: 'load' | 'skip' | 'repair' | 'import';
  reason: string;
}

export interface SqliteStateStoreOptions<T> {
  /** The database (see {@link StateDatabase.open}). @default a database of this process alone (`:memory:`) */
  database?: StateDatabase;
  /** The store's table (`sessions`); its lists' items are in `<table>_items`. @default 'state' */
  table?: string;
  /** Checks a value read back; a value that fails is an error naming the id. `repaired` is told to `onProblem`. */
  parse?: (value: unknown) => { ok: true; value: T; repaired?: string } | { ok: false; reason: string };
  /** Values kept at most; creating one more is refused (`full`), never done by dropping one. @default 10000 */
  maxEntries?: number;
  /** Append-only lists kept as rows beside the value (see {@link AppendOnlyList}). */
  lists?: readonly AppendOnlyList[];
  /** The value's time kept in an indexed column, for {@link SqliteStateStore.idle} (a session's `touchedAt`). */
  touchedAt?: (value: T) => number;
  /** Values whose last written version is kept parsed in memory (the busiest ids): their updates read nothing. @default 1000 */
  cacheEntries?: number;
  onProblem?: (problem: StoreProblem) => void;
  /** Whether `close` closes the database too. @default true when the store opened it itself */
  ownsDatabase?: boolean;
  /** The data dir's lock (see `lockDataDir`), released when the store closes. */
  lock?: { release(): void };
}

/** The default number of values a store keeps. */
export const DEFAULT_MAX_ENTRIES = 10_000;
const DEFAULT_CACHE_ENTRIES = 1000;

/** A value without its lists, as last written, each list's count of items ever appended, and its indexed minute. */
interface Known<T> {
  value: T;
  counts: number[];
  minute: number;
}

/**
 * The idle index holds each value's time to the minute (the exact time is a column beside it): an update rewrites
 * the index only when its value's minute changes, not at every update (one page less per commit).
 */
const MINUTE_MS = 60_000;

/** A list's items are trimmed to its limit once per this many appends (reads take only the last `limit`). */
const TRIM_EVERY = 64;

/**
 * Values in the embedded database: one row per id (its JSON without its lists, the lists' counts, its time) in a
 * table ordered by id, and each append-only list's items as rows of `<table>_items` keyed by (id, list, position).
 * Pages walk the id index from a cursor; nothing is read at start but the count. An update runs `change` on the
 * value (its lists empty, as in the Redis store: `change` appends to them), then writes the row and the appended
 * items in one transaction, committed before it answers: the call is synchronous, so updates of one id never
 * interleave. The value `update` answers holds, in its lists, only what it appended; `get`, `values` and `page`
 * return them whole (the last `limit` items).
 */
export class SqliteStateStore<T> implements StateStore<T> {
  readonly database: StateDatabase;
  readonly #options: SqliteStateStoreOptions<T>;
  readonly #lists: readonly AppendOnlyList[];
  readonly #maxEntries: number;
  readonly #cacheEntries: number;
  readonly #owns: boolean;
  readonly #known = new Map<string, Known<T>>();
  readonly #sql;
  #size: number;
  /** Present when the store keeps each value's `touchedAt` (see {@link StateStore.idle}). */
  readonly idle?: (before: number, limit: number) => Promise<string[]>;

  constructor(options: SqliteStateStoreOptions<T> = {}) {
    this.database = options.database ?? StateDatabase.open(':memory:');
    this.#options = options;
    this.#lists = options.lists ?? [];
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#cacheEntries = options.cacheEntries ?? DEFAULT_CACHE_ENTRIES;
    this.#owns = options.ownsDatabase ?? options.database === undefined;
    const table = options.table ?? 'state';
    if (!/^[a-z][a-z_]*$/.test(table))
      throw new TypeError(`table name ${JSON.stringify(table)}: a-z and _ only`);
    const connection = this.database.connection;
    connection.exec(
      `CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL, counts TEXT NOT NULL, touched REAL NOT NULL, minute INTEGER NOT NULL);
       CREATE INDEX IF NOT EXISTS ${table}_minute ON ${table} (minute);
       CREATE TABLE IF NOT EXISTS ${table}_items (id TEXT NOT NULL, list INTEGER NOT NULL, seq INTEGER NOT NULL, item TEXT NOT NULL, PRIMARY KEY (id, list, seq)) WITHOUT ROWID;`,
    );
    const prepare = (sql: string) => connection.prepare(sql);
    this.#sql = {
      row: prepare(`SELECT data, counts, minute FROM ${table} WHERE id = ?`).raw(),
      items: prepare(
        `SELECT item FROM ${table}_items WHERE id = ? AND list = ? AND seq >= ? ORDER BY seq`,
      ).pluck(),
      page: prepare(`SELECT id, data, counts FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`).raw(),
      idle: prepare(
        `SELECT id FROM ${table} WHERE minute <= ? AND touched < ? ORDER BY minute, touched LIMIT ?`,
      ).pluck(),
      insert: prepare(
        `INSERT INTO ${table} (id, data, counts, touched, minute) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      update: prepare(`UPDATE ${table} SET data = ?, counts = ?, touched = ? WHERE id = ?`),
      move: prepare(`UPDATE ${table} SET data = ?, counts = ?, touched = ?, minute = ? WHERE id = ?`),
      remove: prepare(`DELETE FROM ${table} WHERE id = ?`),
      append: prepare(`INSERT OR REPLACE INTO ${table}_items (id, list, seq, item) VALUES (?, ?, ?, ?)`),
      trim: prepare(`DELETE FROM ${table}_items WHERE id = ? AND list = ? AND seq < ?`),
      clear: prepare(`DELETE FROM ${table}_items WHERE id = ?`),
    };
    // raw, not pluck: libsql 0.5's `pluck().get()` answers the whole row.
    this.#size = Number((prepare(`SELECT count(*) FROM ${table}`).raw().get() as [number])[0]);
    const idle = this.#sql.idle;
    if (options.touchedAt)
      this.idle = async (before, limit) =>
        idle.all(Math.floor(before / MINUTE_MS), before, limit) as string[];
  }

  get maxEntries(): number {
    return this.#maxEntries;
  }

  async get(id: string): Promise<T | undefined> {
    const row = this.#sql.row.get(id) as [string, string] | undefined;
    return row === undefined ? undefined : this.#decode(id, row[0], row[1], true);
  }

  async values(): Promise<T[]> {
    const values: T[] = [];
    let after: string | null = null;
    do {
      const page: StatePage<T> = await this.page(after, 1000);
      values.push(...page.values);
      after = page.next;
    } while (after !== null);
    return values;
  }

  /** A page from the id index: the rows after the cursor, in id order, and their lists unless told otherwise. */
  async page(after: string | null, limit: number, options: PageOptions = {}): Promise<StatePage<T>> {
    const rows = this.#sql.page.all(after ?? '', limit + 1) as Array<[string, string, string]>;
    const more = rows.length > limit;
    if (more) rows.pop();
    const values = rows.map(([id, data, counts]) => this.#decode(id, data, counts, options.lists !== false));
    const last = rows[rows.length - 1];
    return { values, next: more && last !== undefined ? last[0] : null };
  }

  async create(id: string, value: T): Promise<'created' | 'exists' | 'full'> {
    return this.insert(id, value);
  }

  /** {@link create}, synchronous: part of the caller's transaction when it runs inside one (an import). */
  insert(id: string, value: T): 'created' | 'exists' | 'full' {
    if (this.#sql.row.get(id) !== undefined) return 'exists';
    if (this.#maxEntries > 0 && this.#size >= this.#maxEntries) return 'full';
    const { bare, json, items } = this.#encode(value);
    const counts = items.map((list) => list.length);
    const touched = this.#touched(value);
    const minute = Math.floor(touched / MINUTE_MS);
    this.#write(`create ${JSON.stringify(id)}`, () => {
      this.#sql.clear.run(id);
      this.#sql.insert.run(id, json, JSON.stringify(counts), touched, minute);
      this.#append(id, items, new Array<number>(items.length).fill(0));
    });
    this.#size++;
    this.#remember(id, { value: bare, counts, minute });
    return 'created';
  }

  /** Answers at once: the change runs and its result is committed within this call. */
  update(id: string, change: (current: T) => T): T | undefined {
    const known = this.#known.get(id) ?? this.#readBare(id);
    if (known === undefined) return undefined;
    const next = change(known.value);
    const { bare, json, items } = this.#encode(next);
    const counts = known.counts.map((count, index) => count + (items[index] as string[]).length);
    const touched = this.#touched(next);
    const minute = Math.floor(touched / MINUTE_MS);
    const countsText = JSON.stringify(counts);
    this.#write(`update ${JSON.stringify(id)}`, () => {
      if (minute === known.minute) this.#sql.update.run(json, countsText, touched, id);
      else this.#sql.move.run(json, countsText, touched, minute, id);
      this.#append(id, items, known.counts);
    });
    this.#remember(id, { value: bare, counts, minute });
    return next;
  }

  async delete(id: string): Promise<boolean> {
    this.#known.delete(id);
    const removed = this.#write(`delete ${JSON.stringify(id)}`, () => {
      this.#sql.clear.run(id);
      return this.#sql.remove.run(id).changes > 0;
    });
    if (removed) this.#size--;
    return removed;
  }

  async size(): Promise<number> {
    return this.#size;
  }

  async close(): Promise<void> {
    this.#known.clear();
    try {
      if (this.#owns) this.database.close();
    } finally {
      this.#options.lock?.release();
    }
  }

  #touched(value: T): number {
    return this.#options.touchedAt?.(value) ?? 0;
  }

  #write<R>(action: string, work: () => R): R {
    try {
      return this.database.transaction(work);
    } catch (error) {
      // Rolled back: nothing of it was written, and what this process knows of the id is unchanged.
      throw error instanceof BarometerError
        ? error
        : storeFailure(`${action} in ${this.database.path}`, error);
    }
  }

  /** Appends each list's new items after its `from` count, and trims a list past its limit now and then. */
  #append(id: string, items: readonly string[][], from: readonly number[]): void {
    this.#lists.forEach((list, index) => {
      const added = items[index] as string[];
      const start = from[index] as number;
      for (let k = 0; k < added.length; k++) this.#sql.append.run(id, index, start + k, added[k]);
      const end = start + added.length;
      if (end > list.limit && Math.floor(end / TRIM_EVERY) !== Math.floor(start / TRIM_EVERY))
        this.#sql.trim.run(id, index, end - list.limit);
    });
  }

  /** The value without its lists, its list items' JSON texts (the last `limit` of each), and the bare JSON. */
  #encode(value: T): { bare: T; json: string; items: string[][] } {
    let bare: unknown = value;
    const items: string[][] = [];
    for (const list of this.#lists) {
      const array = atPath(value, list.path);
      items.push(Array.isArray(array) ? array.slice(-list.limit).map((item) => JSON.stringify(item)) : []);
      bare = withPath(bare, list.path, []);
    }
    return { bare: bare as T, json: JSON.stringify(bare), items };
  }

  #readBare(id: string): Known<T> | undefined {
    const row = this.#sql.row.get(id) as [string, string, number] | undefined;
    if (row === undefined) return undefined;
    const known = {
      value: this.#decode(id, row[0], row[1], false),
      counts: JSON.parse(row[1]) as number[],
      minute: row[2],
    };
    this.#remember(id, known);
    return known;
  }

  /** A row read back as a value, its lists read too (or left empty), checked by `parse`. */
  #decode(id: string, data: string, countsText: string, withLists: boolean): T {
    let value: unknown;
    try {
      value = JSON.parse(data);
      const counts = JSON.parse(countsText) as number[];
      this.#lists.forEach((list, index) => {
        let items: unknown[] = [];
        if (withLists) {
          const from = Math.max(0, (counts[index] ?? 0) - list.limit);
          const texts = this.#sql.items.all(id, index, from) as string[];
          items = texts.length === 0 ? [] : (JSON.parse(`[${texts.join(',')}]`) as unknown[]);
        }
        value = withPath(value, list.path, items);
      });
    } catch (error) {
      throw new BarometerError('BR_ERR_INTEGRITY', `The stored value of ${JSON.stringify(id)} is not JSON`, {
        cause: error,
      });
    }
    if (!this.#options.parse) return value as T;
    const parsed = this.#options.parse(value);
    if (!parsed.ok) {
      throw new BarometerError(
        'BR_ERR_INTEGRITY',
        `The stored value of ${JSON.stringify(id)} does not read back: ${parsed.reason}`,
      );
    }
    if (parsed.repaired !== undefined)
      this.#options.onProblem?.({ id, action: 'repair', reason: parsed.repaired });
    return parsed.value;
  }

  #remember(id: string, known: Known<T>): void {
    this.#known.delete(id);
    this.#known.set(id, known);
    if (this.#known.size > this.#cacheEntries) this.#known.delete(this.#known.keys().next().value as string);
  }
}
