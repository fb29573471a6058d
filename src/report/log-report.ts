import type { HealthLevel } from '../health/health-level.js';
import type { UsageWindow } from '../quota/windows/usage-window.js';

/** One API call of a log, as the report reads it (before its calls are added up into slots). */
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
  /** Whether `costUsd` is at a family estimate's price (a model the registry does not list). */
  estimated: boolean;
  /** The whole prompt (input + cache read + cache write); null when the log has no usage for the call. */
  promptTokens: number | null;
  /** Context health of the prompt against the model's thresholds as the agent runs it (seed 003). */
  health: HealthLevel;
  /**
   * What ccusage leaves out of a Claude Code call logged over several streamed lines (it counts the first line, this
   * report the last): the output tokens after the first line, and the cost of the call less its cost at the first
   * line's usage. 0 for a call logged once, and for other agents.
   */
  streamedOutputTokens: number;
  streamedCostUsd: number;
}

/**
 * The calls of one model in one quarter of an hour (UTC) of a log, added up: what a log keeps for the report's views,
 * and what the cache holds. A slot never straddles a day in any time zone: a day starts at a local midnight, and
 * every time zone's offset from UTC is a whole number of quarter hours (report-slots.test.ts checks it for every zone the
 * runtime knows), so each call counts on the day it would count on alone.
 */
export interface ReportSlot {
  /** ISO 8601 start of the quarter hour, UTC (`2026-01-02T10:15:00.000Z`). */
  time: string;
  /** The times of the slot's first and last calls (the blocks view reads the gaps between calls exactly). */
  firstAt: string;
  lastAt: string;
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** US dollars of the calls with a known price. */
  costUsd: number;
  /** The part of `costUsd` priced at a family estimate. */
  estimatedCostUsd: number;
  /** Calls whose cost is unknown (not in `costUsd`). */
  unpricedCalls: number;
  /** The largest prompt of the slot's calls; null when none has usage. */
  peakPromptTokens: number | null;
  /** Calls whose prompt was in caution, and in critical. */
  cautionCalls: number;
  criticalCalls: number;
  /** Sums of the calls' `streamedOutputTokens` and `streamedCostUsd`. */
  streamedOutputTokens: number;
  streamedCostUsd: number;
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
  /** Its calls, added up by quarter hour and model (see `ReportSlot`). */
  slots: ReportSlot[];
  compactions: ReportCompaction[];
  /**
   * The what-if of barometer's policy on the session, null when it was not asked for or cannot run on this log
   * (the agent's log holds no messages, or the history cannot be rebuilt): `whatIfProblem` says which.
   */
  whatIf: ReportWhatIf | null;
  whatIfProblem?: string;
  /**
   * The subscription windows the log records (Codex's `rate_limits`): each figure that differs from the one before of
   * the same window, oldest first. Absent when it records none.
   */
  windows?: UsageWindow[];
}
