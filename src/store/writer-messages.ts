import type { TableWrite } from './table-writes.js';

/** What a store's writer thread is started with. */
export interface WriterData {
  /** The database file. */
  path: string;
  table: string;
  /** The limits of the store's append-only lists, in order. */
  limits: number[];
}

/**
 * What the store sends its writer thread, in order: a write; `reset`, once the store has forgotten what it knew of
 * an id whose write failed (its writes are taken again); `close`, the last; `crash` (tests of a writer that dies:
 * `StateWriter.terminate`): the thread ends at once, what it holds neither committed nor answered.
 */
export type WriterMessage =
  | TableWrite
  | { kind: 'reset'; seq: number; id: string }
  | { kind: 'close'; seq: number }
  | { kind: 'crash'; seq: number };

/**
 * The writer's answer to a batch: every message up to `upTo` (its `seq`) is done, committed, but for those in
 * `failed` (nothing of them written; `reason` says why the last one failed).
 */
export interface WriterAnswer {
  upTo: number;
  failed: number[];
  reason: string;
}
