import { HeadroomValidationError } from '../errors/validation.js';
import type { Recap } from './build-recap.js';
import { type HistoryItem, isSystemItem, isTurnStart, type UserItem } from './history-item.js';

/** Turns kept verbatim after a flush. */
export const DEFAULT_KEEP_TURNS = 2;

export interface FlushOptions {
  /** The most recent turns kept as they are (a turn starts at a user request). @default 2 */
  keepTurns?: number;
}

function checkKeepTurns(keepTurns: number): void {
  if (!Number.isInteger(keepTurns) || keepTurns < 0) {
    throw new HeadroomValidationError(
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
 * @throws HeadroomValidationError when keepTurns is not an integer ≥ 0
 */
export function flush(
  history: readonly HistoryItem[],
  recap: Recap | string,
  options: FlushOptions = {},
): HistoryItem[] {
  const cut = findCut(history, options.keepTurns ?? DEFAULT_KEEP_TURNS);
  return flushAt(history, cut, typeof recap === 'string' ? recap : recap.text);
}
