import type { Connection } from './state-database.js';

/**
 * One write of a store's value, as the store encoded it: what runs on the connection that writes (the writer
 * thread's for a database in a file, the store's own for one in memory). `seq` orders the writes of one store.
 */
export type TableWrite =
  | {
      kind: 'create';
      seq: number;
      id: string;
      data: string;
      counts: string;
      touched: number;
      minute: number;
      items: string[][];
    }
  | {
      kind: 'update';
      seq: number;
      id: string;
      data: string;
      counts: string;
      touched: number;
      /** The idle index's new minute, or null when it is the one already written (the index is left alone). */
      minute: number | null;
      items: string[][];
      /** Each list's count of items before this write: where its new items go. */
      from: number[];
    }
  | { kind: 'delete'; seq: number; id: string };

/** A list's items are trimmed to its limit once per this many appends (reads take only the last `limit`). */
const TRIM_EVERY = 64;

/** Creates a store's tables (`<table>` and `<table>_items`) and the idle index, when they are not there. */
export function createTables(connection: Connection, table: string): void {
  connection.exec(
    `CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL, counts TEXT NOT NULL, touched REAL NOT NULL, minute INTEGER NOT NULL);
     CREATE INDEX IF NOT EXISTS ${table}_minute ON ${table} (minute);
     CREATE TABLE IF NOT EXISTS ${table}_items (id TEXT NOT NULL, list INTEGER NOT NULL, seq INTEGER NOT NULL, item TEXT NOT NULL, PRIMARY KEY (id, list, seq)) WITHOUT ROWID;`,
  );
}

/**
 * The statements that apply a store's writes to `table` on `connection`, as one function; `limits` are its lists'
 * limits, in order. The caller holds the transaction: this runs the statements of one write.
 */
export function tableWrites(
  connection: Connection,
  table: string,
  limits: readonly number[],
): (write: TableWrite) => void {
  const prepare = (sql: string) => connection.prepare(sql);
  const sql = {
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
  /** Appends each list's new items after its `from` count, and trims a list past its limit now and then. */
  const append = (id: string, items: readonly string[][], from: readonly number[] | undefined) => {
    limits.forEach((limit, index) => {
      const added = items[index] ?? [];
      const start = from?.[index] ?? 0;
      for (let k = 0; k < added.length; k++) sql.append.run(id, index, start + k, added[k]);
      const end = start + added.length;
      if (end > limit && Math.floor(end / TRIM_EVERY) !== Math.floor(start / TRIM_EVERY))
        sql.trim.run(id, index, end - limit);
    });
  };
  return (write) => {
    switch (write.kind) {
      case 'create':
        sql.clear.run(write.id);
        sql.insert.run(write.id, write.data, write.counts, write.touched, write.minute);
        append(write.id, write.items, undefined);
        return;
      case 'update':
        if (write.minute === null) sql.update.run(write.data, write.counts, write.touched, write.id);
        else sql.move.run(write.data, write.counts, write.touched, write.minute, write.id);
        append(write.id, write.items, write.from);
        return;
      case 'delete':
        sql.clear.run(write.id);
        sql.remove.run(write.id);
        return;
    }
  };
}
