import { windowLabel, windowMinutesOf } from './usage-window.js';
import type { WindowTrack } from './window-track.js';

/** The recent past the burn is measured over: a tenth of the window (30 minutes of a 5-hour window). */
export const BURN_LOOKBACK_SHARE = 0.1;

/** Seed 000's budget thresholds, on the share of the window left, and its runway rule. */
export type WindowThreshold = 'token_budget_10_percent' | 'token_budget_5_percent' | 'eol_approaching';

/** A window's burn and forecast at one time. */
export interface WindowForecast {
  id: string;
  /** `5h`, `7d`, `7d opus`. */
  label: string;
  source: WindowTrack['source'];
  status: WindowTrack['status'];
  usedPercent: number;
  leftPercent: number;
  resetsAt: number | null;
  windowMinutes: number | null;
  /** When the figures were read (epoch ms). */
  at: number;
  /** Percentage points per hour at the measured pace, null when nothing measures it. */
  burnPercentPerHour: number | null;
  /**
   * What the burn was measured over: `recent`, the change over the lookback (a tenth of the window; never a shorter
   * span); `window`, the average since the window began (its reset less its length), when no figure is as old as the
   * lookback; `none`.
   */
  burnBasis: 'recent' | 'window' | 'none';
  /**
   * Seed 000's `estimatedMinutesRemaining` on real numbers: the share left over the burn per minute, rounded to one
   * decimal; null when the window is not depleting (burn 0 or unknown). 0 when it is spent.
   */
  minutesRemaining: number | null;
  /** When the window runs out at this pace (epoch ms), null when it does not deplete. */
  runsOutAt: number | null;
  /** Minutes from `now` to the reset, null when the reset is unknown. */
  minutesToReset: number | null;
  /** Spent (100% used or refused), or will be before it resets at this pace. */
  bindsBeforeReset: boolean;
  exhausted: boolean;
  /**
   * The pause, from now, after which the share left lasts until the reset at the measured pace (0 when it already
   * does); the whole time to the reset when the window is spent; null when the reset or the pace is unknown.
   */
  pauseMinutes: number | null;
  thresholds: WindowThreshold[];
  /** Percentage points of this period burnt by this session (and only it). */
  sessionPercent: number;
  /** Of those, each sub-agent's (by agent id), largest first; absent when no sub-agent's call raised it. */
  subAgentPercents?: Array<{ agentId: string; percent: number }>;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * Percentage points per ms over the recent past (the lookback: a tenth of the window), and what it was measured
 * over. Never over a shorter span: the providers report whole points (Codex's `used_percent` 13.0, 14.0), so one
 * point seconds after the last would read as hundreds of percent an hour (a recorded rollout's 13% → 14% in 9 s:
 * 400%/h, "binding" a window the log shows lasting to its reset at 27%).
 * - A figure at least a lookback old: the change since the last such figure, over the time since it (`recent`).
 * - Else, a window that began within the lookback: all its use is recent, over the whole lookback (`recent`).
 * - Else the change since the period's first figure, over the lookback (`recent`).
 * - Else (one figure), the average since the window began, when its start is known (`window`); else `none`.
 */
function burnOf(
  track: WindowTrack,
  minutes: number | null,
): { perMs: number | null; basis: WindowForecast['burnBasis'] } {
  const lookbackMs = (minutes ?? 300) * 60_000 * BURN_LOOKBACK_SHARE;
  const from = track.at - lookbackMs;
  let reference: [number, number] | undefined;
  for (const sample of track.samples) {
    if (sample[0] <= from) reference = sample;
    else break;
  }
  if (reference !== undefined && reference[0] < track.at) {
    return {
      perMs: Math.max(0, track.usedPercent - reference[1]) / (track.at - reference[0]),
      basis: 'recent',
    };
  }
  const began = track.resetsAt !== null && minutes !== null ? track.resetsAt - minutes * 60_000 : null;
  if (began !== null && began >= from && track.at > began)
    return { perMs: track.usedPercent / lookbackMs, basis: 'recent' };
  const first = track.samples[0];
  if (first !== undefined && first[0] < track.at)
    return { perMs: Math.max(0, track.usedPercent - first[1]) / lookbackMs, basis: 'recent' };
  if (began !== null && track.at > began)
    return { perMs: track.usedPercent / (track.at - began), basis: 'window' };
  return { perMs: null, basis: 'none' };
}

/**
 * A window's burn and forecast at `now` (epoch ms; the last figure's time by default): seed 000's token budget with
 * the window's share as the budget — minutes remaining = left / burn per minute, the 10% / 5% tiers, `eol_approaching`
 * under 10 minutes — against the window's reset. Pure.
 */
export function forecastWindow(track: WindowTrack, now: number = track.at): WindowForecast {
  const minutes = windowMinutesOf(track);
  const left = Math.max(0, 100 - track.usedPercent);
  const exhausted = left === 0 || track.status === 'rejected';
  const { perMs, basis } = burnOf(track, minutes);
  const perMinute = perMs === null ? null : perMs * 60_000;
  const minutesRemaining = exhausted
    ? 0
    : perMinute === null || perMinute <= 0
      ? null
      : round1(left / perMinute);
  const runsOutAt =
    minutesRemaining === null
      ? null
      : exhausted
        ? track.at
        : track.at + (left / (perMinute as number)) * 60_000;
  const minutesToReset = track.resetsAt === null ? null : Math.max(0, (track.resetsAt - now) / 60_000);
  const binds = exhausted || (runsOutAt !== null && (track.resetsAt === null || runsOutAt < track.resetsAt));
  let pauseMinutes: number | null = null;
  if (minutesToReset !== null) {
    if (exhausted) pauseMinutes = round1(minutesToReset);
    else if (perMinute !== null)
      pauseMinutes = perMinute <= 0 ? 0 : round1(Math.max(0, minutesToReset - left / perMinute));
  }
  const thresholds: WindowThreshold[] = [];
  if (left < 5) thresholds.push('token_budget_5_percent');
  else if (left < 10) thresholds.push('token_budget_10_percent');
  if (minutesRemaining !== null && minutesRemaining < 10) thresholds.push('eol_approaching');
  return {
    id: track.id,
    label: windowLabel(track),
    source: track.source,
    status: track.status,
    usedPercent: track.usedPercent,
    leftPercent: round1(left),
    resetsAt: track.resetsAt,
    windowMinutes: minutes,
    at: track.at,
    burnPercentPerHour: perMinute === null ? null : Math.round(perMinute * 60 * 100) / 100,
    burnBasis: basis,
    minutesRemaining,
    runsOutAt: runsOutAt === null ? null : Math.round(runsOutAt),
    minutesToReset: minutesToReset === null ? null : round1(minutesToReset),
    bindsBeforeReset: binds,
    exhausted,
    pauseMinutes,
    thresholds,
    sessionPercent: round1(track.sessionPercent),
    ...(track.subAgentPercents
      ? {
          subAgentPercents: Object.entries(track.subAgentPercents)
            .map(([agentId, percent]) => ({ agentId, percent: round1(percent) }))
            .sort((a, b) => b.percent - a.percent || (a.agentId < b.agentId ? -1 : 1)),
        }
      : {}),
  };
}
