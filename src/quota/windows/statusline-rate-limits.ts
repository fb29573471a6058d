import * as z from 'zod';
import { KNOWN_WINDOW_MINUTES, type UsageWindow } from './usage-window.js';

const statuslineWindow = z.looseObject({
  used_percentage: z.number().finite().min(0).max(1000),
  resets_at: z.number().finite().min(0).nullable().optional(),
});

/**
 * Claude Code's status line `rate_limits` (since 2.1.80; Claude.ai Pro/Max subscribers, after the session's first
 * answer): `five_hour` and `seven_day`, each `{ used_percentage (0-100), resets_at (epoch seconds) }`. Other keys
 * (`spend_limit` on a gateway) are let through unread.
 */
export const StatuslineRateLimitsSchema = z.looseObject({
  five_hour: statuslineWindow.nullable().optional(),
  seven_day: statuslineWindow.nullable().optional(),
});
export type StatuslineRateLimits = z.infer<typeof StatuslineRateLimitsSchema>;

/** The status line's windows, read at `at` (epoch ms). */
export function windowsFromStatusline(rateLimits: StatuslineRateLimits, at: number): UsageWindow[] {
  const windows: UsageWindow[] = [];
  for (const id of ['five_hour', 'seven_day'] as const) {
    const window = rateLimits[id];
    if (!window) continue;
    windows.push({
      id,
      usedPercent: window.used_percentage,
      resetsAt: typeof window.resets_at === 'number' ? Math.round(window.resets_at) * 1000 : null,
      windowMinutes: KNOWN_WINDOW_MINUTES[id] ?? null,
      status: null,
      source: 'statusline',
      at,
    });
  }
  return windows;
}
