import { archiveLocation } from '../compaction/archive-sink.js';
import type { HistoryItem } from '../compaction/history-item.js';
import type { ArchivedRecord } from './verify-archive.js';

/**
 * The archive records of a recap of the what-if history: each logged item the recap replaced (in the history before
 * it, not after) is in the recap's archive under its own id, to be checked against the log like an evicted one. An
 * item that came from no logged item (source -1: a re-read, a tombstone) has nothing to check; without an archive
 * path (the recap archived nothing) there are no records.
 */
export function recapRecords(
  before: readonly HistoryItem[],
  after: readonly HistoryItem[],
  sourceOf: (item: HistoryItem) => number,
  recapPath: string | undefined,
): ArchivedRecord[] {
  const replaced = new Set(before);
  for (const item of after) replaced.delete(item);
  const records: ArchivedRecord[] = [];
  for (const item of replaced) {
    const source = sourceOf(item);
    if (source >= 0 && recapPath)
      records.push({ location: archiveLocation(recapPath, item.id), source, field: 'item' });
  }
  return records;
}
