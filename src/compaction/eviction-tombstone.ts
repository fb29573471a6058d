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
  /** What ended the sub-task: the boundary's kind (`commit`, `task-completed`, …), never its detail. */
  boundary: string;
  /** The record's id in the archive. */
  itemId: string;
  /** Where the archive is. */
  archive: string;
}

/**
 * The longest file or command a tombstone names. Enough for a path's last folders and name or a command's verb and
 * object; the rest is in the archive record. Every character is paid on every later call of the session (a tombstone
 * stays in the prompt), so a tombstone is kept to what the agent needs to decide whether to read the original.
 */
const TARGET_CHARS = 60;

/** What an evicted item was, in a few words: the tool and the file or command it named. */
function describeEvictedCall(call: HistoryItem | undefined): string {
  if (call?.kind !== 'tool-call') return 'tool output';
  const target = pathOf(call) ?? commandOf(call);
  const short = target.length > TARGET_CHARS ? `${target.slice(0, TARGET_CHARS - 3)}...` : target;
  return short === '' || short === '{}' ? call.name : `${call.name} ${short}`;
}

/**
 * The text that takes an evicted item's place in the requests the proxy sends upstream, and that the what-if sizes:
 * the one tombstone of both (src/proxy/proxy-sessions.ts, src/whatif/simulate-what-if.ts).
 *
 * The archive is named by its absolute path: Claude Code's Read tool takes absolute paths only and does not expand
 * `~` (docs/rules.md, "Tombstones"); `barometer mcp`'s read_archive resolves the same text.
 */
export function evictionTombstone(input: EvictionTombstoneInput): string {
  const what = `${input.kind === 'tool-result' ? 'the result of' : 'the input of'} ${describeEvictedCall(input.call)}`;
  return `[barometer evicted ${what} (${input.tokens} tokens) when ${input.taskId} ended (${input.boundary}). Original: record "${input.itemId}" in ${input.archive}]`;
}
