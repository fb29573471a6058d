/** Text formatting of figures for the dashboard: pure, so the same figure reads the same everywhere. */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `123456` → `123,456`; `null` → `—`. */
export function formatTokens(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : integer.format(value);
}

/** `123456` → `123K`, `1_250_000` → `1.25M`: for axes where space is short. */
export function formatCompactTokens(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1_000_000) return `${trim(value / 1_000_000, 2)}M`;
  if (magnitude >= 1_000) return `${trim(value / 1_000, magnitude >= 100_000 ? 0 : 1)}K`;
  return `${Math.round(value)}`;
}

function trim(value: number, digits: number): string {
  return Number(value.toFixed(digits)).toString();
}

/** `61.54` → `61.5%`; `null` → `—`. */
export function formatPercent(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : `${trim(value, 1)}%`;
}

/** A saving as a change: "−12.3%" for 12.3% saved, "+2.1%" for 2.1% more (a what-if that costs more says so). */
export function formatSaving(savedPercent: number): string {
  return savedPercent >= 0 ? `−${formatPercent(savedPercent)}` : `+${formatPercent(-savedPercent)}`;
}

/**
 * Time since `iso` at `now` (epoch ms), as "5s ago", "3m ago", "2h ago", "4d ago"; "never" without a time.
 * A time slightly in the future (clock skew between server and browser) reads "just now".
 */
export function formatAgo(iso: string | null | undefined, now: number): string {
  if (!iso) return 'never';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return 'never';
  const seconds = Math.floor((now - then) / 1000);
  if (seconds < 1) return 'just now';
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}

/** An ISO time as a short local clock time, for tables and the chart legend. */
export function formatClock(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '—' : date.toLocaleTimeString('en-GB', { hour12: false });
}

/** A file size in KiB/MiB for the replay form. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trim(bytes / 1024, 1)} KiB`;
  return `${trim(bytes / (1024 * 1024), 1)} MiB`;
}

/** US dollars: `9.52615` → `$9.53`, under a dollar to the cent's tenth (`$0.0855` → `$0.086`); `null` → `—`. */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (value > 0 && value < 0.01) return '<$0.01';
  return value < 1 ? `$${trim(value, 3)}` : `$${value.toFixed(2)}`;
}
