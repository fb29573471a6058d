import { z } from 'zod';
import type { TokenCounter } from '../tokens/token-counter.js';
import { ArchiveIdSchema, type ArchiveSink } from './archive-sink.js';
import { buildRecap, type RecapOptions } from './build-recap.js';
import { DEFAULT_KEEP_TURNS, findCut, flushAt, nextRecapNumber } from './flush.js';
import { countHistoryTokens, type HistoryItem, isSystemItem } from './history-item.js';
import { parseOrThrow } from './parse-or-throw.js';
import type { TaskList, TaskRecord } from './task-list.js';

const SessionIdSchema = z.strictObject({ sessionId: ArchiveIdSchema });

/** An LLM (or anything else) that writes the recap of the items a compaction replaces. */
export interface Summarizer {
  summarize(items: readonly HistoryItem[]): Promise<string>;
}

export interface CompactHistoryOptions {
  counter: TokenCounter;
  sessionId: string;
  /** @default 2 */
  keepTurns?: number;
  /** Where the replaced items go (task id `compaction-<n>`); without it nothing is archived. */
  archive?: ArchiveSink;
  /** Writes the recap instead of the deterministic {@link buildRecap}. */
  summarizer?: Summarizer;
  /** Tasks for the deterministic recap. */
  tasks?: TaskList | readonly TaskRecord[];
  recap?: RecapOptions;
}

export interface HistorySize {
  messages: number;
  tokens: number;
}

export type CompactionOutcome =
  | {
      ok: true;
      before: HistorySize;
      after: HistorySize;
      /** Archive files written: the replaced items, whole, as JSON. */
      archives: string[];
      /** The compacted history. */
      messages: HistoryItem[];
      /** `compaction-<n>`: the archive task id, matching the recap item's id `recap-<n>`. */
      compactionId: string;
    }
  | { ok: false; code: 'HR_ERR_COMPACTION_REFUSED'; before: HistorySize; after: HistorySize; reason: string };

/**
 * Compacts a history whatever its task tags: keeps the system items and the last `keepTurns` turns (never
 * splitting a tool call from its result), replaces everything else by a recap, and archives what it replaced.
 * A result that is not smaller (in tokens) than the input is refused — `{ ok: false, code:
 * 'HR_ERR_COMPACTION_REFUSED' }` — and nothing is archived. The archive is written before the result is
 * returned; if it fails, the error propagates and the caller keeps its history.
 * @throws HeadroomValidationError on an invalid session id or keepTurns; whatever the summarizer or archive throws
 */
export async function compactHistory(
  history: readonly HistoryItem[],
  options: CompactHistoryOptions,
): Promise<CompactionOutcome> {
  parseOrThrow(SessionIdSchema, { sessionId: options.sessionId }, 'compaction');
  const cut = findCut(history, options.keepTurns ?? DEFAULT_KEEP_TURNS);
  const replaced = history.slice(0, cut).filter((item) => !isSystemItem(item));
  // Each item is tokenized once: the kept items count the same before and after.
  const replacedTokens = countHistoryTokens(replaced, options.counter);
  const keptTokens =
    countHistoryTokens(history.slice(0, cut).filter(isSystemItem), options.counter) +
    countHistoryTokens(history.slice(cut), options.counter);
  const before = { messages: history.length, tokens: keptTokens + replacedTokens };
  if (replaced.length === 0) {
    return {
      ok: false,
      code: 'HR_ERR_COMPACTION_REFUSED',
      before,
      after: before,
      reason: 'nothing older than the kept turns to replace',
    };
  }
  const recapText = options.summarizer
    ? await options.summarizer.summarize(replaced)
    : buildRecap(history, options.tasks ?? [], options.recap ?? {}).text;
  // Numbered past both the recaps in the history and the archives already written for this session: a recap
  // need not survive a round trip through a provider's message format, and a second compaction must never
  // append to (and shadow the items of) the first one's archive.
  let number = nextRecapNumber(history);
  while (options.archive?.has && (await options.archive.has(options.sessionId, `compaction-${number}`)))
    number++;
  const messages = flushAt(history, cut, recapText, number);
  const after = { messages: messages.length, tokens: keptTokens + options.counter.count(recapText) };
  if (after.tokens >= before.tokens) {
    return {
      ok: false,
      code: 'HR_ERR_COMPACTION_REFUSED',
      before,
      after,
      reason: `the compacted history would hold ${after.tokens} tokens, not fewer than ${before.tokens}`,
    };
  }
  const compactionId = `compaction-${number}`;
  const archives: string[] = [];
  if (options.archive) {
    const entries = replaced.map((item) => ({
      itemId: item.id,
      kind: item.kind,
      field: 'item' as const,
      content: JSON.stringify(item),
    }));
    archives.push((await options.archive.append(options.sessionId, compactionId, entries)).path);
  }
  return { ok: true, before, after, archives, messages, compactionId };
}
