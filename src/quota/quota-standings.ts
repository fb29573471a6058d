import { type TokenWindow, type TokenWindowSpec, windowExpiryAtMost, windowTokens } from './token-window.js';

/** The per-minute quota dimensions a provider may limit. */
export const QUOTA_DIMENSIONS = ['requests', 'input', 'output', 'tokens'] as const;
export type QuotaDimension = (typeof QUOTA_DIMENSIONS)[number];

/** What a response's headers reported for one dimension, when it was read (epoch ms). */
export interface ReportedDimension {
  at: number;
  limit?: number;
  remaining?: number;
  resetAt?: number;
}

/** One dimension as the session sees it now. */
export interface QuotaStanding {
  dimension: QuotaDimension;
  limit: number;
  /** Counted in the last 60 s (the estimate), or limit − remaining as the headers reported. */
  used: number;
  left: number;
  /** What the next request of the expected size needs of it. */
  need: number;
  /** `headers` when the provider's own figures of this response are used, else `estimate`. */
  source: 'headers' | 'estimate';
  /** Seconds until `need` fits; 0 when it fits now; null when it can never fit (need > limit). */
  waitSeconds: number | null;
}

export interface QuotaDimensionInput {
  dimension: QuotaDimension;
  /** The configured limit, if any; a limit the headers report wins. */
  limit: number | null;
  window: TokenWindow;
  need: number;
  reported?: ReportedDimension;
}

/**
 * Where a session stands against each quota it knows a limit for, and when the next request fits.
 * - Estimate: what the session counted in the last 60 s (a sliding window). The wait is the time until enough
 *   of the counted buckets leave the window — conservative for providers that refill continuously.
 * - Headers (read at this very update): `remaining` is the provider's own figure. The wait assumes the bucket
 *   refills evenly until `resetAt` (Anthropic: "continuously replenished up to your maximum limit"; OpenAI: the
 *   time until the limit is back to its initial state), else at `limit` per minute.
 * Pure: time is `now`.
 */
export function quotaStandings(
  inputs: readonly QuotaDimensionInput[],
  spec: TokenWindowSpec,
  now: number,
): QuotaStanding[] {
  const standings: QuotaStanding[] = [];
  for (const input of inputs) {
    const fresh = input.reported !== undefined && input.reported.at === now ? input.reported : undefined;
    const limit = fresh?.limit ?? input.limit;
    if (limit === null || limit === undefined) {
      if (fresh?.remaining === undefined) continue;
    }
    if (fresh?.remaining !== undefined) {
      const remaining = fresh.remaining;
      const effectiveLimit = limit ?? remaining;
      let waitSeconds: number | null = 0;
      if (input.need > effectiveLimit) waitSeconds = null;
      else if (input.need > remaining) {
        const refillPerMs =
          fresh.resetAt !== undefined && fresh.resetAt > now && effectiveLimit > remaining
            ? (effectiveLimit - remaining) / (fresh.resetAt - now)
            : effectiveLimit / spec.windowMs;
        waitSeconds = refillPerMs > 0 ? roundUp((input.need - remaining) / refillPerMs / 1000) : null;
      }
      standings.push({
        dimension: input.dimension,
        limit: effectiveLimit,
        used: Math.max(0, effectiveLimit - remaining),
        left: remaining,
        need: input.need,
        source: 'headers',
        waitSeconds,
      });
      continue;
    }
    const cap = limit as number;
    const used = windowTokens(input.window, spec, now);
    const left = Math.max(0, cap - used);
    let waitSeconds: number | null = 0;
    if (input.need > cap) waitSeconds = null;
    else if (input.need > left) {
      // The next request fits once enough of the counted buckets have left the window (walked, not listed).
      const fitsAt = windowExpiryAtMost(input.window, spec, now, cap - input.need, used);
      waitSeconds = fitsAt === null ? null : roundUp(Math.max(0, fitsAt - now) / 1000);
    }
    standings.push({
      dimension: input.dimension,
      limit: cap,
      used,
      left,
      need: input.need,
      source: 'estimate',
      waitSeconds,
    });
  }
  return standings;
}

function roundUp(seconds: number): number {
  return Math.ceil(seconds * 10) / 10;
}
