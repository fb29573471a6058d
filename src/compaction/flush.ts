import { BarometerValidationError } from '../errors/validation.js';
import type { Recap } from './build-recap.js';
import { type HistoryItem, isSystemItem, isTurnStart, itemRole, type UserItem } from './history-item.js';

/** Turns kept verbatim after a flush. */
export const DEFAULT_KEEP_TURNS = 2;

/**
 * The most tokens a compaction keeps verbatim after the recap. A coding agent's turn can hold one request and
 * hundreds of tool calls, so a tail counted only in turns may be the whole history. 20,000 keeps the last few
 * steps: the recorded agents' own compactions ended near 36,000 (Claude Code, from 170,251) and 48,297 (Codex,
 * from 209,950) tokens, recap included, so a 20,000-token tail leaves room for the recap in the same range.
 */
export const DEFAULT_KEEP_TOKENS = 20_000;

export interface FlushOptions {
  /** The most recent turns kept as they are (a turn starts at a user request). @default 2 */
  keepTurns?: number;
}

function checkKeepTurns(keepTurns: number): void {
  if (!Number.isInteger(keepTurns) || keepTurns < 0) {
    throw new BarometerValidationError(
      [{ field: 'keepTurns', value: keepTurns, message: 'must be an integer ≥ 0', allowed: { min: 0 } }],
      'flush options',
    );
  }
}

/**
 * Where the kept part of a history starts: the first of the last `keepTurns` turns, moved earlier while a kept
 * tool item's partner (its call or its result) lies before it — to the start of that partner's turn — so a
 * flush never separates a call from its result. With fewer turns than `keepTurns`, everything is kept (0).
 */
export function findCut(history: readonly HistoryItem[], keepTurns = DEFAULT_KEEP_TURNS): number {
  checkKeepTurns(keepTurns);
  const turnStarts: number[] = [];
  const firstOfCall = new Map<string, number>();
  history.forEach((item, index) => {
    if (isTurnStart(item)) turnStarts.push(index);
    if ((item.kind === 'tool-call' || item.kind === 'tool-result') && !firstOfCall.has(item.callId)) {
      firstOfCall.set(item.callId, index);
    }
  });
  if (keepTurns > turnStarts.length) return 0;
  let cut = keepTurns === 0 ? history.length : (turnStarts[turnStarts.length - keepTurns] as number);
  let scanFrom = cut;
  let scanTo = history.length;
  while (scanFrom < scanTo) {
    let earliest = cut;
    for (let index = scanFrom; index < scanTo; index += 1) {
      const item = history[index];
      if (item?.kind !== 'tool-call' && item?.kind !== 'tool-result') continue;
      earliest = Math.min(earliest, firstOfCall.get(item.callId) ?? index);
    }
    if (earliest >= cut) break;
    const turnStart = turnStarts.findLast((start) => start <= earliest) ?? earliest;
    // Items newly kept may have partners earlier still: scan just them on the next pass.
    scanTo = cut;
    scanFrom = turnStart;
    cut = turnStart;
  }
  return cut;
}

/**
 * Where a compaction's kept tail starts: the last `keepTurns` turns ({@link findCut}), shortened while it holds
 * more than `keepTokens` tokens. A shortened tail starts at an assistant message, never between a tool call and
 * its result, and never inside one assistant message (its thinking, text and tool calls stay together); it keeps
 * at least the last such step. `tokens[i]` is the token count of `history[i]`.
 */
export function findCompactionCut(
  history: readonly HistoryItem[],
  tokens: readonly number[],
  options: { keepTurns?: number; keepTokens?: number } = {},
): number {
  const turnCut = findCut(history, options.keepTurns ?? DEFAULT_KEEP_TURNS);
  const keepTokens = options.keepTokens ?? DEFAULT_KEEP_TOKENS;
  if (!Number.isInteger(keepTokens) || keepTokens < 0) {
    throw new BarometerValidationError(
      [{ field: 'keepTokens', value: keepTokens, message: 'must be an integer ≥ 0', allowed: { min: 0 } }],
      'compaction options',
    );
  }
  let tail = 0;
  for (let index = turnCut; index < history.length; index += 1) tail += tokens[index] ?? 0;
  if (tail <= keepTokens) return turnCut;
  // A position splits a tool pair when a call (or result) lies before it and its partner at or after it.
  const firstOf = new Map<string, number>();
  const lastOf = new Map<string, number>();
  history.forEach((item, index) => {
    if (item.kind !== 'tool-call' && item.kind !== 'tool-result') return;
    if (!firstOf.has(item.callId)) firstOf.set(item.callId, index);
    lastOf.set(item.callId, index);
  });
  const opensAt = new Array<number>(history.length + 1).fill(0);
  for (const [callId, first] of firstOf) {
    const last = lastOf.get(callId) as number;
    if (last > first) {
      opensAt[first + 1] = (opensAt[first + 1] ?? 0) + 1;
      opensAt[last + 1] = (opensAt[last + 1] ?? 0) - 1;
    }
  }
  // open = how many pairs span a cut at `index` (first < index ≤ last): a running sum of opensAt.
  let open = 0;
  for (let at = 0; at <= turnCut; at += 1) open += opensAt[at] ?? 0;
  let lastSafe = -1;
  for (let index = turnCut + 1; index < history.length; index += 1) {
    open += opensAt[index] ?? 0;
    tail -= tokens[index - 1] ?? 0;
    const item = history[index] as HistoryItem;
    const startsStep =
      itemRole(item) === 'assistant' && itemRole(history[index - 1] as HistoryItem) !== 'assistant';
    if (open !== 0 || !startsStep) continue;
    lastSafe = index;
    if (tail <= keepTokens) return index;
  }
  return lastSafe === -1 ? turnCut : lastSafe;
}

/** The id of the next recap: one past the highest `recap-<n>` in the history, so ids never repeat. */
export function nextRecapNumber(history: readonly HistoryItem[]): number {
  let highest = 0;
  for (const item of history) {
    const match = item.kind === 'user' && item.recap ? /^recap-(\d+)$/.exec(item.id) : null;
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest + 1;
}

/** Builds the flushed history for a given cut: system items, the recap, the kept items. */
export function flushAt(
  history: readonly HistoryItem[],
  cut: number,
  recapText: string,
  number: number = nextRecapNumber(history),
): HistoryItem[] {
  const recapItem: UserItem = {
    kind: 'user',
    id: `recap-${number}`,
    text: recapText,
    recap: true,
  };
  return [...history.slice(0, cut).filter(isSystemItem), recapItem, ...history.slice(cut)];
}

/**
 * Recap and flush (seed 004): a new, small context made of the system items, the recap as a user message
 * (`recap: true`, id `recap-<n>`) and the last `keepTurns` turns. Nothing is archived here: `compactHistory`
 * archives what a flush replaces and refuses a flush that would not shrink the context.
 * @throws BarometerValidationError when keepTurns is not an integer ≥ 0
 */
export function flush(
  history: readonly HistoryItem[],
  recap: Recap | string,
  options: FlushOptions = {},
): HistoryItem[] {
  const cut = findCut(history, options.keepTurns ?? DEFAULT_KEEP_TURNS);
  return flushAt(history, cut, typeof recap === 'string' ? recap : recap.text);
}
