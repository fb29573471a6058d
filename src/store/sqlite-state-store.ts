import { BarometerError } from '../errors/barometer-error.js';
import { type AppendOnlyList, type ReadBackCheck, readBack, splitLists } from './append-only-list.js';
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
  parse?: ReadBackCheck<T>;
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
 * A value as this process last wrote it, without its lists: each list's count of items ever appended, the idle
 * index's minute, and the writes of it sent and not yet answered (`writes`: while any waits, it is not forgotten).
 */
interface Known<T> {
  value: T;
  counts: number[];
  minute: number;
  writes: number;
}

/**
 * The idle index holds each value's time to the minute (the exact time is a column beside it): an update rewrites
 * the index only when its value's minute changes, not at every update (one page less per commit).
 */
const MINUTE_MS = 60_000;

/**
 * Values in the embedded database: one row per id (its JSON without its lists, the lists' counts, its time) in a
 * table ordered by id, and each append-only list's items as rows of `<table>_items` keyed by (id, list, position).
 * Pages walk the id index from a cursor; nothing is read at start but the count. An update runs `change` on the
 * value as this process last wrote it (its lists empty, as in the Redis store: `change` appends to them), so
 * updates of one id never interleave; the value `update` answers holds, in its lists, only what it appended; `get`,
 * `values` and `page` return them whole (the last `limit` items).
 *
 * Over a file, the writes go to a writer thread ({@link StateWriter}: group commit) and `update` answers once the
 * transaction holding its write is committed. Every read is the database's: one made while writes wait answers once
 * the writes sent before it are committed (or failed), so that it sees them. In memory (`:memory:`, a database of
 * this connection alone) each write is committed within the call, which answers at once.
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
  /** Ids deleted by a write not yet answered, with the count of such writes: the file still has their rows. */
  readonly #deleting = new Map<string, number>();
  /** Ids whose write failed, and the `seq` of the reset sent for each (see the writer thread's `refused`). */
  readonly #resets = new Map<string, number>();
  readonly #apply: (write: TableWrite) => void;
  readonly #sql;
  /** The count of values, the writes sent included. */
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
      row: prepare(`SELECT data, counts, minute FROM ${table} WHERE id = ?`).raw(),
      items: prepare(
        `SELECT item FROM ${table}_items WHERE id = ? AND list = ? AND seq >= ? ORDER BY seq`,
      ).pluck(),
      page: prepare(`SELECT id, data, counts FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`).raw(),
      idle: prepare(
        `SELECT id FROM ${table} WHERE minute <= ? AND touched < ? ORDER BY minute, touched LIMIT ?`,
      ).raw(),
      // raw, not pluck: libsql 0.5's `pluck().get()` answers the whole row.
      count: prepare(`SELECT count(*) FROM ${table}`).raw(),
    };
    this.#size = this.#count();
    if (options.touchedAt)
      this.idle = async (before, limit) => {
        if (this.writer?.waiting) await this.writer.drained();
        const rows = this.#sql.idle.all(Math.floor(before / MINUTE_MS), before, limit) as Array<[string]>;
        return rows.map((row) => row[0]);
      };
  }

  get maxEntries(): number {
    return this.#maxEntries;
  }

  async get(id: string): Promise<T | undefined> {
    if (this.writer?.waiting) await this.writer.drained();
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
    if (this.writer?.waiting) await this.writer.drained();
    const rows = this.#sql.page.all(after ?? '', limit + 1) as Array<[string, string, string]>;
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const values = rows.map(([id, data, counts]) => this.#decode(id, data, counts, options.lists !== false));
    return { values, next: more ? (rows[limit - 1] as [string, string, string])[0] : null };
  }

  async create(id: string, value: T): Promise<'created' | 'exists' | 'full'> {
    if (this.writer === undefined) return this.insert(id, value);
    if (this.#exists(id)) return 'exists';
    if (this.#maxEntries > 0 && this.#size >= this.#maxEntries) return 'full';
    const { write, known } = this.#created(id, value);
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
    this.#size++;
    this.#remember(id, known);
    return 'created';
  }

  /**
   * Over a file, answers once the write is committed (a promise); in memory, at once: the change runs and its
   * result is committed within this call. Either way `change` runs now, on the value as last written (a value
   * with writes waiting is always known; one whose delete waits is gone).
   */
  update(id: string, change: (current: T) => T): T | undefined | Promise<T | undefined> {
    const known = this.#known.get(id) ?? (this.#deleting.has(id) ? undefined : this.#readBare(id));
    if (known === undefined) return undefined;
    const next = change(known.value);
    const { bare, json, items } = this.#encode(next);
    const from = known.counts;
    const counts = from.map((count, index) => count + (items[index] as string[]).length);
    const touched = this.#options.touchedAt?.(next) ?? 0;
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
    known.value = bare;
    known.counts = counts;
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
    this.#size--;
    this.#deleting.set(id, (this.#deleting.get(id) ?? 0) + 1);
    return new Promise((resolve, reject) =>
      writer.send(write, (failure) => {
        const left = (this.#deleting.get(id) ?? 1) - 1;
        if (left === 0) this.#deleting.delete(id);
        else this.#deleting.set(id, left);
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
      this.#deleting.clear();
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

  /** Whether `id` has a value: as this process last wrote it, or in the database (unless its delete waits). */
  #exists(id: string): boolean {
    if (this.#known.has(id)) return true;
    return !this.#deleting.has(id) && this.#sql.row.get(id) !== undefined;
  }

  /** The write that creates `id`, and what this process knows of it once written. */
  #created(id: string, value: T): { write: TableWrite; known: Known<T> } {
    const { bare, json, items } = this.#encode(value);
    const counts = items.map((list) => list.length);
    const touched = this.#options.touchedAt?.(value) ?? 0;
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
    return { write, known: { value: bare, counts, minute, writes: 0 } };
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

  /** Sends a write of `known` to the writer thread; answers `result` once it is committed. */
  #send<R>(id: string, known: Known<T>, write: TableWrite, result: R): Promise<R> {
    known.writes++;
    return new Promise((resolve, reject) =>
      (this.writer as StateWriter).send(write, (failure) => {
        known.writes--;
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
      return;
    }
    const reset = this.#resets.get(id);
    if (reset !== undefined && write.seq < reset) return;
    this.#known.delete(id);
    const message = { kind: 'reset' as const, seq: 0, id };
    writer.send(message, () => {
      if (this.#resets.get(id) === message.seq) this.#resets.delete(id);
    });
    this.#resets.set(id, message.seq);
  }

  /** The value without its lists, its list items' JSON texts (the last `limit` of each), and the bare JSON. */
  #encode(value: T): { bare: T; json: string; items: string[][] } {
    const { bare, items } = splitLists(value, this.#lists);
    return { bare, json: JSON.stringify(bare), items };
  }

  #readBare(id: string): Known<T> | undefined {
    const row = this.#sql.row.get(id) as [string, string, number] | undefined;
    if (row === undefined) return undefined;
    const known: Known<T> = {
      value: this.#decode(id, row[0], row[1], false),
      counts: JSON.parse(row[1]) as number[],
      minute: row[2],
      writes: 0,
    };
    this.#remember(id, known);
    return known;
  }

  /** A row read back as a value, its lists read too (the last `limit` items of each) or left empty, checked. */
  #decode(id: string, data: string, counts: string, withLists: boolean): T {
    const items = (index: number) => {
      if (!withLists) return undefined;
      const count = (JSON.parse(counts) as number[])[index] ?? 0;
      const { limit } = this.#lists[index] as AppendOnlyList;
      return this.#sql.items.all(id, index, Math.max(0, count - limit)) as string[];
    };
    return readBack(id, data, this.#lists, items, this.#options.parse, (reason) =>
      this.#options.onProblem?.({ id, action: 'repair', reason }),
    );
  }

  /** Keeps `known` as the newest of the values known; the oldest without writes waiting is forgotten past the limit. */
  #remember(id: string, known: Known<T>): void {
    this.#known.delete(id);
    this.#known.set(id, known);
    if (this.#known.size <= this.#cacheEntries) return;
    for (const [oldest, entry] of this.#known) {
      if (entry.writes > 0 || entry === known) continue;
      this.#known.delete(oldest);
      return;
    }
  }
}
