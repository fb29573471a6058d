import { existsSync } from 'node:fs';
import { type Receipt, ReceiptTallySchema, receiptOfSession } from '../session/proxy-receipt.js';
import { StateDatabase } from '../store/state-database.js';

/** The receipts of those of `sessions` an acting proxy forwarded requests of (the others are absent). */
export type ReceiptsOf = (sessions: readonly string[]) => Promise<ReadonlyMap<string, Receipt>>;

/** The tally in a session record's JSON (`{ state: { receipts } }`), or undefined when it holds none or is not one. */
function tallyOf(text: unknown): Receipt | null {
  if (typeof text !== 'string') return null;
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return null;
  }
  const receipts = (record as { state?: { receipts?: unknown } } | null)?.state?.receipts;
  const tally = ReceiptTallySchema.safeParse(receipts);
  return tally.success ? receiptOfSession(tally.data) : null;
}

/**
 * The receipts kept in a data folder's database (`<data dir>/barometer.db`, the sessions table the service and the
 * proxy write): what `barometer report` shows beside the what-if. A database that does not exist, or holds no
 * sessions table yet, has none; it is never created. Read in one short read transaction beside a running service
 * (SQLite's WAL lets a reader in while the writer writes).
 */
export function receiptsInDatabase(file: string): ReceiptsOf {
  return async (sessions) => {
    const found = new Map<string, Receipt>();
    if (sessions.length === 0 || !existsSync(file)) return found;
    const database = StateDatabase.open(file);
    try {
      const exists = database.connection
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'")
        .raw()
        .get();
      if (exists === undefined) return found;
      const row = database.connection.prepare('SELECT data FROM sessions WHERE id = ?').raw();
      for (const id of new Set(sessions)) {
        const data = (row.get(id) as unknown[] | undefined)?.[0];
        const receipt = tallyOf(data);
        if (receipt) found.set(id, receipt);
      }
    } finally {
      database.close();
    }
    return found;
  };
}
