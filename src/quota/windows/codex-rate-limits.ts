import { isObject } from '../../usage/json-object.js';
import type { UsageWindow } from './usage-window.js';

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Codex's `rate_limits` of a rollout's `token_count` event (openai/codex, codex-rs/protocol `RateLimitSnapshot`):
 * `primary` and `secondary`, each `{ used_percent (0-100), window_minutes, resets_at (epoch seconds) }`; older
 * versions wrote `resets_in_seconds` (counted from the event's time) instead of `resets_at`. A window without a
 * finite `used_percent` is skipped. `at` is the event's time (epoch ms).
 */
export function windowsFromCodex(rateLimits: unknown, at: number): UsageWindow[] {
  if (!isObject(rateLimits)) return [];
  const windows: UsageWindow[] = [];
  for (const id of ['primary', 'secondary'] as const) {
    const window = rateLimits[id];
    if (!isObject(window)) continue;
    const used = finite(window.used_percent);
    if (used === undefined || used < 0) continue;
    const resetsAt = finite(window.resets_at);
    const resetsIn = finite(window.resets_in_seconds);
    const minutes = finite(window.window_minutes);
    windows.push({
      id,
      usedPercent: used,
      resetsAt:
        resetsAt !== undefined
          ? Math.round(resetsAt) * 1000
          : resetsIn !== undefined
            ? at + Math.round(resetsIn * 1000)
            : null,
      windowMinutes: minutes !== undefined && minutes > 0 ? Math.round(minutes) : null,
      status: null,
      source: 'log',
      at,
    });
  }
  return windows;
}
