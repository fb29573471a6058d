import type { HistoryItem } from './history-item.js';
import { pathOf } from './plan-batch.js';
import { commandOf } from './sub-task-boundary.js';

/** What a tombstone says of the item it replaces. */
export interface EvictionTombstoneInput {
  /** A result's content or a call's input was evicted. */
  kind: 'tool-result' | 'tool-call';
  /** The call the item belongs to (its tool and the file or command it named), when known. */
  call: HistoryItem | undefined;
  /** Tokens of the original. */
  tokens: number;
  /** The archive batch (`subtask-<n>`). */
  taskId: string;
  /** Why the sub-task ended, in a few words. */
  boundary: string;
  /** The record's id in the archive. */
  itemId: string;
  /** Where the archive is. */
  archive: string;
}

/** What an evicted item was, in a few words: the tool and the file or command it named. */
function describeEvictedCall(call: HistoryItem | undefined): string {
  if (call?.kind !== 'tool-call') return 'tool output';
  const target = pathOf(call) ?? commandOf(call);
  const short = target.length > 80 ? `${target.slice(0, 77)}...` : target;
  return short === '' || short === '{}' ? call.name : `${call.name} ${short}`;
}

/**
 * The text that takes an evicted item's place in the requests the proxy sends upstream. Kept in the compaction core
 * so that the what-if can size this same text; today it still sizes `tombstoneText` (archive-sink.ts), shorter.
 */
export function evictionTombstone(input: EvictionTombstoneInput): string {
  const what = `${input.kind === 'tool-result' ? 'result of' : 'input of'} ${describeEvictedCall(input.call)}`;
  return `[barometer evicted this ${what} (${input.tokens} tokens) when sub-task ${input.taskId} ended (${input.boundary}). The original is record "${input.itemId}" in ${input.archive}: open that file with your Read tool if you need it.]`;
}
