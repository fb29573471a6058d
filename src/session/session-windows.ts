import { readUnifiedHeaders } from '../quota/windows/unified-headers.js';
import type { UsageWindow } from '../quota/windows/usage-window.js';
import { windowAdvice } from '../quota/windows/window-advice.js';
import { forecastWindow, type WindowForecast } from '../quota/windows/window-forecast.js';
import { trackWindows, type WindowTrack } from '../quota/windows/window-track.js';
import { type HeaderBag, lowerCased } from '../usage/rate-limit-headers.js';
import { isoTime } from './iso-time.js';
import type { WindowPolicyState } from './proxy-status.js';
import type { SessionEvent, Verdict, VerdictReason, WindowForecastView } from './session-schemas.js';
import type { SessionState } from './session-state.js';

/** The windows an update carries: those of its response headers (Anthropic's unified ones), then those it names. */
export function windowObservations(
  headers: HeaderBag | undefined,
  windows: readonly UsageWindow[] | undefined,
  at: number,
): UsageWindow[] {
  const observed = headers === undefined ? [] : readUnifiedHeaders(lowerCased(headers), at).windows;
  if (windows !== undefined) for (const window of windows) observed.push(window);
  return observed;
}

/**
 * The state's window tracks with an update's observations: each rise of a window credited to this session over
 * `account`, the last figures any session of the monitor saw (absent: this session's own). Unchanged without any.
 */
export function withWindows(
  state: SessionState,
  observed: readonly UsageWindow[],
  account?: readonly WindowTrack[],
  subAgent?: string,
): SessionState['windows'] {
  if (observed.length === 0) return state.windows;
  return trackWindows(state.windows ?? [], observed, account, subAgent);
}

/**
 * Every window's forecast at `at`; a window whose reset has passed is left out (it has reset since: its figures say
 * nothing of the new period until an answer reports it).
 */
export function windowForecastsOf(state: SessionState, at: number): WindowForecast[] {
  const forecasts: WindowForecast[] = [];
  for (const track of state.windows ?? []) {
    if (track.resetsAt !== null && track.resetsAt <= at) continue;
    forecasts.push(forecastWindow(track, Math.max(at, track.at)));
  }
  return forecasts;
}

/** A forecast as an answer shows it (times ISO 8601). */
export function windowView(forecast: WindowForecast): WindowForecastView {
  return {
    ...forecast,
    resetsAt: forecast.resetsAt === null ? null : isoTime(forecast.resetsAt),
    at: isoTime(forecast.at),
    runsOutAt: forecast.runsOutAt === null ? null : isoTime(forecast.runsOutAt),
  };
}

/**
 * What the proxy's window policy did to the session's sub-agents, as the window's reason says it (empty when no lever
 * acted): `; the window policy sent 3 sub-agent requests (1 conversation) with the thinking budget lowered to 8192
 * tokens and held 2 for 120 s`.
 */
export function windowPolicySaid(policy: WindowPolicyState | undefined): string {
  if (policy === undefined || (policy.requestsLowered === 0 && policy.requestsHeld === 0)) return '';
  const parts: string[] = [];
  if (policy.requestsLowered > 0)
    parts.push(
      `sent ${policy.requestsLowered} sub-agent request${policy.requestsLowered === 1 ? '' : 's'} (${policy.conversationsLowered} conversation${policy.conversationsLowered === 1 ? '' : 's'}) with the thinking budget lowered to ${policy.budgetTokens} tokens`,
    );
  if (policy.requestsHeld > 0)
    parts.push(
      `held ${policy.requestsHeld} sub-agent request${policy.requestsHeld === 1 ? '' : 's'} for ${policy.heldSeconds} s in all`,
    );
  return `; the proxy's window policy ${parts.join(' and ')}`;
}

/**
 * The windows' reason in the verdict and the wait they ask for, with what the proxy's window policy did (`policy`);
 * undefined when the session saw no window.
 */
export function windowSay(
  forecasts: readonly WindowForecast[],
  policy?: WindowPolicyState,
): { reason: VerdictReason; wait: NonNullable<Verdict['windowWait']> | null } | undefined {
  const advice = windowAdvice(forecasts);
  if (advice === null) return undefined;
  return {
    reason: {
      model: 'window',
      action: advice.action,
      priority: advice.priority,
      reason: `${advice.reason}${windowPolicySaid(policy)}`,
    },
    wait:
      advice.wait === null
        ? null
        : { window: advice.wait.id, seconds: advice.wait.seconds, until: isoTime(advice.wait.until) },
  };
}

type Threshold = Extract<SessionEvent, { type: 'window_threshold' }>['threshold'];

function levelsOf(forecast: WindowForecast | undefined): Set<Threshold> {
  const levels = new Set<Threshold>();
  if (forecast === undefined) return levels;
  if (forecast.usedPercent >= 90) levels.add('used_90_percent');
  if (forecast.usedPercent >= 95) levels.add('used_95_percent');
  if (forecast.bindsBeforeReset) levels.add('binds');
  if (forecast.exhausted) levels.add('exhausted');
  return levels;
}

/**
 * `window_threshold` events: each threshold a window reached with this update that it had not reached before in
 * the same period (a new period starts with none reached).
 */
export function windowEvents(
  before: readonly WindowForecast[],
  after: readonly WindowForecast[],
  at: number,
): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (const forecast of after) {
    const previous = before.find(
      (old) => old.id === forecast.id && old.resetsAt === forecast.resetsAt && old.at <= forecast.at,
    );
    const had = levelsOf(previous);
    for (const threshold of levelsOf(forecast)) {
      if (had.has(threshold)) continue;
      events.push({
        type: 'window_threshold',
        at: isoTime(at),
        window: forecast.label,
        threshold,
        usedPercent: forecast.usedPercent,
        resetsAt: forecast.resetsAt === null ? null : isoTime(forecast.resetsAt),
        runsOutAt: forecast.runsOutAt === null ? null : isoTime(forecast.runsOutAt),
      });
    }
  }
  return events;
}
