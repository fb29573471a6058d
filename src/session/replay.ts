import { BarometerValidationError } from '../errors/validation.js';
import type { HealthLevel } from '../health/health-level.js';
import type { AgentName } from '../models/model-profile.js';
import type { PressureLevel } from '../pressure/types.js';
import { attachSubagentLogs, type SubagentFile } from '../usage/attach-subagent-logs.js';
import { readSessionLog } from '../usage/read-session-log.js';
import type { LogFormat, SessionLog } from '../usage/session-log.js';
import type { WhatIfReport } from '../whatif/simulate-what-if.js';
import { recordCompactionStep } from './compaction-step.js';
import { Session, type SessionDependencies } from './session.js';
import type { SessionOptions } from './session-options.js';
import type { SessionEvent, VerdictAction, VerdictReason, WindowForecastView } from './session-schemas.js';
import { signalsOf } from './session-signals.js';
import { createSessionState, type SessionState, withModel } from './session-state.js';
import { type SessionUpdate, stepSession } from './step-session.js';

/** The agent whose effective window applies to each log format. */
const AGENT_OF_FORMAT: Readonly<Record<LogFormat, AgentName>> = {
  'claude-code': 'claude-code',
  codex: 'codex',
  'gemini-cli': 'gemini-cli',
  openhands: 'openhands',
  pi: 'pi',
};

export interface ReplayOptions {
  format?: LogFormat | 'auto';
  /** Overrides the model the log names. */
  model?: string;
  /** Overrides the window: the log's own (Codex) or the agent's effective window of the model. */
  contextWindow?: number;
  /** A loaded config file whose model entries override the registry. */
  config?: import('../models/barometer-config.js').BarometerConfig;
  /** Called as the log is read (lines) and replayed (calls). */
  onProgress?: (phase: 'read' | 'replay', done: number, total: number) => void;
  /**
   * The drift measured for a call (0–100), fed to the regulator with its usage; null or undefined: not measured.
   * The what-if replay measures it on the history the log holds.
   */
  driftOf?: (callIndex: number) => number | null | undefined;
  /** The sub-agents' own transcripts beside a Claude Code session (`<session>/subagents/*.jsonl`): its children. */
  subagents?: readonly SubagentFile[];
}

export interface ReplayCall {
  index: number;
  timestamp: string;
  promptTokens: number | null;
  completionTokens: number | null;
  health: HealthLevel;
  regulatorLevel: PressureLevel;
  action: VerdictAction;
  reasons: VerdictReason[];
  /** The model of this call, and the window its verdict was judged against (a log may switch models). */
  model: string;
  contextWindow: number | null;
  /** The log records a task completed by this call (Codex task_complete, a Claude Code TodoWrite item). */
  taskCompleted: boolean;
  /** The call's cost in USD at its model's price; null when the price is unknown. */
  costUsd: number | null;
  /** With --what-if: the share of the prompt held by stale content, as measured on the log's history. */
  driftPercent?: number | null;
  /** With --what-if: the recorded prompt as the calibrated reconstruction of the history estimates it. */
  reconstructedPromptTokens?: number | null;
  /** With --what-if: the prompt barometer's policy would have sent. */
  whatIfPromptTokens?: number | null;
  /** With --what-if: that call's cost with the prompt cache, at the same price. */
  whatIfCostUsd?: number | null;
  /**
   * The subscription windows as the session saw them at this call (the log's figures, Codex's `rate_limits`), each
   * with its burn and forecast; absent when the log records none.
   */
  windows?: WindowForecastView[];
}

export interface ReplayCompaction {
  timestamp: string;
  trigger: string;
  preTokens: number | null;
  beforeCallIndex: number;
}

/** A session's calls, tokens and cost: its own, or with every sub-agent's (`summary.total`). */
export interface ReplayTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** USD of the calls that could be priced, each at its own model; null when none could. */
  costUsd: number | null;
  unpricedCalls: number;
}

/** What `barometer replay --json` prints and `POST /api/v1/replay` answers. */
export interface ReplayResult {
  format: LogFormat;
  /** The session's id where the log names one (see `SessionLog.id`). */
  id?: string;
  /** A sub-agent's session: the id of its parent. */
  parentId?: string;
  /** The file a child was read from, when it is not its parent's (a `subagents/` file). */
  file?: string;
  /** 1-based lines of the log that could not be parsed (not JSON, or a record without a time), skipped. */
  skippedLines: number[];
  /** 1-based lines that began with a broken fragment: the fragment was dropped, the record after it read. */
  recoveredLines: number[];
  model: string;
  contextWindow: number | null;
  calls: ReplayCall[];
  compactions: ReplayCompaction[];
  summary: {
    calls: number;
    compactions: number;
    /** Calls the log marks as completing a task. */
    tasksCompleted: number;
    /** The session's cost in USD (the calls that could be priced), or null when none could. */
    costUsd: number | null;
    /** Calls without a known price (their cost is not in `costUsd`). */
    unpricedCalls: number;
    /** Share of the prompt tokens read from the cache, in percent. */
    cacheHitPercent: number | null;
    firstCompressCallIndex: number | null;
    peakPromptTokens: number | null;
    /** This session's own prompt and completion tokens (sub-agents' not included). */
    promptTokens: number;
    completionTokens: number;
    /** This session and every sub-agent session under it: their calls count in its cost and tokens. */
    total: ReplayTotals;
  };
  /** Sub-agent sessions (and the trajectories of an evaluation output), each replayed on its own (with its what-if). */
  children?: Array<ReplayResult & { whatIf?: Omit<WhatIfReport, 'calls'> }>;
}

/** A session's totals with its children's added. */
export function totalsWithChildren(own: ReplayTotals, children: readonly ReplayResult[]): ReplayTotals {
  const total = { ...own };
  for (const child of children) {
    const theirs = child.summary.total;
    total.calls += theirs.calls;
    total.promptTokens += theirs.promptTokens;
    total.completionTokens += theirs.completionTokens;
    total.unpricedCalls += theirs.unpricedCalls;
    if (theirs.costUsd !== null) total.costUsd = (total.costUsd ?? 0) + theirs.costUsd;
  }
  return total;
}

/** The options of the session a log replays into: the log's model and the agent's effective window. */
export function sessionOptionsForLog(
  log: SessionLog,
  options: Pick<ReplayOptions, 'model' | 'contextWindow'> & { id?: string },
): SessionOptions {
  const model = options.model ?? log.model;
  if (!model) {
    throw new BarometerValidationError([
      { field: 'model', value: undefined, message: 'the log names no model: give one (--model ID)' },
    ]);
  }
  // A window given for the replay is the session's own; the one the log states is what the agent reported.
  const { contextWindow } = options;
  const stated = contextWindow === undefined ? log.contextWindow : undefined;
  return {
    model,
    agent: AGENT_OF_FORMAT[log.format],
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(stated === undefined ? {} : { agentReported: { effectiveWindow: stated } }),
    ...(options.id === undefined ? {} : { id: options.id }),
    // Named as the live session would be: the agent's folder and the first request.
    ...(log.workingDirectory === undefined ? {} : { workingDirectory: log.workingDirectory.slice(0, 4096) }),
    ...(log.firstRequest === undefined ? {} : { title: log.firstRequest.slice(0, 200) }),
  };
}

/** Creates the session a log replays into: the log's model and the agent's effective window. */
export function sessionForLog(
  log: SessionLog,
  options: Pick<ReplayOptions, 'model' | 'contextWindow'> & { id?: string },
  dependencies: SessionDependencies = {},
): Session {
  return new Session(sessionOptionsForLog(log, options), {
    now: () => Date.parse(log.calls[0]?.timestamp ?? '1970-01-01T00:00:00Z'),
    ...dependencies,
  });
}

/** How a replay follows the models a log's calls name. */
export interface ModelSwitching {
  /** Judge each call against its own model's window. False when the caller forced a model. @default true */
  follow?: boolean;
  config?: import('../models/barometer-config.js').BarometerConfig;
}

/**
 * Feeds a log's calls to a session state in recorded time, telling it of each recorded compaction before the
 * call that follows it, and returns the final state. `onUpdate` sees every update with its compaction event.
 */
export function replayIntoState(
  initial: SessionState,
  log: SessionLog,
  onUpdate: (
    update: SessionUpdate,
    callIndex: number,
    compaction: SessionEvent | undefined,
    state: SessionState,
  ) => void,
  onProgress?: ReplayOptions['onProgress'],
  switching: ModelSwitching = {},
  driftOf?: ReplayOptions['driftOf'],
): SessionState {
  let state = initial;
  let nextCompaction = 0;
  const total = log.calls.length;
  for (let position = 0; position < total; position++) {
    const call = log.calls[position]!;
    const context = {
      now: Date.parse(call.timestamp),
      followModel: switching.follow !== false,
      ...(switching.config ? { config: switching.config } : {}),
    };
    let compactionEvent: SessionEvent | undefined;
    while (
      nextCompaction < log.compactions.length &&
      log.compactions[nextCompaction]!.beforeCallIndex <= call.index
    ) {
      const recorded = log.compactions[nextCompaction++]!;
      const after = recorded.postTokens ?? (call.usage.available ? call.usage.promptTokens : undefined);
      const before = recorded.preTokens ?? state.lastPrompt ?? undefined;
      const step = recordCompactionStep(
        state,
        {
          trigger: recorded.trigger,
          timestamp: recorded.timestamp,
          ...(before === undefined ? {} : { before }),
          // A log may record a "compaction" that left more than it found; the guards take it as no reduction.
          ...(after === undefined ? {} : { after: before === undefined ? after : Math.min(after, before) }),
        },
        context,
      );
      state = step.state;
      compactionEvent = step.event;
    }
    if (switching.follow !== false && call.model !== undefined && call.model !== state.model) {
      try {
        state = withModel(state, call.model, switching.config ? { config: switching.config } : {});
      } catch (error) {
        // A model the registry does not know keeps the window of the one before: better than stopping.
        if (!(error instanceof BarometerValidationError)) throw error;
      }
    }
    const drift = driftOf?.(call.index);
    const step = stepSession(
      state,
      {
        usage: call.usage,
        timestamp: call.timestamp,
        ...(call.taskCompleted ? { taskCompleted: true } : {}),
        ...(drift === null || drift === undefined ? {} : { driftPercent: drift }),
        ...(call.windows?.length ? { windows: call.windows } : {}),
      },
      context,
    );
    state = step.state;
    onUpdate(step.update, call.index, compactionEvent, state);
    if (onProgress && (position % 256 === 255 || position === total - 1))
      onProgress('replay', position + 1, total);
  }
  return state;
}

/** Replays a parsed log through a fresh Session and returns its timeline. */
export function replaySessionLog(log: SessionLog, options: ReplayOptions = {}): ReplayResult {
  const initial = createSessionState(sessionOptionsForLog(log, options), {
    now: () => Date.parse(log.calls[0]?.timestamp ?? '1970-01-01T00:00:00Z'),
    ...(options.config ? { config: options.config } : {}),
  });
  const calls: ReplayCall[] = [];
  let firstCompress: number | null = null;
  let peak: number | null = null;
  const final = replayIntoState(
    initial,
    log,
    (update, index, _compaction, state) => {
      const prompt = update.signals.lastPromptTokens;
      const call = log.calls[calls.length]!;
      const available = call.usage.available;
      if (available && prompt !== null && (peak === null || prompt > peak)) peak = prompt;
      if (
        firstCompress === null &&
        (update.verdict.action === 'compress' || update.verdict.action === 'terminate')
      ) {
        firstCompress = index;
      }
      calls.push({
        index,
        timestamp: call.timestamp,
        promptTokens: available ? call.usage.promptTokens : null,
        completionTokens: available ? call.usage.completionTokens : null,
        health: update.health.level,
        regulatorLevel: update.regulator.report.pressure.level,
        action: update.verdict.action,
        reasons: update.verdict.reasons,
        model: state.model,
        contextWindow: state.thresholds.limit,
        taskCompleted: call.taskCompleted === true,
        costUsd: update.costUsd,
        ...(update.signals.windows?.length ? { windows: update.signals.windows } : {}),
      });
    },
    options.onProgress,
    {
      follow: options.model === undefined,
      ...(options.config ? { config: options.config } : {}),
    },
    options.driftOf,
  );
  const signalsOfFinal = signalsOf(final);
  let promptTokens = 0;
  let completionTokens = 0;
  for (const call of calls) {
    promptTokens += call.promptTokens ?? 0;
    completionTokens += call.completionTokens ?? 0;
  }
  const own: ReplayTotals = {
    calls: calls.length,
    promptTokens,
    completionTokens,
    costUsd: signalsOfFinal.costUsd,
    unpricedCalls: final.spend?.unpricedCalls ?? 0,
  };
  const children = (log.children ?? []).map((child) =>
    replaySessionLog(child, { ...options, onProgress: undefined, driftOf: undefined }),
  );
  return {
    format: log.format,
    ...(log.id === undefined ? {} : { id: log.id }),
    ...(log.parentId === undefined ? {} : { parentId: log.parentId }),
    ...(log.file === undefined ? {} : { file: log.file }),
    skippedLines: log.skippedLines,
    recoveredLines: log.recoveredLines ?? [],
    model: initial.model,
    contextWindow: initial.thresholds.limit,
    calls,
    compactions: log.compactions.map((compaction) => ({
      timestamp: compaction.timestamp,
      trigger: compaction.trigger,
      preTokens: compaction.preTokens ?? null,
      beforeCallIndex: compaction.beforeCallIndex,
    })),
    summary: {
      calls: calls.length,
      compactions: log.compactions.length,
      tasksCompleted: calls.filter((call) => call.taskCompleted).length,
      costUsd: signalsOfFinal.costUsd,
      unpricedCalls: final.spend?.unpricedCalls ?? 0,
      cacheHitPercent: signalsOfFinal.cacheHitPercent,
      firstCompressCallIndex: firstCompress,
      peakPromptTokens: peak,
      promptTokens,
      completionTokens,
      total: totalsWithChildren(own, children),
    },
    ...(children.length > 0 ? { children } : {}),
  };
}

/** Reads a log's text (detecting its format) and replays it. */
export function replayLogText(text: string, options: ReplayOptions = {}): ReplayResult {
  const log = readSessionLog(text, {
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(options.onProgress
      ? { onProgress: (done: number, total: number) => options.onProgress?.('read', done, total) }
      : {}),
  });
  return replaySessionLog(
    options.subagents && options.subagents.length > 0 ? attachSubagentLogs(log, options.subagents) : log,
    options,
  );
}
