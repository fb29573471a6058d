import { BarometerError } from '../errors/barometer-error.js';
import { type AppendOnlyList, atPath, withPath } from './append-only-list.js';
import { StateDatabase, storeFailure } from './state-database.js';
import type { PageOptions, StatePage, StateStore } from './state-store.js';
import { StateWriter } from './state-writer.js';
import { createTables, type TableWrite, tableWrites } from './table-writes.js';

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

/**
 * A value as this process last wrote it, without its lists: its JSON, each list's count of items ever appended,
 * its time and indexed minute; and, while writes of it wait for their commit (`writes`), what the database does
 * not hold yet: the items appended since (`held`, per list, by position), and whether the value is not in it at
 * all (`fresh`: created, not committed). Reads take a value with writes waiting from here, not from the database.
 */
interface Known<T> {
  value: T;
  data: string;
  counts: number[];
  touched: number;
  minute: number;
  writes: number;
  fresh: boolean;
  held: Array<Map<number, string>> | undefined;
}

/**
 * The idle index holds each value's time to the minute (the exact time is a column beside it): an update rewrites
 * the index only when its value's minute changes, not at every update (one page less per commit).
 */
const MINUTE_MS = 60_000;

/** Code-unit order, as the id index's. */
const byId = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * Values in the embedded database: one row per id (its JSON without its lists, the lists' counts, its time) in a
 * table ordered by id, and each append-only list's items as rows of `<table>_items` keyed by (id, list, position).
 * Pages walk the id index from a cursor; nothing is read at start but the count. An update runs `change` on the
 * value as this process last wrote it (its lists empty, as in the Redis store: `change` appends to them), so
 * updates of one id never interleave; the value `update` answers holds, in its lists, only what it appended; `get`,
 * `values` and `page` return them whole (the last `limit` items).
 *
 * Over a file, the writes go to a writer thread ({@link StateWriter}: group commit) and `update` answers once the
 * transaction holding its write is committed; until then reads answer the value from memory. In memory
 * (`:memory:`, a database of this connection alone) each write is committed within the call, which answers at once.
 */
export class SqliteStateStore<T> implements StateStore<T> {
  readonly database: StateDatabase;
  /** The writer thread of a store over a file (undefined in memory). */
  readonly writer: StateWriter | undefined;
  readonly #options: SqliteStateStoreOptions<T>;
  readonly #lists: readonly AppendOnlyList[];
  readonly #maxEntries: number;
  readonly #cacheEntries: number;
  readonly #owns: boolean;
  readonly #known = new Map<string, Known<T>>();
  /** Ids deleted by a write still waiting for its commit, with the count of such writes. */
  readonly #gone = new Map<string, { writes: number }>();
  /** Ids whose write failed, and the `seq` of the reset sent for each (see the writer thread's `refused`). */
  readonly #resets = new Map<string, number>();
  readonly #apply: (write: TableWrite) => void;
  readonly #sql;
  #size: number;
  /** Set when the writer stopped: writes it had may have been committed unanswered, so the count is read again. */
  #recount = false;
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
    createTables(connection, table);
    const limits = this.#lists.map((list) => list.limit);
    this.#apply = tableWrites(connection, table, limits);
    this.writer =
      this.database.path === ':memory:'
        ? undefined
        : new StateWriter({ path: this.database.path, table, limits });
    const prepare = (sql: string) => connection.prepare(sql);
    this.#sql = {
      row: prepare(`SELECT data, counts, minute, touched FROM ${table} WHERE id = ?`).raw(),
      items: prepare(
        `SELECT item FROM ${table}_items WHERE id = ? AND list = ? AND seq >= ? ORDER BY seq`,
      ).pluck(),
      itemsAt: prepare(
        `SELECT seq, item FROM ${table}_items WHERE id = ? AND list = ? AND seq >= ? ORDER BY seq`,
      ).raw(),
      page: prepare(`SELECT id, data, counts FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`).raw(),
      idle: prepare(
        `SELECT id, touched FROM ${table} WHERE minute <= ? AND touched < ? ORDER BY minute, touched LIMIT ?`,
      ).raw(),
      // raw, not pluck: libsql 0.5's `pluck().get()` answers the whole row.
      count: prepare(`SELECT count(*) FROM ${table}`).raw(),
    };
    this.#size = this.#count();
    if (options.touchedAt) this.idle = async (before, limit) => this.#idle(before, limit);
  }

  get maxEntries(): number {
    return this.#maxEntries;
  }

  async get(id: string): Promise<T | undefined> {
    const known = this.#known.get(id);
    if (known !== undefined && known.writes > 0)
      return this.#decode(id, known.data, known.counts, true, known);
    if (known === undefined && this.#gone.has(id)) return undefined;
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

  /**
   * A page from the id index: the rows after the cursor, in id order, and their lists unless told otherwise; the
   * values with writes waiting from memory (deleted ones left out, created ones put in their place).
   */
  async page(after: string | null, limit: number, options: PageOptions = {}): Promise<StatePage<T>> {
    const lists = options.lists !== false;
    const held = this.#held(after);
    const rows = this.#sql.page.all(after ?? '', limit + 1 + held.gone.size) as Array<
      [string, string, string]
    >;
    let entries: Array<[string, [string, string, string] | Known<T>]> = rows.map((row) => [row[0], row]);
    if (held.values.size > 0 || held.gone.size > 0) {
      // The rows read end at the last one unless the table ended: a value held past it is on a later page.
      const last = rows.length === limit + 1 + held.gone.size ? rows[rows.length - 1]?.[0] : undefined;
      entries = entries.filter(([id]) => !held.gone.has(id) && !held.values.has(id));
      for (const [id, known] of held.values) if (last === undefined || id <= last) entries.push([id, known]);
      entries.sort(byId);
    }
    const more = entries.length > limit;
    if (more) entries.length = limit;
    const values = entries.map(([id, source]) =>
      Array.isArray(source)
        ? this.#decode(id, source[1], source[2], lists)
        : this.#decode(id, source.data, source.counts, lists, source),
    );
    const end = entries[entries.length - 1];
    return { values, next: more && end !== undefined ? end[0] : null };
  }

  async create(id: string, value: T): Promise<'created' | 'exists' | 'full'> {
    const writer = this.writer;
    if (writer === undefined) return this.insert(id, value);
    if (this.#exists(id)) return 'exists';
    if (this.#maxEntries > 0 && this.#size >= this.#maxEntries) return 'full';
    const { write, known } = this.#created(id, value);
    this.#hold(known, write);
    this.#remember(id, known);
    this.#size++;
    return this.#send(id, known, write, 'created' as const);
  }

  /**
   * {@link create}, synchronous, on this process's connection: part of the caller's transaction when it runs inside
   * one (an import at start, before any other write).
   */
  insert(id: string, value: T): 'created' | 'exists' | 'full' {
    if (this.#exists(id)) return 'exists';
    if (this.#maxEntries > 0 && this.#size >= this.#maxEntries) return 'full';
    const { write, known } = this.#created(id, value);
    this.#write(`create ${JSON.stringify(id)}`, write);
    known.fresh = false;
    this.#size++;
    this.#remember(id, known);
    return 'created';
  }

  /**
   * Over a file, answers once the write is committed (a promise); in memory, at once: the change runs and its
   * result is committed within this call. Either way `change` runs now, on the value as last written.
   */
  update(id: string, change: (current: T) => T): T | undefined | Promise<T | undefined> {
    const known = this.#known.get(id) ?? (this.#gone.has(id) ? undefined : this.#readBare(id));
    if (known === undefined) return undefined;
    const next = change(known.value);
    const { bare, json, items } = this.#encode(next);
    const from = known.counts;
    const counts = from.map((count, index) => count + (items[index] as string[]).length);
    const touched = this.#touched(next);
    const minute = Math.floor(touched / MINUTE_MS);
    const write: TableWrite = {
      kind: 'update',
      seq: 0,
      id,
      data: json,
      counts: JSON.stringify(counts),
      touched,
      minute: minute === known.minute ? null : minute,
      items,
      from,
    };
    if (this.writer === undefined) this.#write(`update ${JSON.stringify(id)}`, write);
    else this.#hold(known, write);
    known.value = bare;
    known.data = json;
    known.counts = counts;
    known.touched = touched;
    known.minute = minute;
    this.#remember(id, known);
    return this.writer === undefined ? next : this.#send(id, known, write, next);
  }

  async delete(id: string): Promise<boolean> {
    if (!this.#exists(id)) return false;
    this.#known.delete(id);
    const write: TableWrite = { kind: 'delete', seq: 0, id };
    const writer = this.writer;
    if (writer === undefined) {
      this.#write(`delete ${JSON.stringify(id)}`, write);
      this.#size--;
      return true;
    }
    const gone = this.#gone.get(id) ?? { writes: 0 };
    gone.writes++;
    this.#gone.set(id, gone);
    this.#size--;
    return new Promise((resolve, reject) =>
      writer.send(write, (failure) => {
        if (--gone.writes === 0 && this.#gone.get(id) === gone) this.#gone.delete(id);
        if (failure === undefined) return resolve(true);
        this.#failed(id, write);
        reject(failure);
      }),
    );
  }

  async size(): Promise<number> {
    if (this.#recount && this.writer?.waiting === 0) {
      this.#recount = false;
      this.#size = this.#count();
    }
    return this.#size;
  }

  /** Waits for the writes sent (each acknowledged once committed), stops the writer thread, then closes. */
  async close(): Promise<void> {
    try {
      await this.writer?.close();
    } finally {
      this.#known.clear();
      this.#gone.clear();
      try {
        if (this.#owns) this.database.close();
      } finally {
        this.#options.lock?.release();
      }
    }
  }

  #count(): number {
    return Number((this.#sql.count.get() as [number])[0]);
  }

  #touched(value: T): number {
    return this.#options.touchedAt?.(value) ?? 0;
  }

  /** Whether `id` has a value: as this process last wrote it, or in the database. */
  #exists(id: string): boolean {
    if (this.#known.has(id)) return true;
    return !this.#gone.has(id) && this.#sql.row.get(id) !== undefined;
  }

  /** The write that creates `id`, and what this process knows of it once written. */
  #created(id: string, value: T): { write: TableWrite; known: Known<T> } {
    const { bare, json, items } = this.#encode(value);
    const counts = items.map((list) => list.length);
    const touched = this.#touched(value);
    const minute = Math.floor(touched / MINUTE_MS);
    const write: TableWrite = {
      kind: 'create',
      seq: 0,
      id,
      data: json,
      counts: JSON.stringify(counts),
      touched,
      minute,
      items,
    };
    const known = {
      value: bare,
      data: json,
      counts,
      touched,
      minute,
      writes: 0,
      fresh: true,
      held: undefined,
    };
    return { write, known };
  }

  /** Runs a write on this process's connection, in a transaction of its own unless inside one. */
  #write(action: string, write: TableWrite): void {
    try {
      this.database.transaction(() => this.#apply(write));
    } catch (error) {
      // Rolled back: nothing of it was written, and what this process knows of the id is unchanged.
      throw error instanceof BarometerError
        ? error
        : storeFailure(`${action} in ${this.database.path}`, error);
    }
  }

  /** Counts a write of `known` as waiting, and holds the items it appends until it is committed. */
  #hold(known: Known<T>, write: TableWrite): void {
    known.writes++;
    if (write.kind === 'delete') return;
    write.items.forEach((added, index) => {
      if (added.length === 0) return;
      known.held ??= this.#lists.map(() => new Map<number, string>());
      const held = known.held[index] as Map<number, string>;
      const start = write.kind === 'update' ? (write.from[index] as number) : 0;
      for (let k = 0; k < added.length; k++) held.set(start + k, added[k] as string);
    });
  }

  /** Sends a write of `known` to the writer thread; answers `result` once it is committed. */
  #send<R>(id: string, known: Known<T>, write: TableWrite, result: R): Promise<R> {
    return new Promise((resolve, reject) =>
      (this.writer as StateWriter).send(write, (failure) => {
        known.writes--;
        if (write.kind === 'create') known.fresh = false;
        if (known.held !== undefined && write.kind !== 'delete') {
          const held = known.held;
          write.items.forEach((added, index) => {
            const start = write.kind === 'update' ? (write.from[index] as number) : 0;
            for (let k = 0; k < added.length; k++) held[index]?.delete(start + k);
          });
          if (known.writes === 0) known.held = undefined;
        }
        if (failure === undefined) return resolve(result);
        this.#failed(id, write);
        reject(failure);
      }),
    );
  }

  /**
   * A write of `id` failed: nothing of it was written. What this process knew of the id is forgotten (it is read
   * from the database again), and the writer told so (`reset`): it refuses the writes of the id sent before, made
   * on top of the failed one. A failure of one of those is the one already handled.
   */
  #failed(id: string, write: TableWrite): void {
    if (write.kind === 'create') this.#size--;
    else if (write.kind === 'delete') this.#size++;
    const writer = this.writer as StateWriter;
    if (writer.stopped !== undefined) {
      this.#recount = true;
      this.#known.delete(id);
      this.#gone.delete(id);
      return;
    }
    const reset = this.#resets.get(id);
    if (reset !== undefined && write.seq < reset) return;
    this.#known.delete(id);
    this.#gone.delete(id);
    const message = { kind: 'reset' as const, seq: 0, id };
    writer.send(message, () => {
      if (this.#resets.get(id) === message.seq) this.#resets.delete(id);
    });
    this.#resets.set(id, message.seq);
  }

  /** The values with writes waiting whose ids come after `after`, and the ids deleted by one. */
  #held(after: string | null): { values: Map<string, Known<T>>; gone: Set<string> } {
    const values = new Map<string, Known<T>>();
    const gone = new Set<string>();
    if (this.writer === undefined || this.writer.waiting === 0) return { values, gone };
    for (const [id, known] of this.#known)
      if (known.writes > 0 && (after === null || id > after)) values.set(id, known);
    for (const id of this.#gone.keys())
      if (!values.has(id) && !this.#known.has(id) && (after === null || id > after)) gone.add(id);
    return { values, gone };
  }

  /** The idle ids from the index, oldest first; a value with writes waiting by its time in memory. */
  #idle(before: number, limit: number): string[] {
    const held = this.#held(null);
    const rows = this.#sql.idle.all(
      Math.floor(before / MINUTE_MS),
      before,
      limit + held.values.size + held.gone.size,
    ) as Array<[string, number]>;
    if (held.values.size === 0 && held.gone.size === 0) return rows.map((row) => row[0]);
    const idle = rows.filter(([id]) => !held.gone.has(id) && !held.values.has(id));
    for (const [id, known] of held.values) if (known.touched < before) idle.push([id, known.touched]);
    idle.sort((a, b) => a[1] - b[1]);
    return idle.slice(0, limit).map((row) => row[0]);
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
    const row = this.#sql.row.get(id) as [string, string, number, number] | undefined;
    if (row === undefined) return undefined;
    const known: Known<T> = {
      value: this.#decode(id, row[0], row[1], false),
      data: row[0],
      counts: JSON.parse(row[1]) as number[],
      minute: row[2],
      touched: row[3],
      writes: 0,
      fresh: false,
      held: undefined,
    };
    this.#remember(id, known);
    return known;
  }

  /**
   * A row read back as a value, its lists read too (or left empty), checked by `parse`; `known`: a value with
   * writes waiting, whose items are those the database holds and those it holds itself.
   */
  #decode(id: string, data: string, counts: string | number[], withLists: boolean, known?: Known<T>): T {
    let value: unknown;
    try {
      value = JSON.parse(data);
      const listCounts = typeof counts === 'string' ? (JSON.parse(counts) as number[]) : counts;
      this.#lists.forEach((list, index) => {
        let items: unknown[] = [];
        if (withLists) {
          const from = Math.max(0, (listCounts[index] ?? 0) - list.limit);
          const texts = this.#itemTexts(id, index, from, known);
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

  /**
   * A list's item texts from position `from` on: the database's, and those of writes still waiting (by position:
   * a write committed but not yet answered is in both). A value not yet committed has only the latter.
   */
  #itemTexts(id: string, list: number, from: number, known: Known<T> | undefined): string[] {
    const held = known?.held?.[list];
    const fresh = known?.fresh === true;
    if (!fresh && (held === undefined || held.size === 0))
      return this.#sql.items.all(id, list, from) as string[];
    const items = new Map<number, string>(
      fresh ? [] : (this.#sql.itemsAt.all(id, list, from) as Array<[number, string]>),
    );
    for (const [seq, text] of held ?? []) if (seq >= from) items.set(seq, text);
    return [...items].sort((a, b) => a[0] - b[0]).map((item) => item[1]);
  }

  /** Keeps `known` as the newest of the values known; the oldest without writes waiting is forgotten past the limit. */
  #remember(id: string, known: Known<T>): void {
    this.#known.delete(id);
    this.#known.set(id, known);
    if (this.#known.size <= this.#cacheEntries) return;
    for (const [oldest, entry] of this.#known) {
      if (entry.writes > 0) continue;
      this.#known.delete(oldest);
      return;
    }
  }
}
