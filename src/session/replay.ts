import { BarometerValidationError } from '../errors/validation.js';
import type { HealthLevel } from '../health/health-level.js';
import type { AgentName } from '../models/model-profile.js';
import type { PressureLevel } from '../pressure/types.js';
import { readSessionLog } from '../usage/read-session-log.js';
import type { LogFormat, SessionLog } from '../usage/session-log.js';
import { Session, type SessionDependencies } from './session.js';
import type { SessionOptions } from './session-options.js';
import type { SessionEvent, VerdictAction, VerdictReason } from './session-schemas.js';
import { signalsOf } from './session-signals.js';
import { createSessionState, type SessionState, withModel } from './session-state.js';
import { recordCompactionStep, type SessionUpdate, stepSession } from './step-session.js';

/** The agent whose effective window applies to each log format. */
const AGENT_OF_FORMAT: Readonly<Record<LogFormat, AgentName>> = {
  'claude-code': 'claude-code',
  codex: 'codex',
  'gemini-cli': 'gemini-cli',
  openhands: 'openhands',
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
}

export interface ReplayCompaction {
  timestamp: string;
  trigger: string;
  preTokens: number | null;
  beforeCallIndex: number;
}

/** What `barometer replay --json` prints and `POST /api/v1/replay` answers. */
export interface ReplayResult {
  format: LogFormat;
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
  };
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
  const contextWindow = options.contextWindow ?? log.contextWindow;
  return {
    model,
    agent: AGENT_OF_FORMAT[log.format],
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(options.id === undefined ? {} : { id: options.id }),
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
  return {
    format: log.format,
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
    },
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
  return replaySessionLog(log, options);
}
