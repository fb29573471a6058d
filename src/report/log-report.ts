import type { HealthLevel } from '../health/health-level.js';

/** One API call of a log, reduced to what the report's views add up. */
export interface ReportCall {
  /** ISO 8601 time the log recorded the call. */
  time: string;
  /** The call's model ('unknown' when the log names none). */
  model: string;
  /** Prompt tokens neither read from nor written to the cache. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** US dollars at the model's price; null when the price (or a cache price it needs) is unknown. */
  costUsd: number | null;
  /** The whole prompt (input + cache read + cache write); null when the log has no usage for the call. */
  promptTokens: number | null;
  /** Context health of the prompt against the model's thresholds as the agent runs it (seed 003). */
  health: HealthLevel;
}

/** A compaction the log records. */
export interface ReportCompaction {
  time: string;
  /** The agent's own ('auto', Codex's mid-turn compactions, OpenHands' condenser) or the user's ('manual'). */
  kind: 'auto' | 'manual';
}

/** barometer's what-if on one session: what its eviction policy would have saved. */
export interface ReportWhatIf {
  savedPromptTokens: number;
  /** Null when a call's price is unknown. */
  savedCostUsd: number | null;
  compactionsAvoided: number;
}

/** What one log file contributes to a report; cached per file by path, size and modification time. */
export interface LogReport {
  path: string;
  /** The agent that wrote it (the log format). */
  agent: string;
  project: string;
  session: string;
  calls: ReportCall[];
  compactions: ReportCompaction[];
  /**
   * The what-if of barometer's policy on the session, null when it was not asked for or cannot run on this log
   * (the agent's log holds no messages, or the history cannot be rebuilt): `whatIfProblem` says which.
   */
  whatIf: ReportWhatIf | null;
  whatIfProblem?: string;
}
