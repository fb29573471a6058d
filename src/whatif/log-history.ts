import type { HistoryItem } from '../compaction/history-item.js';
import { recoverRecord } from '../usage/session-log-builder.js';

/** One history item of a recorded session, with where the log holds it. */
export interface LogItem {
  item: HistoryItem;
  /** 1-based line of the log that holds the item (what the archive check re-reads). */
  line: number;
  /** The stretch of the session it belongs to: 0 until the agent's first compaction, then 1, … */
  segment: number;
  /**
   * Put in by the agent's own compaction (Claude Code's summary message, Codex's `replacement_history`): a
   * session that never compacted would not have it.
   */
  carried?: true;
  /**
   * Characters of the original text where the log redacts it (`[REDACTED_… len=N sha=…]`): the stated length,
   * summed over the item's redacted parts. Such an item is sized from this length, not from its placeholder.
   */
  redactedChars?: number;
  /** Reasoning the provider keeps server-side (Claude thinking blocks, OpenAI reasoning items). */
  reasoning?: true;
}

/** The usage of one call as the log records it, with the cache split the normalized record does not keep. */
export interface LogCallUsage {
  /** The whole prompt: uncached + cache reads + cache writes. */
  promptTokens: number;
  cacheReadTokens: number;
  /** Cache writes at the 5-minute rate (Anthropic's default, `ephemeral_5m_input_tokens`). */
  cacheWrite5mTokens: number;
  /** Cache writes at the 1-hour rate (`ephemeral_1h_input_tokens`). */
  cacheWrite1hTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

/** Something the log records besides the messages that marks the end of a piece of work. */
export type LogSignal = 'task-complete' | 'user-request';

/** One API call of the recorded session and the history it was sent. */
export interface LogCall {
  /** Position among the session's calls, as `readSessionLog` numbers them. */
  index: number;
  /** The provider's message id, where the log keeps one (Claude Code). */
  id?: string;
  timestamp: string;
  model?: string;
  segment: number;
  /** Items of the log history logged before this call's output: its prompt holds those of its segment. */
  itemsBefore: number;
  usage: LogCallUsage | null;
  /** Signals the log recorded since the previous call (a Codex `task_complete`, a `user_message`). */
  signals: LogSignal[];
}

/**
 * How a segment after the first began: `manual` when the user asked for the compaction (Claude Code's `/compact`,
 * `compactMetadata.trigger: "manual"`; Codex's `/compact`, a compaction task of its own), `auto` when the agent
 * compacted on its own.
 */
export interface LogSegmentStart {
  trigger: 'auto' | 'manual';
  /** 1-based line of the log that records the compaction. */
  line: number;
}

/** A recorded session as the history the agent sent, call by call. */
export interface LogHistory {
  format: 'claude-code' | 'codex' | 'pi' | 'openhands';
  items: LogItem[];
  calls: LogCall[];
  /** How each segment after the first began (index 0 is segment 1). */
  segmentStarts: LogSegmentStart[];
  /**
   * The log's lines (without their line ends), for re-reading an item where it was logged; for an OpenHands
   * trajectory, its events, one JSON text each (an item's `line` is then its event's 1-based position).
   */
  lines: readonly string[];
}

const REDACTED = /^\[REDACTED_[A-Z_]+ len=(\d+) sha=[0-9a-f]+\]$/;

/** The length a redacted text had (`[REDACTED_TEXT len=N sha=…]` → N), or undefined for a text as it was. */
export function redactedLength(text: string): number | undefined {
  if (text.length > 200 || !text.startsWith('[REDACTED_')) return undefined;
  const match = REDACTED.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The log's lines without their line ends (a final newline does not start another line). */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * One JSON line, or undefined when it is not a JSON object; a line that starts with a broken fragment gives the record
 * after it, as the usage readers read it (`recoverRecord`).
 */
export function parseObjectLine(line: string): Record<string, unknown> | undefined {
  const trimmed = line.trim();
  if (trimmed === '' || trimmed[0] !== '{') return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return recoverRecord(trimmed);
  }
}
