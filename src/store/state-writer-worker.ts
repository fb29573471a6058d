/**
 * The writer thread of a store over a database file (see {@link StateWriter}): it owns the write connection, takes
 * every write waiting when it wakes, runs them in one transaction, commits, and answers the batch. The batch is
 * what arrived while the previous one committed: it grows with the load by itself, no timer and no size to tune.
 */
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { StateDatabase } from './state-database.js';
import { type TableWrite, tableWrites } from './table-writes.js';
import type { WriterAnswer, WriterData, WriterMessage } from './writer-messages.js';

const port = parentPort as MessagePort;
const { path, table, limits } = workerData as WriterData;
const database = StateDatabase.open(path);
const apply = tableWrites(database.connection, table, limits);
/**
 * Ids whose write failed, until the store's `reset` for it comes: the writes of such an id sent before the
 * store learnt of the failure were made on top of the failed one, so they are refused, not written.
 */
const refused = new Set<string>();

port.on('message', (first: WriterMessage) => {
  const batch = [first];
  for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port))
    batch.push(next.message as WriterMessage);
  if (batch.some((message) => message.kind === 'crash')) {
    // As a crash between two transactions: nothing of this batch committed or answered. The connection is closed
    // first, from JavaScript: a thread stopped inside a libsql call (Worker.terminate) can abort the whole process.
    database.connection.close();
    process.exit(70);
  }
  const writes: TableWrite[] = [];
  const failed: number[] = [];
  let closing = false;
  for (const message of batch) {
    if (message.kind === 'close') closing = true;
    else if (message.kind === 'crash') continue;
    else if (message.kind === 'reset') refused.delete(message.id);
    else if (refused.has(message.id)) failed.push(message.seq);
    else writes.push(message);
  }
  const reason = commit(writes, failed);
  const answer: WriterAnswer = { upTo: (batch[batch.length - 1] as WriterMessage).seq, failed, reason };
  port.postMessage(answer);
  if (closing) {
    // The connection alone: the main thread's close folds the log into the file once this thread is gone (a
    // checkpoint here, in the thread's last turn, aborted the process in libsql's binding at `barometer watch`'s
    // exit: neon's assertion on a pending exception).
    database.connection.close();
    port.close();
  }
});

/**
 * Writes `writes` in one transaction; when it fails, each in a transaction of its own, so that one bad write
 * fails alone (the ids of those that fail are refused from then on), unless the write lock could not be had.
 * Answers the reason of the last failure.
 */
function commit(writes: readonly TableWrite[], failed: number[]): string {
  if (writes.length === 0) return '';
  try {
    database.transaction(() => {
      for (const write of writes) apply(write);
    });
    return '';
  } catch (error) {
    // Rolled back whole. Another process held the lock past the busy timeout: each alone would wait as long.
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') {
      for (const write of writes) {
        refused.add(write.id);
        failed.push(write.seq);
      }
      return (error as Error).message;
    }
  }
  // Written again one by one: one bad write fails alone.
  let reason = '';
  for (const write of writes) {
    if (refused.has(write.id)) {
      failed.push(write.seq);
      continue;
    }
    try {
      database.transaction(() => apply(write));
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
      refused.add(write.id);
      failed.push(write.seq);
    }
  }
  return reason;
}
