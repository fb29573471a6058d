import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'libsql';
import { BarometerError } from '../errors/barometer-error.js';

/** The database's file name in a data dir. */
export const DATABASE_FILE = 'barometer.db';

/** A connection as the stores use it: libsql's, which is better-sqlite3's API. */
export type Connection = InstanceType<typeof Database>;

/** Pages of write-ahead log between two checkpoints (SQLite's default is 1,000). */
const CHECKPOINT_PAGES = 10_000;

/** How long a statement waits for another process's write lock (`barometer report` beside `serve`). */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The embedded database of a data dir (`<data dir>/barometer.db`, SQLite through libsql, decision 095): sessions,
 * their timelines, the proxy's edits, pools, webhooks and the report cache, each in tables of its own; archives and
 * artifacts stay files. Every write is a transaction committed to the write-ahead log before it is acknowledged
 * (`journal_mode=WAL`, `synchronous=NORMAL`; a store's values by its writer thread, in transactions of every write
 * waiting, see `state-writer.ts`): SQLite's rule is that such a commit survives the process being
 * killed; an operating-system crash or a power cut may undo the last commits, never corrupt the file (see
 * docs/service.md, Durability). The file is created owner-only (0600); SQLite gives its `-wal` and `-shm` files the
 * same mode. A path of `:memory:` is a database of this process alone (the library's default monitor).
 */
export class StateDatabase {
  readonly connection: Connection;
  readonly path: string;
  readonly #begin;
  readonly #commit;
  readonly #rollback;
  #closed = false;

  private constructor(connection: Connection, path: string) {
    this.connection = connection;
    this.path = path;
    // IMMEDIATE: the write lock is taken at the start, so a transaction never fails halfway for want of it.
    this.#begin = connection.prepare<[]>('BEGIN IMMEDIATE');
    this.#commit = connection.prepare<[]>('COMMIT');
    this.#rollback = connection.prepare<[]>('ROLLBACK');
  }

  /**
   * Opens (creating it and its folder if need be) the database at `path`.
   * @throws BarometerError BR_ERR_STORE_UNAVAILABLE naming the file when it cannot be opened or is not a database
   */
  static open(path: string): StateDatabase {
    const memory = path === ':memory:';
    const file = memory ? path : resolve(path);
    try {
      if (!memory) {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        // Created here, owner-only, before SQLite opens it (SQLite would create it with the umask's mode).
        closeSync(openSync(file, 'a', 0o600));
        chmodSync(file, 0o600);
      }
      const connection = new Database(file, { timeout: BUSY_TIMEOUT_MS });
      if (!memory) connection.pragma('journal_mode = WAL');
      connection.pragma('synchronous = NORMAL');
      // A checkpoint (the log copied into the file, two fsyncs) every 10,000 pages of log (~40 MB) instead of
      // SQLite's 1,000: ten times fewer fsyncs per update; the log is reused from its start after each.
      connection.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
      connection.exec(
        'CREATE TABLE IF NOT EXISTS kv (space TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (space, key)) WITHOUT ROWID',
      );
      return new StateDatabase(connection, file);
    } catch (error) {
      throw storeFailure(`open the database ${file}`, error);
    }
  }

  /**
   * Runs `work` in one transaction, committed whole when it returns (to the write-ahead log: durable once this
   * returns), rolled back when it throws. Inside another transaction it is part of that one.
   */
  transaction<R>(work: () => R): R {
    if (this.connection.inTransaction) return work();
    this.#begin.run();
    let result: R;
    try {
      result = work();
    } catch (error) {
      this.#rollback.run();
      throw error;
    }
    this.#commit.run();
    return result;
  }

  /** Closes the connection (once), the write-ahead log folded into the file first (it is left empty). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      // libsql 0.5 leaves the log as it was at close (its statements outlive the connection until collected).
      if (this.path !== ':memory:') this.connection.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.connection.close();
    }
  }
}

/** A failed read or write of the embedded database, as an error with the store's code and the reason. */
export function storeFailure(action: string, cause: unknown): BarometerError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new BarometerError('BR_ERR_STORE_UNAVAILABLE', `Could not ${action}: ${reason}`, { cause });
}
