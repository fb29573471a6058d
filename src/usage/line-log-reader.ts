import type { LogFormat, SessionCall, SessionLog } from './session-log.js';
import type { SessionLogBuilder } from './session-log-builder.js';

/**
 * A session-log reader that takes one line at a time: the whole-file readers (`readClaudeCodeLog`, …) feed it
 * every line of a text, and `barometer watch` feeds it the lines of a log as the agent appends them. Both see the
 * same calls and compactions, in the same order.
 */
export interface LineLogReader {
  readonly format: LogFormat;
  /** Reads one complete line (without its newline); `lineNumber` is 1-based. */
  line(text: string, lineNumber: number): void;
  /** The calls read so far, in log order (a call's usage may still change while its id is repeated). */
  readonly calls: readonly SessionCall[];
  /** The builder the compactions (and the stated window) are collected in. */
  readonly builder: SessionLogBuilder;
  /**
   * An excerpt of the user's first request in what was read, where the reader finds one elsewhere than in its
   * builder (a sub-agent's own lines); else the builder's `firstRequest`.
   */
  readonly firstRequest?: string | undefined;
  /** The log as read so far, with what the readers fill in at the end (model, compaction figures). */
  build(): SessionLog;
}
