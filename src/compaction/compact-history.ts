import * as z from 'zod';
import { BarometerValidationError } from '../errors/validation.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type ArchiveEntry, ArchiveIdSchema, type ArchiveSink } from './archive-sink.js';
import { buildRecap, type RecapOptions } from './build-recap.js';
import {
  DEFAULT_KEEP_TOKENS,
  DEFAULT_KEEP_TURNS,
  findCompactionCut,
  flushAt,
  nextRecapNumber,
} from './flush.js';
import { type HistoryItem, isSystemItem, itemText } from './history-item.js';
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
  /** The most recent turns kept verbatim (a turn starts at a user request). @default 2 */
  keepTurns?: number;
  /**
   * The kept turns are shortened to at most this many tokens (at a step boundary, tool pairs intact), so a turn
   * of one request and hundreds of tool calls can still be compacted. @default 20,000
   */
  keepTokens?: number;
  /**
   * A compaction that saves less than this share of the history's tokens is refused with the figures: a few
   * tokens saved are not worth breaking the prompt cache and the history's continuity. @default 5
   */
  minGainPercent?: number;
  /** Where the replaced items go (task id `compaction-<n>`); without it nothing is archived. */
  archive?: ArchiveSink;
  /**
   * The archive entries for what a compaction replaces, given the cut (the non-system items before it are
   * replaced). Adapters pass one that archives the provider messages as the caller sent them; item ids must
   * be unique within the list. Default: each replaced item whole, as JSON (`field: 'item'`).
   */
  archiveEntries?: (cut: number) => ArchiveEntry[];
  /**
   * The archive item id of the history item at a position, for the recap's references; with `archiveEntries`
   * the adapter knows its ids. Default: the ids of the default entries.
   */
  archiveItemOf?: (position: number) => string | undefined;
  /** Writes the recap instead of the deterministic {@link buildRecap}. */
  summarizer?: Summarizer;
  /**
   * When the summarizer fails (throws, times out, answers nothing), use the deterministic recap and say so in
   * the outcome's `warnings`, instead of failing the compaction. @default false
   */
  summarizerFallback?: boolean;
  /** Tasks for the deterministic recap. */
  tasks?: TaskList | readonly TaskRecord[];
  recap?: RecapOptions;
}

/** The least share of a history's tokens a compaction must save, in percent. */
export const DEFAULT_MIN_GAIN_PERCENT = 5;

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
      /** What went wrong but did not stop the compaction (a summarizer that failed, replaced by the recap). */
      warnings: string[];
    }
  | { ok: false; code: 'BR_ERR_COMPACTION_REFUSED'; before: HistorySize; after: HistorySize; reason: string };

/**
 * Compacts a history whatever its task tags: keeps the system items and the last `keepTurns` turns (never
 * splitting a tool call from its result), replaces everything else by a recap, and archives what it replaced.
 * A result that is not smaller (in tokens) than the input is refused — `{ ok: false, code:
 * 'BR_ERR_COMPACTION_REFUSED' }` — and nothing is archived. The archive is written before the result is
 * returned; if it fails, the error propagates and the caller keeps its history.
 * @throws BarometerValidationError on an invalid session id or keepTurns; whatever the summarizer or archive throws
 */
export async function compactHistory(
  history: readonly HistoryItem[],
  options: CompactHistoryOptions,
): Promise<CompactionOutcome> {
  parseOrThrow(SessionIdSchema, { sessionId: options.sessionId }, 'compaction');
  const minGain = options.minGainPercent ?? DEFAULT_MIN_GAIN_PERCENT;
  if (!Number.isFinite(minGain) || minGain < 0 || minGain > 100) {
    throw new BarometerValidationError(
      [
        {
          field: 'minGainPercent',
          value: minGain,
          message: 'must be a number from 0 to 100',
          allowed: { min: 0, max: 100 },
        },
      ],
      'compaction options',
    );
  }
  // Each item is tokenized once: the kept items count the same before and after.
  const tokens = history.map((item) => (item.kind === 'opaque' ? 0 : options.counter.count(itemText(item))));
  const cut = findCompactionCut(history, tokens, {
    keepTurns: options.keepTurns ?? DEFAULT_KEEP_TURNS,
    keepTokens: options.keepTokens ?? DEFAULT_KEEP_TOKENS,
  });
  const sum = (from: number, to: number, keep: (item: HistoryItem) => boolean) => {
    let total = 0;
    for (let index = from; index < to; index += 1)
      if (keep(history[index] as HistoryItem)) total += tokens[index] ?? 0;
    return total;
  };
  const replaced = history.slice(0, cut).filter((item) => !isSystemItem(item));
  const keptSystem = history.slice(0, cut).filter(isSystemItem);
  const keptTokens = sum(0, cut, isSystemItem) + sum(cut, history.length, () => true);
  const before = {
    messages: history.length,
    tokens: keptTokens + sum(0, cut, (item) => !isSystemItem(item)),
  };
  if (replaced.length === 0) {
    return {
      ok: false,
      code: 'BR_ERR_COMPACTION_REFUSED',
      before,
      after: before,
      reason: 'nothing older than the kept turns to replace',
    };
  }
  const expected = nextRecapNumber(history);
  const warnings: string[] = [];
  const deterministic = (number: number) =>
    buildRecap(history.slice(0, cut), options.tasks ?? [], {
      ...(options.archive?.pathFor
        ? { archive: options.archive.pathFor(options.sessionId, `compaction-${number}`) }
        : {}),
      archiveItemOf: (position) => archiveItemOf(position),
      ...options.recap,
    }).text;
  let summarized: string | undefined;
  if (options.summarizer) {
    try {
      summarized = await options.summarizer.summarize(replaced);
      if (summarized.trim() === '') throw new Error('the summarizer answered nothing');
    } catch (error) {
      if (!options.summarizerFallback) throw error;
      summarized = undefined;
      warnings.push(
        `summarizer failed (${error instanceof Error ? error.message : String(error)}); the deterministic recap was used`,
      );
    }
  }
  const recapFor = async (number: number) => summarized ?? deterministic(number);
  const entries = options.archive
    ? options.archiveEntries
      ? options.archiveEntries(cut)
      : itemEntries(replaced)
    : [];
  const itemIds = options.archiveEntries ? undefined : itemIdsOf(history, cut);
  const archiveItemOf = (position: number): string | undefined =>
    options.archiveItemOf ? options.archiveItemOf(position) : itemIds?.get(position);
  let recapText = await recapFor(expected);
  // The system items, the recap, the kept items: known before the flush is built or a number taken.
  let after = {
    messages: keptSystem.length + 1 + (history.length - cut),
    tokens: keptTokens + options.counter.count(recapText),
  };
  const saved = before.tokens - after.tokens;
  if (saved <= 0 || saved < (before.tokens * minGain) / 100) {
    return {
      ok: false,
      code: 'BR_ERR_COMPACTION_REFUSED',
      before,
      after,
      reason:
        saved <= 0
          ? `the compacted history would hold ${after.tokens} tokens, not fewer than ${before.tokens}`
          : `the compaction would save ${saved} of ${before.tokens} tokens (${((saved / before.tokens) * 100).toFixed(1)}%), less than minGainPercent ${minGain}%`,
    };
  }
  const number = await compactionNumber(history, options.sessionId, options.archive);
  if (number !== expected && summarized === undefined) {
    // Another compaction of this session took the expected number: the recap names the archive really used.
    recapText = await recapFor(number);
    after = { ...after, tokens: keptTokens + options.counter.count(recapText) };
  }
  const messages = flushAt(history, cut, recapText, number);
  const compactionId = `compaction-${number}`;
  const archives: string[] = [];
  if (options.archive) {
    archives.push((await options.archive.append(options.sessionId, compactionId, entries)).path);
  }
  return { ok: true, before, after, archives, messages, compactionId, warnings };
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

/** The archive item id {@link itemEntries} gives each replaced position. */
function itemIdsOf(history: readonly HistoryItem[], cut: number): Map<number, string> {
  const seen = new Map<string, number>();
  const ids = new Map<number, string>();
  for (let position = 0; position < cut; position += 1) {
    const item = history[position] as HistoryItem;
    if (isSystemItem(item)) continue;
    const count = (seen.get(item.id) ?? 0) + 1;
    seen.set(item.id, count);
    ids.set(position, count === 1 ? item.id : `${item.id}~${count}`);
  }
  return ids;
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
