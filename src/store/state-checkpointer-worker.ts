/**
 * The checkpointer thread of a store's writer (see StateWriter): on its own connection, it folds the write-ahead log
 * into the database file (`wal_checkpoint(PASSIVE)`, which runs beside the writer's commits and never waits for
 * them) whenever the writer has committed since the last one. The writer's own checkpoint (SQLite's, every 10,000
 * pages of log) still runs, so that the log is reset from its start however busy the writer is (a checkpoint from
 * another thread never catches up with sustained writes: decision 095); it then finds the pages copied already,
 * and what a commit waits for is the little left. It answers `idle` after each checkpoint.
 */
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { StateDatabase } from './state-database.js';

const port = parentPort as MessagePort;
const database = StateDatabase.open((workerData as { path: string }).path);

port.on('message', (first: 'checkpoint' | 'close') => {
  let closing = first === 'close';
  // Every nudge that came meanwhile is one checkpoint.
  for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port))
    if (next.message === 'close') closing = true;
  if (closing) {
    // From JavaScript, between two calls: a thread stopped inside a libsql call can abort the whole process.
    database.connection.close();
    port.close();
    return;
  }
  try {
    database.connection.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A checkpoint that could not run is taken again at the next commit; the log only grows meanwhile.
  }
  port.postMessage('idle');
});
