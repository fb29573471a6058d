import type { StateDatabase } from './state-database.js';

/**
 * A small keyed table of texts in the embedded database, one `space` of its `kv` table: what a part of barometer
 * keeps that is not a session (the proxy's edits of each session, the webhooks, the report cache). Each write is
 * its own transaction, committed before the call returns, unless it runs inside one ({@link StateDatabase.transaction}).
 */
export class KeyValueTable {
  readonly database: StateDatabase;
  readonly space: string;
  readonly #get;
  readonly #set;
  readonly #delete;
  readonly #entries;

  constructor(database: StateDatabase, space: string) {
    this.database = database;
    this.space = space;
    const connection = database.connection;
    // raw, not pluck: libsql 0.5's `pluck().get()` answers the whole row.
    this.#get = connection.prepare('SELECT value FROM kv WHERE space = ? AND key = ?').raw();
    this.#set = connection.prepare(
      'INSERT INTO kv (space, key, value) VALUES (?, ?, ?) ON CONFLICT (space, key) DO UPDATE SET value = excluded.value',
    );
    this.#delete = connection.prepare('DELETE FROM kv WHERE space = ? AND key = ?');
    this.#entries = connection.prepare('SELECT key, value FROM kv WHERE space = ? ORDER BY key').raw();
  }

  /** The text kept under `key`, or undefined. */
  get(key: string): string | undefined {
    const row = this.#get.get(this.space, key) as [string] | undefined;
    return row?.[0];
  }

  set(key: string, value: string): void {
    this.#set.run(this.space, key, value);
  }

  /** Removes `key`; false when there was none. */
  delete(key: string): boolean {
    return this.#delete.run(this.space, key).changes > 0;
  }

  /** Every key and its text, in key order. */
  entries(): Array<[string, string]> {
    return this.#entries.all(this.space) as Array<[string, string]>;
  }
}
