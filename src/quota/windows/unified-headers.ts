import type { UsageWindow, WindowStatus } from './usage-window.js';
import { KNOWN_WINDOW_MINUTES, WINDOW_STATUSES } from './usage-window.js';

/**
 * The windows of Anthropic's unified rate-limit headers and the abbreviation each header uses, as Claude Code 2.1.328
 * reads them: `anthropic-ratelimit-unified-{5h,7d,7d_oi}-{utilization,reset,status}`.
 */
const HEADER_WINDOWS: ReadonlyArray<readonly [string, string]> = [
  ['five_hour', '5h'],
  ['seven_day', '7d'],
  ['seven_day_overage_included', '7d_oi'],
];

/** What a response's unified headers say besides the windows. */
export interface UnifiedHeaders {
  windows: UsageWindow[];
  /** `anthropic-ratelimit-unified-status`: the request's overall status. */
  status: WindowStatus | null;
  /** `anthropic-ratelimit-unified-representative-claim`: the window that binds (`five_hour`, `seven_day_opus`, …). */
  representativeClaim: string | null;
  /** `anthropic-ratelimit-unified-reset` (epoch ms): when the binding window resets. */
  resetsAt: number | null;
}

function finiteNumber(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

function statusOf(text: string | undefined): WindowStatus | null {
  return (WINDOW_STATUSES as readonly string[]).includes(text ?? '') ? (text as WindowStatus) : null;
}

/**
 * Anthropic's unified rate-limit headers (subscription traffic: Claude Pro/Max through Claude Code), read as Claude
 * Code reads them: `-{5h,7d}-utilization` is the used share as a fraction (0.62 = 62%; Claude Code's status line shows
 * `round(utilization × 1000) / 10`, at most 100), `-{5h,7d}-reset` the reset as epoch seconds, `-{5h,7d}-status`
 * allowed | allowed_warning | rejected. The representative claim names the window that binds; a model-scoped weekly
 * window (`seven_day_opus`, `seven_day_sonnet`) is known only through it, so it becomes a window of its own only when
 * the request was rejected on it (used 100%, reset from `-unified-reset`). `headers` are lower-cased names.
 */
export function readUnifiedHeaders(headers: ReadonlyMap<string, string>, at: number): UnifiedHeaders {
  const windows: UsageWindow[] = [];
  for (const [id, abbreviation] of HEADER_WINDOWS) {
    const utilization = finiteNumber(headers.get(`anthropic-ratelimit-unified-${abbreviation}-utilization`));
    if (utilization === undefined || utilization < 0) continue;
    const reset = finiteNumber(headers.get(`anthropic-ratelimit-unified-${abbreviation}-reset`));
    windows.push({
      id,
      usedPercent: Math.min(100, Math.round(utilization * 1000) / 10),
      resetsAt: reset === undefined ? null : Math.round(reset) * 1000,
      windowMinutes: KNOWN_WINDOW_MINUTES[id] ?? null,
      status: statusOf(headers.get(`anthropic-ratelimit-unified-${abbreviation}-status`)),
      source: 'headers',
      at,
    });
  }
  const status = statusOf(headers.get('anthropic-ratelimit-unified-status'));
  const claim = headers.get('anthropic-ratelimit-unified-representative-claim')?.trim() || null;
  const reset = finiteNumber(headers.get('anthropic-ratelimit-unified-reset'));
  const resetsAt = reset === undefined ? null : Math.round(reset) * 1000;
  if (claim !== null && status === 'rejected' && /^seven_day_(opus|sonnet)$/.test(claim)) {
    if (!windows.some((window) => window.id === claim))
      windows.push({
        id: claim,
        usedPercent: 100,
        resetsAt,
        windowMinutes: KNOWN_WINDOW_MINUTES[claim] ?? null,
        status: 'rejected',
        source: 'headers',
        at,
      });
  }
  return { windows, status, representativeClaim: claim, resetsAt };
}
