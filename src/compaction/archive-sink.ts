import * as z from 'zod';
import type { HistoryItem, ToolCallItem, ToolResultItem } from './history-item.js';

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
 * One piece of content taken out of a history. What `content` holds depends on `kind` and `field`:
 *
 * | kind | field | content | written by |
 * |---|---|---|---|
 * | `tool-result` | `content` | the tool output exactly as it was in the history (a string) | eviction |
 * | `tool-call` | `input` | the JSON text of the call's `input` | eviction |
 * | any history item kind | `item` | the JSON of the whole {@link HistoryItem} a compaction replaced | `compactHistory` |
 * | `message` | `message` | the JSON of one provider message (an OpenAI chat message object) exactly as the caller sent it | `compactOpenAIMessages` |
 *
 * With `json: true`, `content` is JSON text and the archive file stores it as a JSON value inside the record
 * (encoded once, so `grep` on the file finds a tool output's words); it reads back as the same text, byte for
 * byte. Without it, `content` is stored as a JSON string.
 */
export interface ArchiveEntry {
  itemId: string;
  kind: HistoryItem['kind'] | 'message';
  field: 'content' | 'input' | 'item' | 'message';
  content: string;
  /** `content` is JSON text (`JSON.stringify` output), stored as a JSON value rather than as a string. @default false */
  json?: boolean;
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
  /**
   * Creates an empty archive if none exists, atomically (also across processes): true if this call created it,
   * false if it existed. Compaction reserves `compaction-<n>` with it, so two compactions of one session never
   * share an archive; without it, compaction falls back to `has`, which two concurrent compactions can race.
   */
  reserve?(sessionId: string, taskId: string): Promise<boolean>;
  /** Where an archive lives (or will), without touching it: the recap names it so the model can ask for items. */
  pathFor?(sessionId: string, taskId: string): string;
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

/**
 * A tool item with its content replaced by the tombstone of `<path>#<itemId>` in archive `taskId`: a result's
 * content becomes the tombstone (plain text whatever its format was: JSON, content blocks), a call's input becomes
 * `{ evicted: tombstone }` (providers want an object as a call's input). Every eviction writes its tombstones here.
 */
export function tombstoneItem<Item extends ToolCallItem | ToolResultItem>(
  item: Item,
  taskId: string,
  path: string,
  itemId: string,
): Item {
  const tombstone = tombstoneText(taskId, path, itemId);
  const archivedTo = archiveLocation(path, itemId);
  if (item.kind === 'tool-result') {
    const { format: _format, ...rest } = item;
    return { ...rest, content: tombstone, archivedTo } as Item;
  }
  return { ...item, input: { evicted: tombstone }, archivedTo };
}
