import * as z from 'zod';

/**
 * Where a subscription window's figures were read: Claude Code's status line input (`rate_limits`), a provider
 * response's unified rate-limit headers (`anthropic-ratelimit-unified-*`, the proxy and the SDK wrappers), or an
 * agent's own log (Codex rollouts' `token_count` events).
 */
export const WINDOW_SOURCES = ['statusline', 'headers', 'log'] as const;
export type WindowSource = (typeof WINDOW_SOURCES)[number];

/** A window's status as Anthropic's unified headers state it (`-5h-status`, `-7d-status`, `-status`). */
export const WINDOW_STATUSES = ['allowed', 'allowed_warning', 'rejected'] as const;
export type WindowStatus = (typeof WINDOW_STATUSES)[number];

/**
 * The windows the providers name. Anthropic (Claude Code's source): `five_hour` (300 minutes), `seven_day`
 * (10,080), the model-scoped weekly windows `seven_day_opus` and `seven_day_sonnet` (named by the representative
 * claim), `seven_day_overage_included`. Codex: `primary` and `secondary`, whose length the log states
 * (`window_minutes`: 300 and 10,080 in the recorded rollouts).
 */
export const KNOWN_WINDOW_MINUTES: Readonly<Record<string, number>> = {
  five_hour: 300,
  seven_day: 10_080,
  seven_day_opus: 10_080,
  seven_day_sonnet: 10_080,
  seven_day_overage_included: 10_080,
};

/** One subscription window as one surface saw it at one time. */
export interface UsageWindow {
  /** `five_hour`, `seven_day`, `seven_day_opus`, `seven_day_sonnet`, `seven_day_overage_included`, `primary`, `secondary`. */
  id: string;
  /** Share of the window used, 0-100 (a provider may report a little over 100 once it refuses). */
  usedPercent: number;
  /** When the window resets (epoch ms), null when the surface does not say. */
  resetsAt: number | null;
  /** The window's length in minutes, null when unknown. */
  windowMinutes: number | null;
  /** The provider's own status for this window, null when the surface does not say. */
  status: WindowStatus | null;
  source: WindowSource;
  /** When it was read (epoch ms). */
  at: number;
}

const epochMs = z.number().finite().min(0);

/** One window observation, as a usage update (HTTP, hooks, watch) may carry it. */
export const UsageWindowSchema = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z0-9_.-]+$/, 'lower-case letters, digits, `_`, `.` or `-`'),
    usedPercent: z.number().finite().min(0).max(1000),
    resetsAt: epochMs.nullable(),
    windowMinutes: z.number().int().min(1).max(1_000_000).nullable(),
    status: z.enum(WINDOW_STATUSES).nullable(),
    source: z.enum(WINDOW_SOURCES),
    at: epochMs,
  })
  .meta({ id: 'UsageWindow' });

/**
 * A short name for a window: `5h`, `7d`, `7d opus`; a Codex window by its stated length (`primary` of 300 minutes is
 * `5h`), else its id.
 */
export function windowLabel(window: Pick<UsageWindow, 'id' | 'windowMinutes'>): string {
  const minutes = window.windowMinutes ?? KNOWN_WINDOW_MINUTES[window.id] ?? null;
  const scope = /^seven_day_(opus|sonnet)$/.exec(window.id)?.[1];
  if (minutes === null) return window.id;
  const length =
    minutes % 1440 === 0 ? `${minutes / 1440}d` : minutes % 60 === 0 ? `${minutes / 60}h` : `${minutes}m`;
  return scope === undefined ? length : `${length} ${scope}`;
}

/** A window's length: the stated one, else the provider's known one for its id, else null. */
export function windowMinutesOf(window: Pick<UsageWindow, 'id' | 'windowMinutes'>): number | null {
  return window.windowMinutes ?? KNOWN_WINDOW_MINUTES[window.id] ?? null;
}
