import type { TokenCounter } from '../tokens/token-counter.js';
import { ArchiveAddressSchema, type ArchiveEntry, type ArchiveSink, tombstoneItem } from './archive-sink.js';
import { type HistoryItem, itemText } from './history-item.js';
import { parseOrThrow } from './parse-or-throw.js';
import { type HistoryIndex, planEviction } from './plan-eviction.js';

export interface EvictTaskOptions {
  /** Where evicted content is written before it leaves the history. */
  archive: ArchiveSink;
  sessionId: string;
  /** With a counter, the result says how many tokens the evicted items held before and after. */
  counter?: TokenCounter;
  /** A prebuilt index (see `buildHistoryIndex`) saves the scan of the history. */
  index?: HistoryIndex;
  /** Content up to this many characters stays in place. @default 256 */
  keepUpToChars?: number;
}

export interface EvictTaskResult {
  /** The new history: same length, same order; evicted items are new objects, the others are shared. */
  history: HistoryItem[];
  /** Archive files written (one per task). */
  archived: string[];
  /** Items whose content was replaced by a tombstone. */
  evicted: number;
  /** Tokens of the evicted items before eviction (only with a counter). */
  tokensBefore?: number;
  /** Tokens of the same items with their tombstones (only with a counter). */
  tokensAfter?: number;
}

/**
 * Surgical eviction (seed 004): the content of a completed task's tool items is written to the archive and,
 * only once that write is durable, replaced in the history by a tombstone
 * `[Task <id> completed: output evicted to archive] <path>#<item id>`. If the archive write fails, the error
 * propagates and the caller's history is untouched (it is never mutated: a new array is returned).
 * Cost: a scan for the task's items (or none with an index), one archive append, one array copy; nothing is
 * re-tokenized unless a counter is given, and then only the evicted items.
 * @throws BarometerValidationError when the session or task id is invalid; whatever the archive throws
 */
export async function evictTask(
  history: readonly HistoryItem[],
  taskId: string,
  options: EvictTaskOptions,
): Promise<EvictTaskResult> {
  parseOrThrow(ArchiveAddressSchema, { sessionId: options.sessionId, taskId }, 'eviction');
  const steps = planEviction(history, taskId, {
    ...(options.index ? { index: options.index } : {}),
    ...(options.keepUpToChars !== undefined ? { keepUpToChars: options.keepUpToChars } : {}),
  });
  if (steps.length === 0) return { history: [...history], archived: [], evicted: 0, ...zeroTokens(options) };
  const entries: ArchiveEntry[] = steps.map(({ itemId, kind, field, original }) => ({
    itemId,
    kind,
    field,
    content: original,
  }));
  const { path } = await options.archive.append(options.sessionId, taskId, entries);
  const next = history.slice();
  let tokensBefore = 0;
  let tokensAfter = 0;
  for (const step of steps) {
    const item = history[step.position] as HistoryItem;
    if (item.kind !== 'tool-result' && item.kind !== 'tool-call') continue;
    const replaced: HistoryItem = tombstoneItem(item, taskId, path, step.itemId);
    next[step.position] = replaced;
    if (options.counter) {
      tokensBefore += options.counter.count(itemText(item));
      tokensAfter += options.counter.count(itemText(replaced));
    }
  }
  return {
    history: next,
    archived: [path],
    evicted: steps.length,
    ...(options.counter ? { tokensBefore, tokensAfter } : {}),
  };
}

function zeroTokens(options: EvictTaskOptions): { tokensBefore?: number; tokensAfter?: number } {
  return options.counter ? { tokensBefore: 0, tokensAfter: 0 } : {};
}
