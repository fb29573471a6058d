import { healthLevel } from '../health/health-level.js';
import { DEFAULT_MAX_WAIT_SECONDS, type QuotaAdvice, quotaAdvice } from '../quota/quota-advice.js';
import { type QuotaSurvival, quotaSurvival, quotaWaitSeconds } from '../quota/quota-survival.js';
import type { WindowTrack } from '../quota/windows/window-track.js';
import { type HeaderBag, readRateLimitHeaders } from '../usage/rate-limit-headers.js';
import { budgetReason } from './budget-reason.js';
import { isoTime } from './iso-time.js';
import { kvReason } from './kv-reason.js';
import { regulatorView } from './regulator-view.js';
import type { SessionEvent, SessionSignals, Verdict, VerdictReason } from './session-schemas.js';
import { burnWindowOf, thresholdsOf, triggerSettingsOf } from './session-settings.js';
import { quotaStandingsOf, signalsAt, windowShareOf } from './session-signals.js';
import type { SessionState } from './session-state.js';
import {
  windowEvents,
  windowForecastsOf,
  windowObservations,
  windowSay,
  withWindows,
} from './session-windows.js';
import { combineVerdict, regulatorReason } from './verdict.js';

/**
 * The quotas' advice for the next request: fits, wait, or survival (waiting cannot help). The waits with the
 * survival margin are only computed when survival fires (the rare case); a `retry-after` the provider sent counts
 * until it has elapsed.
 */
export function quotaAdviceOf(
  state: SessionState,
  at: number,
  survival: QuotaSurvival | undefined,
  margin: number,
): QuotaAdvice {
  const reported = state.reported;
  const retryLeft =
    reported?.retryAfterSeconds === undefined
      ? 0
      : (reported.at + reported.retryAfterSeconds * 1000 - at) / 1000;
  return quotaAdvice({
    survival,
    withMargin: survival?.fires ? quotaStandingsOf(state, at, margin) : [],
    retryAfterSeconds: retryLeft > 0 ? retryLeft : undefined,
    maxWaitSeconds: state.options.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS,
  });
}

/** The quota model's say (DESIGN.md's verdict table): fits, wait, or compress when waiting cannot help. */
export function quotaReason(
  quota: QuotaAdvice,
  survival: QuotaSurvival | undefined,
): VerdictReason | undefined {
  if (quota.kind === 'fits')
    return survival === undefined
      ? undefined
      : { model: 'quota', action: 'continue', priority: 'low', reason: quota.reason };
  if (quota.kind === 'wait')
    return { model: 'quota', action: 'wait', priority: 'high', reason: quota.reason };
  return { model: 'quota', action: 'compress', priority: 'urgent', reason: quota.reason };
}

/** The quota model's reason and the verdict's wait for a state at `at`. */
function quotaSay(
  state: SessionState,
  signals: SessionSignals,
  at: number,
): { reason: VerdictReason | undefined; waitSeconds: number | null } {
  const margin = triggerSettingsOf(state).survivalMargin;
  const survival = quotaSurvival(signals.quotas, margin);
  const advice = quotaAdviceOf(state, at, survival, margin);
  return {
    reason: quotaReason(advice, survival),
    waitSeconds: advice.waitSeconds ?? quotaWaitSeconds(signals.quotas),
  };
}

/** A verdict changed by something other than a call: the state with it, and a `verdict_changed` event if it did. */
function withVerdict(
  state: SessionState,
  verdict: Verdict,
  at: number,
): { state: SessionState; events: SessionEvent[] } {
  const events: SessionEvent[] = [];
  const from = state.lastVerdict?.action ?? null;
  if (from !== verdict.action)
    events.push({ type: 'verdict_changed', at: isoTime(at), from, to: verdict.action });
  return { state: { ...state, lastVerdict: verdict, verdictAt: at }, events };
}

/**
 * A provider's answer without a generation (a refused request, 429, with its rate-limit headers and
 * `retry-after`) as a quota observation: the quotas it reports replace the estimate, and the verdict is judged
 * again — only the quota model's say changes (the other models have no news), and `waitSeconds` says when the
 * next request fits. Pure.
 */
export function observeQuotaStep(
  state: SessionState,
  headers: HeaderBag,
  at: number,
  account?: readonly WindowTrack[],
): { state: SessionState; verdict: Verdict; events: SessionEvent[] } {
  const seen = windowObservations(headers, undefined, at);
  const observed: SessionState = {
    ...state,
    reported: { at, ...readRateLimitHeaders(headers, at) },
    ...(seen.length ? { windows: withWindows(state, seen, account) } : {}),
  };
  const signals = signalsAt(observed, at, burnWindowOf(observed), windowShareOf(observed));
  const quota = quotaSay(observed, signals, at);
  const last = state.lastVerdict;
  const reasons = (last?.reasons ?? []).filter(
    (reason) => reason.model !== 'quota' && reason.model !== 'window',
  );
  if (quota.reason) reasons.push({ ...quota.reason });
  // A refusal's unified headers say the window is spent (or which one binds): the windows judge again.
  const forecasts = observed.windows?.length ? windowForecastsOf(observed, at) : [];
  const windowSays = windowSay(forecasts, observed.proxy?.windowPolicy);
  if (windowSays) reasons.push(windowSays.reason);
  const verdict = combineVerdict(
    reasons.map((reason) => ({ ...reason })),
    {
      newRoundDue: last?.newRoundDue ?? false,
      waitSeconds: quota.waitSeconds,
      thinking: last?.thinking ?? null,
    },
  );
  if (windowSays) verdict.windowWait = windowSays.wait;
  const changed = withVerdict(observed, verdict, at);
  const events = changed.events;
  if (seen.length)
    for (const event of windowEvents(windowForecastsOf(state, at), forecasts, at)) events.push(event);
  return { state: changed.state, verdict, events };
}

/**
 * The state after a recorded compaction, judged again from what is known until the next call (docs/rules.md,
 * "A compaction resets the advice"): the context is the compaction's after-size when reported (its health level
 * from the thresholds), else unknown; the owned reminder and the critical countdown end (they quoted the
 * pre-compaction prompt); no new round is due; the triggers wait for the next call's usage. The quota, KV, budget
 * and pool models keep their say on the figures they have. Pure.
 */
export function verdictAfterCompaction(
  state: SessionState,
  after: number | null,
  at: number,
): { state: SessionState; events: SessionEvent[] } {
  const level = after === null ? 'unknown' : healthLevel(after, thresholdsOf(state));
  const compacted: SessionState = {
    ...state,
    lastPrompt: after,
    health: { level, reminder: 'none', sinceReminder: 0, countdown: null },
    reminder: null,
  };
  const windowShare = windowShareOf(compacted);
  const signals = signalsAt(compacted, at, burnWindowOf(compacted), windowShare);
  const reasons: VerdictReason[] = [healthAfter(compacted, after)];
  const regulator = regulatorReason(regulatorView(signals, windowShare, at), windowShare);
  reasons.push({
    model: 'regulator',
    action: regulator.action,
    priority: regulator.priority,
    reason: regulator.reason,
  });
  const kv = kvReason(compacted);
  if (kv) reasons.push(kv);
  reasons.push({
    model: 'triggers',
    action: 'continue',
    priority: 'low',
    reason: 'no trigger: a compaction was recorded; the triggers judge the next call',
  });
  const quota = quotaSay(compacted, signals, at);
  if (quota.reason) reasons.push(quota.reason);
  const budget = budgetReason(signals, compacted);
  if (budget) reasons.push(budget);
  const pool = state.lastVerdict?.reasons.find((reason) => reason.model === 'pool');
  if (pool) reasons.push({ ...pool });
  const verdict = combineVerdict(reasons, {
    newRoundDue: false,
    waitSeconds: quota.waitSeconds,
    thinking: state.lastVerdict?.thinking ?? null,
  });
  return withVerdict(compacted, verdict, at);
}

/** The health model's say after a compaction: from the after-size when reported, else unknown. */
function healthAfter(state: SessionState, after: number | null): VerdictReason {
  const t = state.thresholds;
  if (after === null) {
    return {
      model: 'health',
      action: 'continue',
      priority: 'low',
      reason:
        'context size unknown since the compaction (its after-size was not reported): the next call tells',
    };
  }
  switch (state.health.level) {
    case 'critical':
      return {
        model: 'health',
        action: 'compress',
        priority: 'urgent',
        reason: `critical after the compaction: ${after} tokens > critical ${t.critical}`,
      };
    case 'caution':
      return {
        model: 'health',
        action: 'compress',
        priority: 'normal',
        reason: `caution after the compaction: ${after} tokens > optimal ${t.optimal}`,
      };
    case 'healthy':
      return {
        model: 'health',
        action: 'continue',
        priority: 'low',
        reason: `healthy after the compaction: ${after} tokens <= optimal ${t.optimal}`,
      };
    default:
      return {
        model: 'health',
        action: 'continue',
        priority: 'low',
        reason: 'context health unknown: no window known',
      };
  }
}
