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

/**
 * The status line: a health dot, the share of the effective window, the prompt tokens, the verdict and the
 * session's cost, e.g. `● 62% of 167k · 104,211 tokens · compress · $1.23`.
 */
export function formatStatusline(report: StatuslineReport, paint: Paint): string {
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
  return `${paint(DOT[report.health], '●')} ${parts.join(' · ')}`;
}
