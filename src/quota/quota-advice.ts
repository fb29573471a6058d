import type { QuotaStanding } from './quota-standings.js';
import { QUOTA_LABELS, type QuotaSurvival } from './quota-survival.js';

/** How long a session waits for a per-minute quota before compressing instead. @default 60 */
export const DEFAULT_MAX_WAIT_SECONDS = 60;

/**
 * What the per-minute quotas advise for the next request:
 * - `fits`: every quota takes it (with the survival margin), or none is known;
 * - `wait`: some quota cannot take it now, but will within `maxWaitSeconds` (a bucket refills by itself);
 * - `survival`: waiting cannot help — the request is larger than a whole per-minute limit, or the wait is longer
 *   than `maxWaitSeconds` — so seed 004's survival trigger fires (compress).
 * `waitSeconds` is when the request fits (null: never, or it fits now); `reason` says which was chosen and why.
 */
export type QuotaAdvice =
  | { kind: 'fits'; waitSeconds: null; reason: string }
  | { kind: 'wait'; waitSeconds: number; reason: string }
  | { kind: 'survival'; waitSeconds: number | null; reason: string };

/** What the advice reads besides the survival rule's checks. */
export interface QuotaAdviceInput {
  /** Seed 004's survival rule over every quota (`quotaSurvival`), undefined when no quota is known. */
  survival: QuotaSurvival | undefined;
  /**
   * The same quotas with the next request's need multiplied by the margin (`need × margin`): their
   * `waitSeconds` is when the request fits with the margin. Only read when survival fires.
   */
  withMargin: readonly QuotaStanding[];
  /** Seconds the provider asked the caller to wait (`retry-after` of a response read at this time), if any. */
  retryAfterSeconds?: number | undefined;
  maxWaitSeconds: number;
}

/**
 * Waiting is an action: when the only thing the next request lacks is per-minute quota and the bucket refills
 * within `maxWaitSeconds`, the caller waits (the prompt cache stays warm, no summarisation call) instead of
 * compressing. Survival fires only when waiting cannot help. A `retry-after` the provider sent is a floor on the
 * wait (it refused a request and said when to come back). Pure.
 */
export function quotaAdvice(input: QuotaAdviceInput): QuotaAdvice {
  const { survival, withMargin, maxWaitSeconds } = input;
  const retryAfter = input.retryAfterSeconds ?? 0;
  if (survival === undefined || !survival.fires) {
    if (retryAfter <= 0) return { kind: 'fits', waitSeconds: null, reason: fitsText(survival) };
    return waitOrSurvive(
      retryAfter,
      `the provider refused a request and asked to retry after ${retryAfter} s`,
      maxWaitSeconds,
    );
  }
  let wait = 0;
  const short: string[] = [];
  for (const check of survival.checks) {
    if (!check.over) continue;
    const label = QUOTA_LABELS[check.standing.dimension];
    if (check.standing.waitSeconds === null) {
      return {
        kind: 'survival',
        waitSeconds: null,
        reason: `waiting cannot help: the next request needs ${check.standing.need} ${label}, more than the whole limit of ${check.standing.limit}; only a smaller request fits`,
      };
    }
    const margined = withMargin.find((standing) => standing.dimension === check.standing.dimension);
    // A request that fits the whole limit but not with the margin: wait until it fits without the margin.
    const seconds = margined?.waitSeconds ?? check.standing.waitSeconds;
    wait = Math.max(wait, seconds);
    short.push(`${label}: ${check.standing.left} left, ${check.needed} needed with the margin`);
  }
  const why = `${short.join('; ')}; the bucket refills in ${Math.max(wait, retryAfter)} s`;
  return waitOrSurvive(
    Math.max(wait, retryAfter),
    retryAfter > wait ? `${why} (the provider asked to retry after ${retryAfter} s)` : why,
    maxWaitSeconds,
  );
}

function waitOrSurvive(seconds: number, why: string, maxWaitSeconds: number): QuotaAdvice {
  const waitSeconds = Math.max(0.1, Math.ceil(seconds * 10) / 10);
  if (waitSeconds > maxWaitSeconds) {
    return {
      kind: 'survival',
      waitSeconds,
      reason: `waiting cannot help: ${why}, longer than maxWaitSeconds (${maxWaitSeconds} s); compress instead`,
    };
  }
  return {
    kind: 'wait',
    waitSeconds,
    reason: `wait ${waitSeconds} s rather than compress: ${why} (at most maxWaitSeconds, ${maxWaitSeconds} s); waiting keeps the prompt cache, compressing rewrites it and costs a summary`,
  };
}

function fitsText(survival: QuotaSurvival | undefined): string {
  if (survival === undefined) return 'no per-minute quota known';
  const parts = survival.checks.map(
    ({ standing, needed }) => `${QUOTA_LABELS[standing.dimension]} ${standing.left} left >= ${needed}`,
  );
  return `the next request fits every per-minute quota (${parts.join('; ')})`;
}
