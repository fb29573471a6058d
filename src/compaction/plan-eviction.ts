import type { HistoryItem } from './history-item.js';

/** Content up to this many characters stays in place: a tombstone would be about as long. */
export const DEFAULT_KEEP_UP_TO_CHARS = 256;

/**
 * Where each task's tool items and each call's items sit in a history. Eviction never removes or moves items,
 * so an index stays valid across evictions; extend it with {@link indexItems} as items are appended.
 */
export interface HistoryIndex {
  byTask: Map<string, number[]>;
  byCall: Map<string, number[]>;
}

function push(map: Map<string, number[]>, key: string, position: number): void {
  const positions = map.get(key);
  if (positions) positions.push(position);
  else map.set(key, [position]);
}

/** Adds `items`, appended at position `offset` onwards, to an index (mutates and returns it). */
export function indexItems(index: HistoryIndex, items: readonly HistoryItem[], offset = 0): HistoryIndex {
  items.forEach((item, at) => {
    if (item.kind !== 'tool-call' && item.kind !== 'tool-result') return;
    push(index.byCall, item.callId, offset + at);
    if (item.taskId !== undefined) push(index.byTask, item.taskId, offset + at);
  });
  return index;
}

/** Indexes a whole history: one pass, no copies of content. */
export function buildHistoryIndex(history: readonly HistoryItem[]): HistoryIndex {
  return indexItems({ byTask: new Map(), byCall: new Map() }, history);
}

/** One replacement eviction will make: the item at `position` loses `field`, whose text is `original`. */
export interface EvictionStep {
  position: number;
  itemId: string;
  kind: 'tool-call' | 'tool-result';
  field: 'content' | 'input';
  original: string;
}

export interface PlanEvictionOptions {
  index?: HistoryIndex;
  /** @default 256 */
  keepUpToChars?: number;
}

/**
 * Plans which content of a task's tool items to evict, in history order. Pairing rule, valid for every
 * provider: no item is ever removed, so a call and its result keep their ids and their places; only contents
 * change. A result's content becomes a tombstone; a call's input becomes `{ evicted: tombstone }` when its JSON
 * is longer than `keepUpToChars` (short inputs such as a file path stay: they say what was done). A call and
 * its result count as one unit: if either is tagged with the task, both are planned. Items already evicted
 * and content of at most `keepUpToChars` characters are left as they are.
 */
export function planEviction(
  history: readonly HistoryItem[],
  taskId: string,
  options: PlanEvictionOptions = {},
): EvictionStep[] {
  const given = options.index;
  // A stale index (built for another history) would evict the wrong items: check it, and rebuild if it lies.
  const index = given && indexMatches(history, given, taskId) ? given : buildHistoryIndex(history);
  const keepUpTo = options.keepUpToChars ?? DEFAULT_KEEP_UP_TO_CHARS;
  const positions = new Set<number>();
  for (const position of index.byTask.get(taskId) ?? []) {
    const item = history[position];
    if (item?.kind !== 'tool-call' && item?.kind !== 'tool-result') continue;
    for (const partner of index.byCall.get(item.callId) ?? []) positions.add(partner);
  }
  const steps: EvictionStep[] = [];
  for (const position of [...positions].sort((a, b) => a - b)) {
    const item = history[position];
    if (item?.kind === 'tool-result' && item.archivedTo === undefined && item.content.length > keepUpTo) {
      steps.push({ position, itemId: item.id, kind: item.kind, field: 'content', original: item.content });
    } else if (item?.kind === 'tool-call' && item.archivedTo === undefined) {
      const input = JSON.stringify(item.input ?? {});
      if (input.length > keepUpTo)
        steps.push({ position, itemId: item.id, kind: item.kind, field: 'input', original: input });
    }
  }
  return steps;
}

function indexMatches(history: readonly HistoryItem[], index: HistoryIndex, taskId: string): boolean {
  for (const position of index.byTask.get(taskId) ?? []) {
    const item = history[position];
    if ((item?.kind !== 'tool-call' && item?.kind !== 'tool-result') || item.taskId !== taskId) return false;
    for (const partner of index.byCall.get(item.callId) ?? []) {
      const other = history[partner];
      if ((other?.kind !== 'tool-call' && other?.kind !== 'tool-result') || other.callId !== item.callId)
        return false;
    }
  }
  return true;
}
