import {
  evaluateTriggersResolved,
  type ResolvedTriggerConfig,
  recordCompactionResolved,
  type TriggerDecision,
} from '../compaction/evaluate-triggers.js';
import { stepHealth } from '../health/step-health.js';
import type { BarometerConfig } from '../models/barometer-config.js';
import { sourcedPriceOfModel } from '../models/resolve-profile.js';
import type { QuotaAdvice } from '../quota/quota-advice.js';
import {
  type QuotaSurvival,
  quotaSurvival,
  quotaWaitSeconds,
  survivalText,
} from '../quota/quota-survival.js';
import { addTokens } from '../quota/token-window.js';
import type { WindowForecast } from '../quota/windows/window-forecast.js';
import type { WindowTrack } from '../quota/windows/window-track.js';
import { type ServerCompaction, serverCompaction } from '../usage/normalize-anthropic.js';
import { quotaCounts, quotaRulesOf } from '../usage/quota-count.js';
import { readRateLimitHeaders } from '../usage/rate-limit-headers.js';
import { costOfUsage } from '../usage/usage-cost.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { budgetReason } from './budget-reason.js';
import { healthReason } from './health-reason.js';
import { isoTime, notAhead } from './iso-time.js';
import { kvReason } from './kv-reason.js';
import { type PoolStanding, poolReason } from './pool-reason.js';
import { regulatorView, type SessionRegulatorView } from './regulator-view.js';
import { quotaAdviceOf, quotaReason } from './rejudge.js';
import { healthOf } from './session-health.js';
import type { UsageUpdate } from './session-options.js';
import type {
  SessionEvent,
  SessionHealth,
  SessionSignals,
  Verdict,
  VerdictReason,
} from './session-schemas.js';
import { burnWindowOf, healthOptionsOf, triggerSettingsOf } from './session-settings.js';
import { emptyQuotaWindows, signalsAt, windowShareOf } from './session-signals.js';
import { followingModel, QUOTA_WINDOW, type SessionState } from './session-state.js';
import { thinkingOf } from './session-thinking.js';
import {
  windowEvents,
  windowForecastsOf,
  windowObservations,
  windowSay,
  withWindows,
} from './session-windows.js';
import { TRIGGERS_NOT_EVALUATED, triggerReason } from './trigger-reason.js';
import { combineVerdict, regulatorReason } from './verdict.js';

export { observeQuotaStep } from './rejudge.js';

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
   * The latest time (epoch ms) an update may carry: live sessions refuse a time further ahead of the clock than
   * the service's tolerance (one far-future time would hold the session's windows in the future for good).
   * Absent: any time (a replay of a recorded log keeps the log's clock).
   */
  latest?: number;
  /**
   * The standing of the session's pool (`options.poolId`), read just before the step; null when the pool does
   * not exist. Ignored for a session outside any pool.
   */
  pool?: PoolStanding | null;
  /** The config file whose model entries override the registry, for pricing a call made with another model. */
  config?: BarometerConfig;
  /**
   * Judge a call against the window of the model its usage names, and price it at that model, when that is not the
   * session's (a user who switched models mid-session): the session moves to that model (`followingModel`). False
   * when the caller forced one model for the whole session (`replay --model`). @default true
   */
  followModel?: boolean;
  /**
   * The subscription windows as the last answer of any session seen by the same monitor left them (the account's):
   * each rise this session's answer reports over them is this session's share. Absent: its own last figures.
   */
  accountWindows?: readonly WindowTrack[];
}

function timeOf(update: UsageUpdate, now: number, latest: number | undefined): number {
  if (update.timestamp !== undefined) return notAhead(update.timestamp, 'timestamp', latest);
  if (update.usage.timestamp !== undefined)
    return notAhead(update.usage.timestamp, 'usage.timestamp', latest);
  return now;
}

/**
 * One generation's usage applied to a session's state: every model judges it (context health, the regulator,
 * the KV budget, the compaction triggers, the budget) into one verdict. Pure: the given state is untouched, and the
 * new one, returned with the answer, shares nothing a later step changes (its token windows are new arrays), so a
 * state handed to a listener or kept elsewhere stays as it was. Time comes from the update, or `context.now`.
 * Nothing here validates with a schema: the boundary did.
 * @throws BarometerValidationError for a time a date cannot hold; nothing is applied then
 */
export function stepSession(
  given: SessionState,
  update: UsageUpdate,
  context: StepContext,
): { state: SessionState; update: SessionUpdate } {
  // A call of another model (the user switched mid-session) is judged against that model's window and priced at it.
  const state =
    context.followModel === false
      ? given
      : followingModel(given, update.usage.model, context.config ? { config: context.config } : {});
  // Without a time of its own, an update happens now, but never before the session's last one: instances on one
  // Redis apply a session's updates in turn, and a clock a little behind another's must not put a point back.
  const at = timeOf(
    update,
    state.lastAt === null ? context.now : Math.max(context.now, state.lastAt),
    context.latest,
  );
  const usage: UsageRecord = update.usage;
  const triggers = triggerSettingsOf(state);
  const burnWindow = burnWindowOf(state);
  const events: SessionEvent[] = [];
  const next = nextState(state);
  next.generations = state.generations + 1;
  next.firstAt = state.firstAt ?? at;
  next.lastAt = at;
  next.drift = update.driftPercent ?? state.drift;
  if (update.kvCellsUsed !== undefined) next.kvCellsUsed = update.kvCellsUsed;
  // A response that compacted its own context server-side (Anthropic `iterations[]`): the session records the
  // compaction (a marker, the loop guards) and counts every pass's tokens, as the provider bills them.
  const server = serverCompaction(usage);
  if (server) recordServerCompaction(state, next, server, triggers, at, events);
  const counts = countQuotas(state, next, update, server, at);
  // Subscription windows: the unified headers' and those the update names (status line, logs).
  const observed =
    update.headers === undefined && update.windows === undefined
      ? undefined
      : windowObservations(update.headers, update.windows, at);
  const windowsBefore = observed?.length && state.windows ? windowForecastsOf(state, at) : undefined;
  if (observed?.length) next.windows = withWindows(state, observed, context.accountWindows, update.subAgent);
  const costUsd = countSpend(state, next, usage, context);
  if (usage.available) {
    const spent = server
      ? server.billedPromptTokens + server.billedCompletionTokens
      : usage.promptTokens + usage.completionTokens;
    next.lastPrompt = usage.promptTokens;
    next.lastCompletion = usage.completionTokens;
    next.lastCounts = counts;
    next.budgetUsed = state.budgetUsed + spent;
    // The burn rate is read against the per-minute quota, so it counts what the quota counts.
    next.burn = addTokens(state.burn, burnWindow, at, counts.tokens);
  } else {
    events.push({ type: 'usage_unavailable', at: isoTime(at), reason: usage.reason });
  }
  const healthStep = stepHealthOf(state, next, usage, at, events);
  const { verdict, signals, regulator, trigger } = judgeStep(next, {
    at,
    burnWindow,
    usage,
    healthLevel: healthStep.level,
    triggers,
    taskCompleted: update.taskCompleted === true,
    pool: context.pool,
    windowsBefore: observed?.length ? (windowsBefore ?? []) : undefined,
    events,
  });
  recordVerdictChanges(state, verdict, regulator, at, events);
  next.lastVerdict = verdict;
  next.verdictAt = at;
  next.lastPressure = regulator.report.pressure;
  return {
    state: next,
    update: { at, costUsd, verdict, health: healthOf(next), signals, regulator, trigger, events },
  };
}

/** A server-side compaction recorded on the next state: the triggers' marker and loop guards, and its event. */
function recordServerCompaction(
  state: SessionState,
  next: SessionState,
  server: ServerCompaction,
  triggers: ResolvedTriggerConfig,
  at: number,
  events: SessionEvent[],
): void {
  next.triggers = recordCompactionResolved(
    state.triggers,
    {
      before: server.contextBeforeTokens,
      after: Math.min(server.contextAfterTokens, server.contextBeforeTokens),
    },
    triggers,
  );
  events.push({
    type: 'compaction',
    at: isoTime(at),
    trigger: 'anthropic-server',
    before: server.contextBeforeTokens,
    after: server.contextAfterTokens,
  });
}

/** This call counted against the quota windows (and the reported rate-limit headers read); returns its counts. */
function countQuotas(
  state: SessionState,
  next: SessionState,
  update: UsageUpdate,
  server: ServerCompaction | undefined,
  at: number,
): ReturnType<typeof quotaCounts> {
  const usage = update.usage;
  // Every call counts against the quotas as its provider counts it (a server-side compaction: every pass).
  const counts = quotaCounts(
    server ? billedUsage(usage, server) : usage,
    quotaRulesOf(usage.source, usage.model ?? state.model),
  );
  const windows = state.quota ?? emptyQuotaWindows();
  next.quota = {
    requests: addTokens(windows.requests, QUOTA_WINDOW, at, counts.requests),
    input: addTokens(windows.input, QUOTA_WINDOW, at, counts.input),
    output: addTokens(windows.output, QUOTA_WINDOW, at, counts.output),
  };
  next.minute = addTokens(state.minute, QUOTA_WINDOW, at, counts.tokens);
  if (update.headers !== undefined) next.reported = { at, ...readRateLimitHeaders(update.headers, at) };
  return counts;
}

/** This call's cost added to the session's spend; returns the cost in USD, null when the price is unknown. */
function countSpend(
  state: SessionState,
  next: SessionState,
  usage: UsageRecord,
  context: StepContext,
): number | null {
  // Money: this call at its own model's price (every pass of a server-side compaction), null when unknown. A session
  // whose agent switched models mid-way pays each call at the model that made it, as replay does.
  const other =
    usage.model !== undefined && usage.model !== state.model && context.followModel !== false
      ? sourcedPriceOfModel(usage.model, context.config)
      : undefined;
  const price = other === undefined ? state.profile.price : other?.price;
  const costUsd = costOfUsage(usage, price);
  // A price from a family estimate makes the cost an estimate: its dollars are counted apart to say so.
  const estimated =
    costUsd !== null &&
    (other === undefined ? state.profile.priceSource : other?.source) === 'family-estimate';
  const spend = state.spend ?? {
    costUsd: 0,
    pricedCalls: 0,
    unpricedCalls: 0,
    promptTokens: 0,
    cachedReadTokens: 0,
  };
  next.spend = {
    costUsd: spend.costUsd + (costUsd ?? 0),
    estimatedCostUsd: (spend.estimatedCostUsd ?? 0) + (estimated ? costUsd : 0),
    pricedCalls: spend.pricedCalls + (costUsd === null ? 0 : 1),
    unpricedCalls: spend.unpricedCalls + (costUsd === null ? 1 : 0),
    promptTokens: spend.promptTokens + (usage.available ? usage.promptTokens : 0),
    cachedReadTokens: spend.cachedReadTokens + (usage.available ? usage.cachedReadTokens : 0),
  };
  return costUsd;
}

/** The context-health model stepped on this call: the next state's health and reminder, and its events. */
function stepHealthOf(
  state: SessionState,
  next: SessionState,
  usage: UsageRecord,
  at: number,
  events: SessionEvent[],
): ReturnType<typeof stepHealth> {
  // Without a window (and no critical threshold of its own) nothing says how full the context is: unknown, not a
  // guess at healthy (seed 003: the limit is the model's window, else unknown).
  const measurable = state.thresholds.limit !== null || state.thresholds.critical !== null;
  const healthStep = stepHealth(
    state.health,
    usage.available && measurable
      ? { available: true, promptTokens: usage.promptTokens }
      : { available: false },
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
  return healthStep;
}

/** What `judgeStep` reads besides the next state. */
interface JudgeInput {
  at: number;
  burnWindow: ReturnType<typeof burnWindowOf>;
  usage: UsageRecord;
  healthLevel: ReturnType<typeof stepHealth>['level'];
  triggers: ResolvedTriggerConfig;
  taskCompleted: boolean;
  pool: PoolStanding | null | undefined;
  /** The windows' forecasts before this update, when it reported windows (their threshold events are told). */
  windowsBefore: WindowForecast[] | undefined;
  events: SessionEvent[];
}

/** Every model's reason on the next state (health, regulator, KV, triggers, quota, budget, pool) combined into one verdict. */
function judgeStep(
  next: SessionState,
  { at, burnWindow, usage, healthLevel, triggers, taskCompleted, pool, windowsBefore, events }: JudgeInput,
): { verdict: Verdict; signals: SessionSignals; regulator: SessionRegulatorView; trigger: TriggerDecision } {
  // Every model reads the same figures: the window share once, the signals (with the quota standings) once.
  const windowShare = windowShareOf(next);
  const signals = signalsAt(next, at, burnWindow, windowShare);
  const regulator = regulatorView(signals, windowShare, at);
  const reasons: VerdictReason[] = [healthReason(next, healthLevel, usage)];
  const regulatorSays = regulatorReason(regulator, windowShare);
  // Field by field: an object rest pattern copies through V8's generic path on every update.
  reasons.push({
    model: regulatorSays.model,
    action: regulatorSays.action,
    priority: regulatorSays.priority,
    reason: regulatorSays.reason,
  });
  const kv = kvReason(next);
  if (kv) reasons.push(kv);
  const evaluated = usage.available && next.lastPrompt !== null;
  const survival = quotaSurvival(signals.quotas, triggers.survivalMargin);
  const quota = quotaAdviceOf(next, at, survival, triggers.survivalMargin);
  const trigger = triggerDecision(next, triggers, at, taskCompleted, evaluated, signals, {
    survival,
    quota,
  });
  next.triggers = trigger.state;
  const waitSeconds = quota.waitSeconds ?? quotaWaitSeconds(signals.quotas);
  const thinking = thinkingOf(next, signals.quotas);
  next.thinkingLow = thinking.low;
  reasons.push(triggerReason(trigger, evaluated, thinking));
  const quotaSays = quotaReason(quota, survival);
  if (quotaSays) reasons.push(quotaSays);
  const budget = budgetReason(signals, next);
  if (budget) reasons.push(budget);
  const forecasts = next.windows?.length ? windowForecastsOf(next, at) : undefined;
  const windowSays = forecasts === undefined ? undefined : windowSay(forecasts, next.proxy?.windowPolicy);
  if (windowSays) reasons.push(windowSays.reason);
  if (forecasts !== undefined && windowsBefore !== undefined)
    for (const event of windowEvents(windowsBefore, forecasts, at)) events.push(event);
  const poolId = next.options.poolId;
  if (poolId !== undefined) {
    const priority = next.options.poolPriority ?? 'normal';
    reasons.push(
      poolReason(pool ?? null, priority) ?? {
        model: 'pool',
        action: 'continue',
        priority: 'low',
        reason: `pool ${poolId} does not exist (or could not be read): not counted`,
      },
    );
  }
  const newRoundDue =
    regulatorSays.newRoundDue || (healthLevel === 'critical' && next.health.countdown === 0);
  const verdict = combineVerdict(reasons, {
    newRoundDue,
    waitSeconds,
    thinking: thinking.low ? thinking.params : null,
  });
  if (windowSays) verdict.windowWait = windowSays.wait;
  return { verdict, signals, regulator, trigger };
}

/** The events of a regulator level or a verdict action other than the session's last ones. */
function recordVerdictChanges(
  state: SessionState,
  verdict: Verdict,
  regulator: SessionRegulatorView,
  at: number,
  events: SessionEvent[],
): void {
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
    kvCellsUsed: state.kvCellsUsed,
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
    verdictAt: state.verdictAt,
    lastPressure: state.lastPressure,
    proxy: state.proxy,
    evictions: state.evictions,
    windows: state.windows,
    subAgents: state.subAgents,
    receipts: state.receipts,
  };
}

/**
 * Seed 004's triggers on the state after this update. Survival is judged here against every quota the session
 * knows, as each provider counts it, and handed to the triggers with its line; without a usage figure the triggers
 * are not evaluated (they need the prompt's size).
 */
function triggerDecision(
  state: SessionState,
  config: ResolvedTriggerConfig,
  at: number,
  taskCompleted: boolean,
  evaluated: boolean,
  signals: SessionSignals,
  { survival, quota }: { survival: QuotaSurvival | undefined; quota: QuotaAdvice },
): TriggerDecision {
  if (!evaluated || state.lastPrompt === null) {
    return { fire: false, checks: [], reasons: [TRIGGERS_NOT_EVALUATED], state: state.triggers };
  }
  return evaluateTriggersResolved(
    state.triggers,
    {
      tokens: state.lastPrompt,
      turns: state.generations,
      taskCompleted,
      now: at,
      windowTokens: signals.tokensLastMinute,
      survival:
        survival === undefined
          ? undefined
          : {
              // Survival fires only when waiting cannot help (docs/rules.md, Quotas: wait is an action).
              fires: quota.kind === 'survival',
              reason:
                quota.kind === 'fits'
                  ? survivalText(survival)
                  : `${survivalText({ fires: quota.kind === 'survival', checks: survival.checks })}; ${quota.reason}`,
            },
    },
    config,
  );
}

/** A response that compacted server-side, as billed: every pass's prompt and output (and cache reads). */
function billedUsage(usage: UsageRecord, server: ServerCompaction): UsageRecord {
  if (!usage.available) return usage;
  const cachedRead = (usage.iterations ?? []).reduce((sum, pass) => sum + pass.cachedReadTokens, 0);
  return {
    ...usage,
    promptTokens: server.billedPromptTokens,
    completionTokens: server.billedCompletionTokens,
    cachedReadTokens: cachedRead,
  };
}
