import {
  evaluateTriggersResolved,
  type ResolvedTriggerConfig,
  recordCompactionResolved,
  resolveTriggerConfig,
  type TriggerDecision,
} from '../compaction/evaluate-triggers.js';
import { type QuotaStanding, quotaStandings, type ReportedDimension } from '../compaction/quota-runway.js';
import { LOW_THINKING_BUDGET, thinkingBudgetResolved } from '../compaction/thinking-budget.js';
import {
  addTokens,
  addTokensInPlace,
  emptyTokenWindow,
  type TokenWindowSpec,
  windowTokens,
} from '../compaction/token-window.js';
import { BarometerValidationError } from '../errors/validation.js';
import type { HealthLevel } from '../health/health-level.js';
import { cautionReminderText, criticalReminderText } from '../health/health-reminder.js';
import type { HealthThresholds } from '../health/health-thresholds.js';
import { type StepHealthOptions, stepHealth } from '../health/step-health.js';
import { contextPressure } from '../kv/context-pressure.js';
import type { AgentProfile, SystemMode } from '../pressure/parameters.js';
import { serverCompaction } from '../usage/normalize-anthropic.js';
import { quotaCounts, quotaRulesOf } from '../usage/quota-count.js';
import { readRateLimitHeaders } from '../usage/rate-limit-headers.js';
import { costOfUsage } from '../usage/usage-cost.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { isoTime } from './iso-time.js';
import { type PoolStanding, poolReason } from './pool-reason.js';
import { regulatorView, type SessionRegulatorView } from './regulator-view.js';
import { DEFAULT_BURN_WINDOW_SECONDS, type UsageUpdate } from './session-options.js';
import type {
  SessionEvent,
  SessionHealth,
  SessionSignals,
  Verdict,
  VerdictReason,
} from './session-schemas.js';
import { BURN_BUCKETS, QUOTA_WINDOW, type SessionState } from './session-state.js';
import { combineVerdict, regulatorReason } from './verdict.js';

const MINUTE_MS = 60_000;
/** The largest time a JavaScript Date can hold: ±8.64e15 ms (ECMA-262 "Time Values and Time Range"). */
export const MAX_TIME_MS = 8.64e15;
/** The regulator's mode and profile for sessions: its production baseline and the seed's own (balanced) rules. */
const REGULATOR_SETTINGS: { systemMode: SystemMode; agentProfile: AgentProfile } = Object.freeze({
  systemMode: 'production',
  agentProfile: 'balanced',
});

/** What one update answers. */
export interface SessionUpdate {
  /** When the generation happened, epoch ms. */
  at: number;
  /** This call's cost in USD at the model's price, or null when the price (or the usage) is unknown. */
  costUsd: number | null;
  verdict: Verdict;
  health: SessionHealth;
  signals: SessionSignals;
  regulator: SessionRegulatorView;
  trigger: TriggerDecision;
  events: SessionEvent[];
}

/** What a step reads from outside the state. */
export interface StepContext {
  /** The clock's time (epoch ms), used only when the update carries no time of its own. */
  now: number;
  /**
   * The standing of the session's pool (`options.poolId`), read just before the step; null when the pool does
   * not exist. Ignored for a session outside any pool.
   */
  pool?: PoolStanding | null;
  /**
   * The caller owns the given state and drops it for the one returned (a memory store): the step then adds to
   * the state's token windows in place instead of copying their buckets. The state is read for everything else
   * as in a pure step, and nothing is written before the update's time is known good.
   */
  inPlace?: boolean;
}

/** A compaction as a caller reports it: the context size before (default: the last prompt) and after. */
export interface CompactionReport {
  before?: number;
  after?: number;
  trigger?: string;
  timestamp?: number | string;
}

// Derived settings are computed once per options object, not on every update: a state read back from a store
// gets a fresh options object and pays for one resolution. Sessions whose options give the same settings share one
// frozen copy (a few hundred bytes a session otherwise; bench/replay.ts's session memory), up to SHARED_SETTINGS
// kinds; beyond that each keeps its own.
const derived = new WeakMap<object, Settings>();
const sharedSettings = new Map<string, Settings>();
const sharedHealthOptions = new Map<string, StepHealthOptions>();
const SHARED_SETTINGS = 256;

interface Settings {
  triggers: ResolvedTriggerConfig;
  burn: TokenWindowSpec;
}

function settingsOf(state: SessionState): Settings {
  let settings = derived.get(state.options);
  if (!settings) {
    const triggers = state.options.triggers;
    const key = `${state.profile.tpmLimit ?? ''} ${state.options.burnWindowSeconds ?? ''} ${triggers === undefined ? '' : JSON.stringify(triggers)}`;
    settings = sharedSettings.get(key);
    if (!settings) {
      settings = Object.freeze({
        triggers: Object.freeze(
          resolveTriggerConfig({ ...(triggers ?? {}), tpmLimit: state.profile.tpmLimit ?? null }),
        ),
        burn: Object.freeze({
          windowMs: (state.options.burnWindowSeconds ?? DEFAULT_BURN_WINDOW_SECONDS) * 1000,
          buckets: BURN_BUCKETS,
        }),
      });
      if (sharedSettings.size < SHARED_SETTINGS) sharedSettings.set(key, settings);
    }
    derived.set(state.options, settings);
  }
  return settings;
}

function thresholdsOf(state: SessionState): HealthThresholds {
  const t = state.thresholds;
  return { limit: t.limit ?? undefined, optimal: t.optimal, critical: t.critical ?? undefined };
}

/** The health model's options of a state, made once per thresholds and options objects, not per update. */
const healthOptions = new WeakMap<object, { options: SessionState['options']; value: StepHealthOptions }>();
function healthOptionsOf(state: SessionState): StepHealthOptions {
  const cached = healthOptions.get(state.thresholds);
  if (cached !== undefined && cached.options === state.options) return cached.value;
  const t = state.thresholds;
  const cadence = state.options.cautionCadence;
  const key = `${t.limit} ${t.optimal} ${t.critical} ${cadence ?? ''}`;
  let value = sharedHealthOptions.get(key);
  if (value === undefined) {
    // The session writes the reminder's text itself, from its state, when it is read (reminderText).
    value = Object.freeze({
      thresholds: Object.freeze(thresholdsOf(state)),
      reminderText: false,
      ...(cadence === undefined ? {} : { cautionCadence: cadence }),
    });
    if (sharedHealthOptions.size < SHARED_SETTINGS) sharedHealthOptions.set(key, value);
  }
  healthOptions.set(state.thresholds, { options: state.options, value });
  return value;
}

/**
 * A time as epoch ms: a number as is, an ISO text parsed. A time JavaScript cannot represent (beyond
 * ±8.64e15 ms) or text that is not a time is refused, naming the field, before anything is applied.
 * @throws BarometerValidationError
 */
export function toMillis(value: number | string, field = 'timestamp'): number {
  const parsed = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(parsed) || Math.abs(parsed) > MAX_TIME_MS) {
    throw new BarometerValidationError([
      {
        field,
        value,
        message:
          typeof value === 'number'
            ? `must be epoch milliseconds a date can hold (at most ${MAX_TIME_MS})`
            : 'must be an ISO 8601 time or epoch milliseconds',
        ...(typeof value === 'number' ? { allowed: { min: -MAX_TIME_MS, max: MAX_TIME_MS } } : {}),
      },
    ]);
  }
  return parsed;
}

function timeOf(update: UsageUpdate, now: number): number {
  if (update.timestamp !== undefined) return toMillis(update.timestamp);
  if (update.usage.timestamp !== undefined) return toMillis(update.usage.timestamp, 'usage.timestamp');
  return now;
}

/** The signals of a state as of `at` (the last update's time by default). */
export function signalsOf(state: SessionState, at: number = state.lastAt ?? state.createdAt): SessionSignals {
  const window = state.thresholds.limit;
  const settings = settingsOf(state);
  const burnMinutes = settings.burn.windowMs / MINUTE_MS;
  const tokensLastMinute = windowTokens(state.minute, QUOTA_WINDOW, at);
  const tpmLimit = state.profile.tpmLimit ?? null;
  const quotas = quotaStandingsOf(state, at);
  const spend = state.spend;
  const tokensStanding = quotas.find((standing) => standing.dimension === 'tokens');
  const tokenBudget = state.options.tokenBudget ?? null;
  return {
    lastPromptTokens: state.lastPrompt,
    lastCompletionTokens: state.lastCompletion,
    window,
    percentOfWindow:
      state.lastPrompt === null || window === null
        ? null
        : Math.round((state.lastPrompt / window) * 1000) / 10,
    burnRateTokensPerMin: Math.round(windowTokens(state.burn, settings.burn, at) / burnMinutes),
    tokensLastMinute,
    tpmLimit: tokensStanding?.limit ?? tpmLimit,
    tpmLeft: tokensStanding
      ? tokensStanding.left
      : tpmLimit === null
        ? null
        : Math.max(0, tpmLimit - tokensLastMinute),
    quotas,
    costUsd: spend && spend.pricedCalls > 0 ? Math.round(spend.costUsd * 1e6) / 1e6 : null,
    cacheHitPercent:
      spend && spend.promptTokens > 0
        ? Math.round((spend.cachedReadTokens / spend.promptTokens) * 1000) / 10
        : null,
    tokenBudget,
    budgetUsed: tokenBudget === null ? null : state.budgetUsed,
    budgetRemaining: tokenBudget === null ? null : Math.max(0, tokenBudget - state.budgetUsed),
    ageSeconds: state.firstAt === null ? 0 : Math.max(0, Math.round((at - state.firstAt) / 1000)),
    driftPercent: state.drift,
  };
}

/**
 * The reminder's text, kept with the reminder it belongs to: a state keeps its reminder object from one update
 * to the next until the reminder is added or updated, and the text (about 500 characters) is written again only
 * when the prompt or the thresholds it quotes changed.
 */
const reminderTexts = new WeakMap<
  object,
  { thresholds: SessionState['thresholds']; promptTokens: number; text: string }
>();

function reminderText(state: SessionState, stateReminder: NonNullable<SessionState['reminder']>): string {
  // The reminder speaks of the latest prompt, so that its figure and the session's own always agree.
  const promptTokens = state.lastPrompt ?? stateReminder.prompt;
  const cached = reminderTexts.get(stateReminder);
  if (cached !== undefined && cached.thresholds === state.thresholds && cached.promptTokens === promptTokens)
    return cached.text;
  const figures = { promptTokens, thresholds: thresholdsOf(state) };
  const text =
    stateReminder.countdown === null
      ? cautionReminderText(figures)
      : criticalReminderText({ ...figures, countdown: stateReminder.countdown });
  reminderTexts.set(stateReminder, { thresholds: state.thresholds, promptTokens, text });
  return text;
}

/** The health part of a state: level, thresholds, the owned reminder (its text written out) and the countdown. */
export function healthOf(state: SessionState): SessionHealth {
  const t = state.thresholds;
  let reminder: SessionHealth['reminder'] = null;
  if (state.reminder !== null) {
    reminder = { id: 'context_health', text: reminderText(state, state.reminder) };
  }
  return {
    level: state.health.level,
    promptTokens: state.lastPrompt,
    optimal: t.optimal,
    critical: t.critical,
    limit: t.limit,
    reminder,
    countdown: state.health.countdown,
  };
}

/**
 * One generation's usage applied to a session's state: every model judges it (context health, the regulator,
 * the KV budget, the compaction triggers, the budget) into one verdict. Pure: the given state is untouched, the
 * new one is returned with the answer; time comes from the update, or `context.now`. Nothing here validates
 * with a schema: the boundary did.
 * @throws BarometerValidationError for a time a date cannot hold; nothing is applied then
 */
export function stepSession(
  state: SessionState,
  update: UsageUpdate,
  context: StepContext,
): { state: SessionState; update: SessionUpdate } {
  // Without a time of its own, an update happens now, but never before the session's last one: instances on one
  // Redis apply a session's updates in turn, and a clock a little behind another's must not put a point back.
  const at = timeOf(update, state.lastAt === null ? context.now : Math.max(context.now, state.lastAt));
  const usage: UsageRecord = update.usage;
  const settings = settingsOf(state);
  const events: SessionEvent[] = [];
  const next = nextState(state);
  next.generations = state.generations + 1;
  next.firstAt = state.firstAt ?? at;
  next.lastAt = at;
  next.drift = update.driftPercent ?? state.drift;
  // A response that compacted its own context server-side (Anthropic `iterations[]`): the session records the
  // compaction (a marker, the loop guards) and counts every pass's tokens, as the provider bills them.
  const server = serverCompaction(usage);
  if (server) {
    next.triggers = recordCompactionResolved(
      state.triggers,
      {
        before: server.contextBeforeTokens,
        after: Math.min(server.contextAfterTokens, server.contextBeforeTokens),
      },
      settings.triggers,
    );
    events.push({
      type: 'compaction',
      at: isoTime(at),
      trigger: 'anthropic-server',
      before: server.contextBeforeTokens,
      after: server.contextAfterTokens,
    });
  }
  // Every call counts against the quotas as its provider counts it (a server-side compaction: every pass).
  const counts = quotaCounts(
    server ? billedUsage(usage, server) : usage,
    quotaRulesOf(usage.source, usage.model ?? state.model),
  );
  const add = context.inPlace === true ? addTokensInPlace : addTokens;
  const windows = state.quota ?? emptyQuotaWindows();
  next.quota = {
    requests: add(windows.requests, QUOTA_WINDOW, at, counts.requests),
    input: add(windows.input, QUOTA_WINDOW, at, counts.input),
    output: add(windows.output, QUOTA_WINDOW, at, counts.output),
  };
  next.minute = add(state.minute, QUOTA_WINDOW, at, counts.tokens);
  if (update.headers !== undefined) next.reported = { at, ...readRateLimitHeaders(update.headers, at) };
  // Money: this call at the model's price (every pass of a server-side compaction), null when unknown.
  const costUsd = costOfUsage(usage, state.profile.price);
  const spend = state.spend ?? {
    costUsd: 0,
    pricedCalls: 0,
    unpricedCalls: 0,
    promptTokens: 0,
    cachedReadTokens: 0,
  };
  next.spend = {
    costUsd: spend.costUsd + (costUsd ?? 0),
    pricedCalls: spend.pricedCalls + (costUsd === null ? 0 : 1),
    unpricedCalls: spend.unpricedCalls + (costUsd === null ? 1 : 0),
    promptTokens: spend.promptTokens + (usage.available ? usage.promptTokens : 0),
    cachedReadTokens: spend.cachedReadTokens + (usage.available ? usage.cachedReadTokens : 0),
  };
  if (usage.available) {
    const spent = server
      ? server.billedPromptTokens + server.billedCompletionTokens
      : usage.promptTokens + usage.completionTokens;
    next.lastPrompt = usage.promptTokens;
    next.lastCompletion = usage.completionTokens;
    next.lastCounts = counts;
    next.budgetUsed = state.budgetUsed + spent;
    // The burn rate is read against the per-minute quota, so it counts what the quota counts.
    next.burn = add(state.burn, settings.burn, at, counts.tokens);
  } else {
    events.push({ type: 'usage_unavailable', at: isoTime(at), reason: usage.reason });
  }

  const healthStep = stepHealth(
    state.health,
    usage.available ? { available: true, promptTokens: usage.promptTokens } : { available: false },
    healthOptionsOf(state),
  );
  next.health = healthStep.state;
  const reminderAction = healthStep.reminder.action;
  if ((reminderAction === 'add' || reminderAction === 'update') && usage.available) {
    next.reminder = {
      prompt: usage.promptTokens,
      countdown: healthStep.state.reminder === 'critical' ? (healthStep.state.countdown ?? 0) : null,
    };
  } else if (reminderAction === 'drop') {
    next.reminder = null;
  }
  for (const event of healthStep.events) events.push({ ...event, at: isoTime(at) } as SessionEvent);

  const signals = signalsOf(next, at);
  const regulator = regulatorView(signals, REGULATOR_SETTINGS, at);
  const reasons: VerdictReason[] = [healthReason(next, healthStep.level, usage)];
  const memoryPercent =
    next.lastPrompt === null || next.thresholds.limit === null
      ? null
      : (next.lastPrompt / next.thresholds.limit) * 100;
  const regulatorSays = regulatorReason(regulator.report, regulator.notes, memoryPercent);
  const regulatorNewRound = regulatorSays.newRound;
  // Field by field: an object rest pattern copies through V8's generic path on every update.
  reasons.push({
    model: regulatorSays.model,
    action: regulatorSays.action,
    priority: regulatorSays.priority,
    reason: regulatorSays.reason,
  });
  const kv = kvReason(next);
  if (kv) reasons.push(kv);
  const survival = survivalOf(signals.quotas, settings.triggers.survivalMargin);
  const trigger = triggerDecision(
    next,
    settings.triggers,
    at,
    update.taskCompleted === true,
    usage.available,
    survival,
    signals.tokensLastMinute,
  );
  next.triggers = trigger.state;
  const waitSeconds = waitOf(signals.quotas);
  const thinking = thinkingOf(next, signals.quotas);
  next.thinkingLow = thinking.low;
  reasons.push(triggerReason(trigger, thinking, waitSeconds));
  const budget = budgetReason(signals, next);
  if (budget) reasons.push(budget);
  const poolId = next.options.poolId;
  if (poolId !== undefined) {
    const priority = next.options.poolPriority ?? 'normal';
    reasons.push(
      poolReason(context.pool ?? null, priority) ?? {
        model: 'pool',
        action: 'continue',
        priority: 'low',
        reason: `pool ${poolId} does not exist (or could not be read): not counted`,
      },
    );
  }
  const newRoundDue = regulatorNewRound || (healthStep.level === 'critical' && next.health.countdown === 0);
  const verdict = combineVerdict(reasons, {
    newRoundDue,
    waitSeconds: waitSeconds ?? null,
    thinking: thinking.low ? thinking.params : null,
  });

  const pressure = regulator.report.pressure;
  const previousLevel = state.lastPressure?.level ?? null;
  if (previousLevel !== pressure.level) {
    events.push({
      type: 'regulator_level_changed',
      at: isoTime(at),
      from: previousLevel,
      to: pressure.level,
    });
  }
  if (state.lastVerdict?.action !== verdict.action) {
    events.push({
      type: 'verdict_changed',
      at: isoTime(at),
      from: state.lastVerdict?.action ?? null,
      to: verdict.action,
    });
  }
  next.lastVerdict = verdict;
  next.lastPressure = pressure;
  return {
    state: next,
    update: { at, costUsd, verdict, health: healthOf(next), signals, regulator, trigger, events },
  };
}

/**
 * A copy of a state to become the next one, written key by key in the schema's order: every state a step makes has
 * the same shape (an optional key absent from the given state is there, undefined, and JSON leaves it out), so
 * that V8 copies it as one fixed layout. A spread that then redefines keys goes through V8's generic path, which
 * measured a tenth of a step.
 */
function nextState(state: SessionState): SessionState {
  return {
    version: state.version,
    id: state.id,
    model: state.model,
    agent: state.agent,
    createdAt: state.createdAt,
    options: state.options,
    profile: state.profile,
    thresholds: state.thresholds,
    generations: state.generations,
    firstAt: state.firstAt,
    lastAt: state.lastAt,
    lastPrompt: state.lastPrompt,
    lastCompletion: state.lastCompletion,
    budgetUsed: state.budgetUsed,
    drift: state.drift,
    health: state.health,
    triggers: state.triggers,
    reminder: state.reminder,
    burn: state.burn,
    minute: state.minute,
    quota: state.quota,
    lastCounts: state.lastCounts,
    reported: state.reported,
    thinkingLow: state.thinkingLow,
    spend: state.spend,
    lastVerdict: state.lastVerdict,
    lastPressure: state.lastPressure,
  };
}

/**
 * Tells a state a compaction happened (the agent's own or barometer's), so that the triggers' loop guards hold
 * until the context grows again. Pure, like {@link stepSession}.
 * @throws BarometerValidationError for a bad time, or `after` larger than `before`
 */
export function recordCompactionStep(
  state: SessionState,
  compaction: CompactionReport,
  context: StepContext,
): { state: SessionState; event: Extract<SessionEvent, { type: 'compaction' }> } {
  const at =
    compaction.timestamp === undefined ? (state.lastAt ?? context.now) : toMillis(compaction.timestamp);
  const before = compaction.before ?? state.lastPrompt;
  const after = compaction.after;
  if (before !== null && after !== undefined && after > before) {
    throw new BarometerValidationError([
      {
        field: 'after',
        value: after,
        message: `must not exceed before (${before} tokens${compaction.before === undefined ? ', the last prompt' : ''}): a compaction does not grow the context`,
        allowed: { max: before },
      },
    ]);
  }
  let next = state;
  if (before !== null && after !== undefined) {
    next = {
      ...state,
      triggers: recordCompactionResolved(
        state.triggers,
        { before: Math.round(before), after: Math.round(after) },
        settingsOf(state).triggers,
      ),
    };
  }
  return {
    state: next,
    event: {
      type: 'compaction',
      at: isoTime(at),
      trigger: compaction.trigger ?? 'manual',
      before,
      after: after ?? null,
    },
  };
}

function healthReason(state: SessionState, level: HealthLevel, usage: UsageRecord): VerdictReason {
  const t = state.thresholds;
  const prompt = state.lastPrompt;
  switch (level) {
    case 'unknown':
      return {
        model: 'health',
        action: 'continue',
        priority: 'low',
        reason: usage.available
          ? 'context health unknown: no window known'
          : `usage unavailable (${usage.reason})`,
      };
    case 'healthy':
      return {
        model: 'health',
        action: 'continue',
        priority: 'low',
        reason: `healthy: ${prompt} prompt tokens <= optimal ${t.optimal}`,
      };
    case 'caution':
      return {
        model: 'health',
        action: 'compress',
        priority: 'normal',
        reason: `caution: ${prompt} prompt tokens > optimal ${t.optimal}${t.critical === null ? '' : ` (critical at ${t.critical})`}`,
      };
    case 'critical':
      return {
        model: 'health',
        action: 'compress',
        priority: 'urgent',
        reason:
          state.health.countdown === 0
            ? `critical: ${prompt} prompt tokens > critical ${t.critical}; a new round is due (restart with the carried-over state, or compact)`
            : `critical: ${prompt} prompt tokens > critical ${t.critical}; new round in ${state.health.countdown ?? 0} generations`,
      };
  }
}

function kvReason(state: SessionState): VerdictReason | undefined {
  const kv = state.options.kv;
  if (!kv) return undefined;
  const snapshot = contextPressure({
    ...kv,
    cellsUsed: (state.lastPrompt ?? 0) + (state.lastCompletion ?? 0),
  });
  const figures = `${snapshot.remaining} cells remaining, headroom ${snapshot.headroom}`;
  if (snapshot.critical) {
    return {
      model: 'kv',
      action: 'terminate',
      priority: 'urgent',
      reason: `KV critical: ${figures} < hard limit ${snapshot.hardLimit}`,
    };
  }
  if (snapshot.headroom <= 0) {
    return {
      model: 'kv',
      action: 'compress',
      priority: 'high',
      reason: `KV headroom exhausted: ${figures}; tool results are refused`,
    };
  }
  return { model: 'kv', action: 'continue', priority: 'low', reason: `KV: ${figures}` };
}

function triggerDecision(
  state: SessionState,
  config: ResolvedTriggerConfig,
  at: number,
  taskCompleted: boolean,
  available: boolean,
  survival: { fires: boolean; reason: string } | undefined,
  /** The tokens of the quota window at `at` (the signals' `tokensLastMinute`). */
  tokensLastMinute: number,
): TriggerDecision {
  if (!available || state.lastPrompt === null) {
    return {
      fire: false,
      reasons: ['no usage figure this generation: triggers not evaluated'],
      state: state.triggers,
    };
  }
  return evaluateTriggersResolved(
    state.triggers,
    {
      tokens: state.lastPrompt,
      turns: state.generations,
      taskCompleted,
      now: at,
      windowTokens: tokensLastMinute,
      survival,
    },
    config,
  );
}

/**
 * The triggers' line of the verdict: what decided, in a few words. Every guard the decision went through is in
 * the answer's `trigger.reasons`; the verdict names the lines that fired or blocked, not the whole trail again.
 */
function triggerReason(
  trigger: TriggerDecision,
  thinking: { low: boolean; reason: string | undefined },
  waitSeconds: number | null | undefined,
): VerdictReason {
  if (trigger.fire && trigger.trigger) {
    const wait =
      trigger.trigger === 'survival' && waitSeconds !== null && waitSeconds !== undefined && waitSeconds > 0
        ? `; or wait ${waitSeconds} s until the next request fits the quota: waiting keeps the prompt cache, compressing rewrites it`
        : '';
    const prefix = `${trigger.trigger}:`;
    return {
      model: 'triggers',
      action: 'compress',
      priority: trigger.trigger === 'survival' ? 'urgent' : 'high',
      reason: `${trigger.trigger} compaction triggered: ${linesWhere(trigger.reasons, (line) => line.startsWith(prefix))}${wait}`,
    };
  }
  if (thinking.low) {
    return { model: 'triggers', action: 'optimize', priority: 'normal', reason: thinking.reason ?? '' };
  }
  return { model: 'triggers', action: 'continue', priority: 'low', reason: noTriggerReason(trigger.reasons) };
}

/** The trail's lines that pass `test`, joined; the last line (the decision) is left out. */
function linesWhere(reasons: readonly string[], test: (line: string) => boolean): string {
  let lines = '';
  for (let index = 0; index < reasons.length - 1; index++) {
    const line = reasons[index] as string;
    if (test(line)) lines += lines === '' ? line : `; ${line}`;
  }
  return lines;
}

/**
 * Why nothing fired: no trigger reached, or a trigger held back by the guards that say "blocked" (their lines).
 * The trail ends with the decision ("no compaction: …").
 */
function noTriggerReason(reasons: readonly string[]): string {
  const decision = reasons[reasons.length - 1] ?? '';
  if (decision === 'no compaction: no trigger reached') return 'no trigger reached';
  if (!decision.startsWith('no compaction: ')) return `no trigger: ${decision}`;
  const blocked = linesWhere(reasons, (line) => line.includes('blocked'));
  const what = decision.slice('no compaction: '.length);
  return blocked === '' ? `no trigger: ${what}` : `no trigger: ${what} (${blocked})`;
}

/**
 * The token budget: terminate when it is spent, or will be by the next request. The next request sends at least
 * the last prompt and the last completion again (a conversation grows by what the model wrote), so a budget with
 * less than that left cannot pay for it.
 */
function budgetReason(signals: SessionSignals, state: SessionState): VerdictReason | undefined {
  if (signals.tokenBudget === null || signals.budgetUsed === null) return undefined;
  if (signals.budgetUsed >= signals.tokenBudget) {
    return {
      model: 'budget',
      action: 'terminate',
      priority: 'urgent',
      reason: `token budget exhausted: ${signals.budgetUsed} of ${signals.tokenBudget} used`,
    };
  }
  const left = signals.budgetRemaining ?? 0;
  const next = (state.lastPrompt ?? 0) + (state.lastCompletion ?? 0);
  if (next > 0 && left < next) {
    return {
      model: 'budget',
      action: 'terminate',
      priority: 'urgent',
      reason: `token budget spent by the next request: ${left} of ${signals.tokenBudget} left, the next request sends at least ${next} (the last prompt and completion)`,
    };
  }
  return {
    model: 'budget',
    action: 'continue',
    priority: 'low',
    reason: `token budget: ${left} of ${signals.tokenBudget} left`,
  };
}

const QUOTA_LABELS: Readonly<Record<QuotaStanding['dimension'], string>> = {
  requests: 'requests per minute',
  input: 'input tokens per minute',
  output: 'output tokens per minute',
  tokens: 'tokens per minute',
};

function emptyQuotaWindows(): NonNullable<SessionState['quota']> {
  return {
    requests: emptyTokenWindow(QUOTA_WINDOW),
    input: emptyTokenWindow(QUOTA_WINDOW),
    output: emptyTokenWindow(QUOTA_WINDOW),
  };
}

/** A response that compacted server-side, as billed: every pass's prompt and output (and cache reads). */
function billedUsage(
  usage: UsageRecord,
  server: NonNullable<ReturnType<typeof serverCompaction>>,
): UsageRecord {
  if (!usage.available) return usage;
  const cachedRead = (usage.iterations ?? []).reduce((sum, pass) => sum + pass.cachedReadTokens, 0);
  return {
    ...usage,
    promptTokens: server.billedPromptTokens,
    completionTokens: server.billedCompletionTokens,
    cachedReadTokens: cachedRead,
  };
}

/**
 * Where the session stands against each quota with a known limit: the configured ones (`rateLimits`, `tpmLimit`)
 * and the ones the provider's headers reported at this update. The next request is expected to need what the
 * last one did, counted the same way.
 */
function quotaStandingsOf(state: SessionState, at: number): QuotaStanding[] {
  const limits = state.options.rateLimits ?? {};
  const windows = state.quota ?? emptyQuotaWindows();
  const need = state.lastCounts ?? { requests: 1, input: 0, output: 0, tokens: 0 };
  const reported = state.reported ?? undefined;
  return quotaStandings(
    [
      {
        dimension: 'requests',
        limit: limits.requestsPerMinute ?? null,
        window: windows.requests,
        need: 1,
        reported: reportedOf(reported, 'requests'),
      },
      {
        dimension: 'input',
        limit: limits.inputTokensPerMinute ?? null,
        window: windows.input,
        need: need.input,
        reported: reportedOf(reported, 'input'),
      },
      {
        dimension: 'output',
        limit: limits.outputTokensPerMinute ?? null,
        window: windows.output,
        need: need.output,
        reported: reportedOf(reported, 'output'),
      },
      {
        dimension: 'tokens',
        limit: state.profile.tpmLimit ?? null,
        window: state.minute,
        need: need.tokens,
        reported: reportedOf(reported, 'tokens'),
      },
    ],
    QUOTA_WINDOW,
    at,
  );
}

/** The provider's reported figures of one quota dimension, as a standing's input reads them; undefined when absent. */
function reportedOf(
  reported: SessionState['reported'] | undefined,
  key: QuotaStanding['dimension'],
): ReportedDimension | undefined {
  const figures = reported?.[key];
  return reported === null || reported === undefined || figures === undefined
    ? undefined
    : { at: reported.at, ...figures };
}

/**
 * Seed 004's survival rule over every quota: it fires when the next request, with the margin, needs more than
 * some quota has left. Without any limit known, it is not evaluated.
 */
function survivalOf(
  quotas: readonly QuotaStanding[],
  margin: number,
): { fires: boolean; reason: string } | undefined {
  if (quotas.length === 0) return undefined;
  const parts: string[] = [];
  let fires = false;
  for (const quota of quotas) {
    const needed = Math.round(quota.need * margin * 100) / 100;
    const over = needed > quota.left;
    fires ||= over;
    parts.push(
      `${QUOTA_LABELS[quota.dimension]}: next request ${quota.need} x ${margin} = ${needed} ${over ? '>' : '<='} ${quota.left} left (${quota.limit} - ${quota.used} ${quota.source === 'headers' ? "as the provider's headers report" : 'used in the last 60 s'})`,
    );
  }
  return {
    fires,
    reason: `survival: ${parts.join('; ')}${fires ? ': fires, overriding every other gate' : ''}`,
  };
}

/** Seconds until the next request fits every quota: null when it fits now, when no quota is known, or never. */
function waitOf(quotas: readonly QuotaStanding[]): number | null {
  let wait = 0;
  for (const quota of quotas) {
    if (quota.waitSeconds === null) return null;
    wait = Math.max(wait, quota.waitSeconds);
  }
  return wait > 0 ? wait : null;
}

/** The thinking budget is lowered under this share of a token quota left… */
const THINKING_LOW_BELOW = 0.2;
/** …and raised again only from this share: a band, so that the verdict does not flap. */
const THINKING_HIGH_FROM = 0.3;

/**
 * Seed 004's thinking budget on a session: for a model that reasons (the registry says so), reasoning is turned
 * down while a token quota has less than 20% of its limit left (the seed's 200,000 of its 1,000,000), and up
 * again once every token quota has 30% left. The parameters are the provider's own.
 */
function thinkingOf(
  state: SessionState,
  quotas: readonly QuotaStanding[],
): { low: boolean; params: Record<string, unknown>; reason: string | undefined } {
  const tokenQuotas = quotas.filter((quota) => quota.dimension !== 'requests' && quota.limit > 0);
  const provider = thinkingProviderOf(state);
  if (state.profile.reasoning !== true || tokenQuotas.length === 0 || provider === undefined) {
    return { low: false, params: {}, reason: undefined };
  }
  let tightest = tokenQuotas[0] as QuotaStanding;
  for (const quota of tokenQuotas)
    if (quota.left / quota.limit < tightest.left / tightest.limit) tightest = quota;
  const share = tightest.left / tightest.limit;
  const low = state.thinkingLow === true ? share < THINKING_HIGH_FROM : share < THINKING_LOW_BELOW;
  if (!low) return { low: false, params: {}, reason: undefined };
  return {
    low: true,
    params:
      LOWERED_THINKING[
        provider === 'gemini' ? (/gemini-2/.test(state.model) ? 'gemini-budget' : 'gemini-level') : provider
      ],
    reason: `thinking budget lowered to ${LOW_THINKING_BUDGET} tokens: ${tightest.left} of ${tightest.limit} ${QUOTA_LABELS[tightest.dimension]} left (${Math.round(share * 1000) / 10}%, under ${state.thinkingLow ? THINKING_HIGH_FROM * 100 : THINKING_LOW_BELOW * 100}%)`,
  };
}

/**
 * The lowered thinking parameters of each provider (and each of Gemini's two controls), made once and frozen:
 * every verdict that lowers thinking on one provider carries the same object, not a new one per update.
 */
const LOWERED_THINKING = {
  anthropic: frozen(thinkingBudgetResolved({ tpmLeft: -1, provider: 'anthropic' }).params),
  openai: frozen(thinkingBudgetResolved({ tpmLeft: -1, provider: 'openai' }).params),
  'gemini-level': frozen(
    thinkingBudgetResolved({ tpmLeft: -1, provider: 'gemini', geminiControl: 'level' }).params,
  ),
  'gemini-budget': frozen(
    thinkingBudgetResolved({ tpmLeft: -1, provider: 'gemini', geminiControl: 'budget' }).params,
  ),
};

/** A JSON value frozen to its leaves: shared by every verdict, it cannot be changed through one of them. */
function frozen<T extends Record<string, unknown>>(value: T): T {
  for (const inner of Object.values(value))
    if (typeof inner === 'object' && inner !== null) frozen(inner as Record<string, unknown>);
  return Object.freeze(value);
}

function thinkingProviderOf(state: SessionState): 'anthropic' | 'openai' | 'gemini' | undefined {
  const rules = quotaRulesOf('manual', state.model);
  return rules === 'total' ? undefined : rules;
}
