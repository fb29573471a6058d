import { z } from 'zod';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type ArchiveEntry, ArchiveIdSchema, type ArchiveSink } from './archive-sink.js';
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
  /**
   * The archive entries for what a compaction replaces, given the cut (the non-system items before it are
   * replaced). Adapters pass one that archives the provider messages as the caller sent them; item ids must
   * be unique within the list. Default: each replaced item whole, as JSON (`field: 'item'`).
   */
  archiveEntries?: (cut: number) => ArchiveEntry[];
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
  const keptSystem = history.slice(0, cut).filter(isSystemItem);
  const keptTokens =
    countHistoryTokens(keptSystem, options.counter) + countHistoryTokens(history.slice(cut), options.counter);
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
  // The system items, the recap, the kept items: known before the flush is built or a number taken.
  const after = {
    messages: keptSystem.length + 1 + (history.length - cut),
    tokens: keptTokens + options.counter.count(recapText),
  };
  if (after.tokens >= before.tokens) {
    return {
      ok: false,
      code: 'HR_ERR_COMPACTION_REFUSED',
      before,
      after,
      reason: `the compacted history would hold ${after.tokens} tokens, not fewer than ${before.tokens}`,
    };
  }
  const number = await compactionNumber(history, options.sessionId, options.archive);
  const messages = flushAt(history, cut, recapText, number);
  const compactionId = `compaction-${number}`;
  const archives: string[] = [];
  if (options.archive) {
    const entries = options.archiveEntries ? options.archiveEntries(cut) : itemEntries(replaced);
    archives.push((await options.archive.append(options.sessionId, compactionId, entries)).path);
  }
  return { ok: true, before, after, archives, messages, compactionId };
}

/**
 * The number of this compaction's archive and recap: past the recaps in the history (a recap need not survive
 * a round trip through a provider's message format) and past every archive of the session. With a sink that
 * can `reserve`, the archive file is created exclusively, so two compactions of one session running at once —
 * in one process or two — never get the same number and never append to (and shadow) each other's archive.
 * The number is taken only once the compaction is known to go ahead, so a refusal leaves no empty archive.
 */
async function compactionNumber(
  history: readonly HistoryItem[],
  sessionId: string,
  archive: ArchiveSink | undefined,
): Promise<number> {
  let number = nextRecapNumber(history);
  if (archive?.reserve) {
    while (!(await archive.reserve(sessionId, `compaction-${number}`))) number++;
  } else if (archive?.has) {
    while (await archive.has(sessionId, `compaction-${number}`)) number++;
  }
  return number;
}

/**
 * Each replaced item whole, encoded once as JSON. A history may repeat an item id (some agents reuse tool call
 * ids), so a repeated id gets `~<n>` appended: every record of one compaction is addressable on its own.
 */
function itemEntries(replaced: readonly HistoryItem[]): ArchiveEntry[] {
  const seen = new Map<string, number>();
  return replaced.map((item) => {
    const count = (seen.get(item.id) ?? 0) + 1;
    seen.set(item.id, count);
    return {
      itemId: count === 1 ? item.id : `${item.id}~${count}`,
      kind: item.kind,
      field: 'item' as const,
      json: true,
      content: JSON.stringify(item),
    };
  });
}
