import type { ResolvedEvictionPolicyOptions } from './eviction-policy-options.js';
import type { HistoryItem, ToolCallItem, ToolResultItem } from './history-item.js';
import type { EvictionStep } from './plan-eviction.js';
import { inputObjectOf, planOf } from './sub-task-boundary.js';

/**
 * Tokens assumed per tombstone when estimating what a batch frees (the gate only; the result is measured): the
 * proxy's text (eviction-tombstone.ts) measured at about 107 with an archive under the home directory.
 */
export const TOMBSTONE_TOKENS_ESTIMATE = 100;

/** Tools whose result is a file's text, and tools whose input is a file's whole text. */
const READ_TOOLS = /^(?:read|read_file|view)$/i;
const WRITE_TOOLS = /^(?:write|write_file|create_file)$/i;
const PATH_KEYS = ['file_path', 'path', 'notebook_path', 'filePath', 'file'];

/** The file a tool call names (`file_path`, `path`, `notebook_path`, …), if any. */
export function pathOf(item: ToolCallItem): string | undefined {
  const input = inputObjectOf(item);
  if (!input) return undefined;
  for (const key of PATH_KEYS) {
    const value = input[key];
    if (typeof value === 'string' && value !== '' && value.length < 512) return value;
  }
  return undefined;
}

/**
 * What an eviction archives of a tool item, and so what its tombstone stands for: a result's content as the history
 * holds it, a call's input as JSON text.
 */
export function originalOf(item: ToolCallItem | ToolResultItem): string {
  return item.kind === 'tool-result' ? item.content : (JSON.stringify(item.input ?? {}) ?? '');
}

/** What a batch plan needs of the policy's options. */
export type BatchOptions = Pick<
  ResolvedEvictionPolicyOptions,
  'minResultTokens' | 'minArgumentTokens' | 'keepFilesInUse'
>;

/** A planned batch: its steps in history order, the tokens it frees (estimated), where the next plan starts. */
export interface PlannedBatch {
  steps: EvictionStep[];
  freed: number;
  resumeAt: number;
}

/**
 * The eviction steps of the completed range [from, to): of each tool pair wholly inside it, the result's content
 * over `minResultTokens` and the call's input over `minArgumentTokens`, except items already evicted, the latest
 * plan call (the agent's own memory of what is left) and, with `keepFilesInUse`, the latest text of a file a tool
 * call after the range names. A call whose result lies outside the range is left whole and the next plan resumes
 * there. `freed` assumes about 40 tokens per tombstone. Pure.
 */
export function planBatch(
  history: readonly HistoryItem[],
  from: number,
  to: number,
  options: BatchOptions,
  tokensOf: (item: HistoryItem) => number,
): PlannedBatch {
  const results = new Map<string, number>();
  for (let position = from; position < to; position++) {
    const item = history[position];
    if (item?.kind === 'tool-result') results.set(item.callId, position);
  }
  // The latest plan is the agent's own memory of what is left: it stays.
  let latestPlan = -1;
  for (let position = history.length - 1; position >= 0 && latestPlan === -1; position--) {
    const item = history[position];
    if (item?.kind === 'tool-call' && planOf(item)) latestPlan = position;
  }
  const kept = options.keepFilesInUse ? inUseFileContent(history, to) : new Set<number>();
  const steps: EvictionStep[] = [];
  let freed = 0;
  let resumeAt = to;
  for (let position = from; position < to; position++) {
    const item = history[position];
    if (item?.kind !== 'tool-call') continue;
    const resultPosition = results.get(item.callId);
    if (resultPosition === undefined) {
      // A call whose result is not in the completed range: the pair is left whole, and looked at again later.
      resumeAt = Math.min(resumeAt, position);
      continue;
    }
    const result = history[resultPosition];
    if (item.archivedTo === undefined && position !== latestPlan && !kept.has(position)) {
      const size = tokensOf(item);
      if (size > options.minArgumentTokens) {
        steps.push({
          position,
          itemId: item.id,
          kind: 'tool-call',
          field: 'input',
          original: originalOf(item),
        });
        freed += size - TOMBSTONE_TOKENS_ESTIMATE;
      }
    }
    if (
      result?.kind === 'tool-result' &&
      result.archivedTo === undefined &&
      !kept.has(resultPosition) &&
      tokensOf(result) > options.minResultTokens
    ) {
      steps.push({
        position: resultPosition,
        itemId: result.id,
        kind: 'tool-result',
        field: 'content',
        original: originalOf(result),
      });
      freed += tokensOf(result) - TOMBSTONE_TOKENS_ESTIMATE;
    }
  }
  steps.sort((a, b) => a.position - b.position);
  return { steps, freed: Math.max(0, freed), resumeAt };
}

/**
 * Positions of the latest full text (a read's result, a write's input) of each file a tool call after the
 * completed range names: the open sub-task is already using them.
 */
function inUseFileContent(history: readonly HistoryItem[], to: number): Set<number> {
  const inUse = new Set<string>();
  for (let position = to; position < history.length; position++) {
    const item = history[position];
    if (item?.kind === 'tool-call') {
      const path = pathOf(item);
      if (path) inUse.add(path);
    }
  }
  const kept = new Set<number>();
  if (inUse.size === 0) return kept;
  const latest = new Map<string, number>();
  const calls = new Map<string, ToolCallItem>();
  for (let position = 0; position < to; position++) {
    const item = history[position];
    if (item?.kind === 'tool-call') {
      calls.set(item.callId, item);
      const path = pathOf(item);
      // A write's input is the file's whole text; an edit's is only a change to it.
      if (path && inUse.has(path) && WRITE_TOOLS.test(item.name)) latest.set(path, position);
    } else if (item?.kind === 'tool-result') {
      const caller = calls.get(item.callId);
      const path = caller && READ_TOOLS.test(caller.name) ? pathOf(caller) : undefined;
      if (path && inUse.has(path)) latest.set(path, position);
    }
  }
  for (const position of latest.values()) kept.add(position);
  return kept;
}

/** Tools that change a file (their call names it): an earlier read of it is superseded. */
const CHANGE_TOOLS =
  /^(?:write|write_file|create_file|edit|multiedit|notebookedit|str_replace_based_edit_tool)$/i;

/** A read of the whole file (no offset, no limit, no range). */
function wholeRead(item: ToolCallItem): boolean {
  const input = inputObjectOf(item);
  return (
    READ_TOOLS.test(item.name) &&
    input !== undefined &&
    ['offset', 'limit', 'view_range', 'line_range'].every((key) => input[key] === undefined)
  );
}

/**
 * Positions of superseded tool results: the result of a call repeated later (same tool, same arguments), or of a read
 * of a file read again in whole, written or edited since. Left out: results already evicted and, with
 * `keepFilesInUse`, the latest read of each file a call of the open sub-task (from `openFrom` on) writes or edits —
 * what is being worked on. Pure.
 */
export function supersededResults(
  history: readonly HistoryItem[],
  openFrom: number,
  keepFilesInUse: boolean,
): number[] {
  const resultAt = new Map<string, number>();
  const calls = new Map<string, ToolCallItem>();
  const latestRead = new Map<string, number>();
  const changedInOpen = new Set<string>();
  for (let position = 0; position < history.length; position++) {
    const item = history[position];
    if (item?.kind === 'tool-call') {
      calls.set(item.callId, item);
      const path = pathOf(item);
      if (path !== undefined && position >= openFrom && CHANGE_TOOLS.test(item.name)) changedInOpen.add(path);
    } else if (item?.kind === 'tool-result') {
      resultAt.set(item.callId, position);
      const caller = calls.get(item.callId);
      const path = caller && READ_TOOLS.test(caller.name) ? pathOf(caller) : undefined;
      if (path !== undefined) latestRead.set(path, position);
    }
  }
  const kept = new Set<number>();
  if (keepFilesInUse) for (const path of changedInOpen) kept.add(latestRead.get(path) ?? -1);
  // Scanning backwards: what a later call repeats, reads whole or changes.
  const seenCalls = new Set<string>();
  const seenPaths = new Set<string>();
  const stale: number[] = [];
  for (let position = history.length - 1; position >= 0; position--) {
    const item = history[position];
    if (item?.kind !== 'tool-call') continue;
    const key = `${item.name}\u0000${JSON.stringify(item.input ?? null)}`;
    const path = pathOf(item);
    const result = resultAt.get(item.callId);
    const superseded =
      seenCalls.has(key) || (path !== undefined && READ_TOOLS.test(item.name) && seenPaths.has(path));
    if (superseded && result !== undefined && !kept.has(result)) {
      const held = history[result];
      if (held?.kind === 'tool-result' && held.archivedTo === undefined) stale.push(result);
    }
    if (item.archivedTo === undefined) seenCalls.add(key);
    if (path !== undefined && (wholeRead(item) || CHANGE_TOOLS.test(item.name))) seenPaths.add(path);
  }
  return stale.sort((a, b) => a - b);
}
