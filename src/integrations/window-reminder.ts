import type { WindowForecastView } from '../session/session-schemas.js';

/** How soon a window must run out for the prompt hook to remind the agent (minutes). @default 30 */
export const DEFAULT_WINDOW_REMINDER_MINUTES = 30;

function clock(iso: string): string {
  return `${iso.slice(11, 16)}Z`;
}

/**
 * The reminder a submitted prompt gets when a subscription window will run out soon: spent, or running out before
 * its reset at the measured pace within `withinMinutes` of `now` (epoch ms). Null when none will (or `withinMinutes`
 * is 0: reminders off). One sentence per window, then what to do: the agent reads it as context.
 */
export function windowReminder(
  windows: readonly WindowForecastView[],
  withinMinutes: number,
  now: number,
): string | null {
  if (withinMinutes <= 0) return null;
  const lines: string[] = [];
  for (const window of windows) {
    const reset =
      window.resetsAt === null
        ? 'its reset time is not known'
        : `it resets at ${clock(window.resetsAt)}, in ${Math.max(0, Math.round((Date.parse(window.resetsAt) - now) / 60_000))} min`;
    if (window.exhausted) {
      lines.push(
        `The ${window.label} usage window is spent (${Math.round(window.usedPercent)}% used); ${reset}.`,
      );
      continue;
    }
    if (!window.bindsBeforeReset || window.runsOutAt === null) continue;
    const minutes = (Date.parse(window.runsOutAt) - now) / 60_000;
    if (minutes > withinMinutes) continue;
    const pace = window.burnPercentPerHour === null ? '' : ` (${window.burnPercentPerHour}%/h)`;
    lines.push(
      `The ${window.label} usage window is ${Math.round(window.usedPercent)}% used and runs out in about ${Math.max(0, Math.round(minutes))} min at the recent pace${pace}, before its reset: ${reset}.`,
    );
  }
  if (lines.length === 0) return null;
  return `Subscription window (barometer): ${lines.join(' ')} Spend less per step until then: finish the current task before starting another, do not start sub-agents or broad searches, and keep outputs short.`;
}
