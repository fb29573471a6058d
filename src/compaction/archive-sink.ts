import { z } from 'zod';
import type { HistoryItem } from './history-item.js';

/**
 * Session and task ids become a directory and a file name (`<root>/<session>/<task>.log`), so they are checked
 * before they touch a path: a letter or digit first, then letters, digits, `.`, `_`, `-`; at most 128
 * characters; never `..`.
 */
export const ARCHIVE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const ArchiveIdSchema = z
  .string()
  .regex(
    ARCHIVE_ID_PATTERN,
    'must start with a letter or digit and hold only letters, digits, ".", "_", "-" (≤ 128)',
  )
  .refine((value) => !value.includes('..'), 'must not contain ".."');

/** The ids of one archive file, validated together so that each bad one is named. */
export const ArchiveAddressSchema = z.strictObject({ sessionId: ArchiveIdSchema, taskId: ArchiveIdSchema });

/**
 * One piece of content taken out of a history: which item, which of its fields, and the content exactly as it
 * was (`content` of a tool result, the JSON text of a tool call's `input`, or the JSON of a whole item that a
 * compaction replaced).
 */
export interface ArchiveEntry {
  itemId: string;
  kind: HistoryItem['kind'];
  field: 'content' | 'input' | 'item';
  content: string;
}

export interface ArchiveAppendResult {
  /** Where the entries now live; tombstones point here. */
  path: string;
  records: number;
}

/**
 * Where eviction and compaction put what they remove. `append` must resolve only once the entries are durable:
 * the history replaces content by a tombstone only after it resolves. `ArchiveStore` (src/store/archive.ts)
 * is the file implementation; the compaction core depends on this interface alone, so it does no I/O itself.
 */
export interface ArchiveSink {
  append(sessionId: string, taskId: string, entries: readonly ArchiveEntry[]): Promise<ArchiveAppendResult>;
  /** Whether an archive exists already; compaction numbers its archives past the ones there. */
  has?(sessionId: string, taskId: string): Promise<boolean>;
}

/**
 * The tombstone left in place of evicted content: the seed's marker, then where the original lives.
 * @example
 * tombstoneText('t1', '/tmp/archives/s1/t1.log', 'call_1:result');
 * // '[Task t1 completed: output evicted to archive] /tmp/archives/s1/t1.log#call_1:result'
 */
export function tombstoneText(taskId: string, path: string, itemId: string): string {
  return `[Task ${taskId} completed: output evicted to archive] ${archiveLocation(path, itemId)}`;
}

/** `<archive path>#<item id>`: the file to read and the record to look for in it. */
export function archiveLocation(path: string, itemId: string): string {
  return `${path}#${itemId}`;
}
