import type { StatuslineReport } from '../integrations/claude-code-statusline.js';
import type { Color, Paint } from './colors.js';

/** The dot's colour per health level, as the dashboard's indicator. */
const DOT: Readonly<Record<StatuslineReport['health'], Color>> = {
  healthy: 'green',
  caution: 'yellow',
  critical: 'red',
  unknown: 'gray',
};

/** 167000 → "167k", 1000000 → "1M", 258400 → "258k". */
export function compactTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${Number((tokens / 1_000_000).toFixed(1))}M`;
  if (tokens >= 1_000) return `${Math.round(tokens / 1_000)}k`;
  return String(tokens);
}

/** 121615 → "121,615", without toLocaleString: loading ICU's number formats costs a one-shot process ~10 ms. */
export function groupDigits(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function money(usd: number): string {
  if (usd > 0 && usd < 0.01) return '<$0.01';
  return `$${usd.toFixed(2)}`;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** An ISO time as the user's clock shows it: `13:55`, with the weekday (`Fri 09:10`) when not within a day. */
function clockTime(iso: string, now: number): string {
  const time = new Date(iso);
  const hhmm = `${String(time.getHours()).padStart(2, '0')}:${String(time.getMinutes()).padStart(2, '0')}`;
  return time.getTime() - now < 86_400_000 ? hhmm : `${WEEKDAYS[time.getDay()]} ${hhmm}`;
}

/**
 * One plan window: `5h 62% · runs out 13:55 · resets 14:30` when it runs out before its reset at the measured pace
 * (the share in red), else `5h 62% · resets 14:30`; a weekly window is shown by its share alone unless it binds.
 */
export function formatWindow(window: StatuslineReport['windows'][number], paint: Paint, now: number): string {
  const used = `${Math.round(window.usedPercent)}%`;
  const parts = [`${window.label} ${window.bindsBeforeReset ? paint('red', used) : used}`];
  const short = (window.windowMinutes ?? 0) <= 300;
  if (!short && !window.bindsBeforeReset) return parts[0] as string;
  if (window.bindsBeforeReset && !window.exhausted && window.runsOutAt !== null)
    parts.push(`runs out ${clockTime(window.runsOutAt, now)}`);
  if (window.resetsAt !== null) parts.push(`resets ${clockTime(window.resetsAt, now)}`);
  return parts.join(' · ');
}

/**
 * The status line: a health dot, the share of the effective window, the prompt tokens, the verdict and the
 * session's cost, e.g. `● 62% of 167k · 104,211 tokens · compress · $1.23`, then the plan's windows when Claude Code
 * sends `rate_limits`: `· 5h 62% · runs out 13:55 · resets 14:30 · 7d 41%`.
 */
export function formatStatusline(report: StatuslineReport, paint: Paint, now: number = Date.now()): string {
  const parts: string[] = [];
  const window = report.window === null ? '' : ` of ${compactTokens(report.window)}`;
  if (report.promptTokens === null) {
    parts.push(`—${window}`, 'no usage yet');
  } else {
    const percent = report.percentOfWindow === null ? '—' : `${Math.round(report.percentOfWindow)}%`;
    parts.push(`${percent}${window}`, `${groupDigits(report.promptTokens)} tokens`);
  }
  if (report.action !== null)
    parts.push(report.newRoundDue ? `${report.action} (new round due)` : report.action);
  if (report.costUsd !== null) parts.push(money(report.costUsd));
  // The plan's windows, the 5-hour one first (the one a day's work runs into).
  const windows = report.windows.slice().sort((a, b) => (a.windowMinutes ?? 0) - (b.windowMinutes ?? 0));
  for (const window of windows) parts.push(formatWindow(window, paint, now));
  return `${paint(DOT[report.health], '●')} ${parts.join(' · ')}`;
}
