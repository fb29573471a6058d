import { emptyTokenWindow, type TokenWindow } from '../quota/token-window.js';
import { burnWindowOf } from './session-settings.js';
import { QUOTA_WINDOW, type SessionState } from './session-state.js';

/** How far ahead of the service's clock a live update's time may be, by default: 5 minutes. */
export const DEFAULT_CLOCK_SKEW_MS = 5 * 60_000;

/** A window whose newest bucket starts after `latest`, emptied; undefined when it is not ahead. */
function windowAhead(window: TokenWindow, bucketMs: number, latest: number): TokenWindow | undefined {
  if (window.latest === null || window.latest * bucketMs <= latest) return undefined;
  return emptyTokenWindow({ windowMs: bucketMs * window.counts.length, buckets: window.counts.length });
}

/**
 * A session whose times lie ahead of the clock by more than the tolerance (`latest` = now + skew), as an update
 * stamped 9999-12-31 left it before live times were checked (issue 29, F4): every later update was placed after
 * that time, the per-minute windows never drained, and each verdict said "wait". Its windows ahead of the clock
 * are emptied (no token counted there was spent in the last minute of real time; they refill from the next
 * update), its first/last times brought back to `now`, and a provider report from the future dropped. Answers
 * null when nothing lies ahead. Pure.
 */
export function repairFutureClock(state: SessionState, now: number, latest: number): SessionState | null {
  const ahead = (time: number | null) => time !== null && time > latest;
  const burnSpec = burnWindowOf(state);
  const burnBucketMs = burnSpec.windowMs / burnSpec.buckets;
  const quotaBucketMs = QUOTA_WINDOW.windowMs / QUOTA_WINDOW.buckets;
  const burn = windowAhead(state.burn, burnBucketMs, latest);
  const minute = windowAhead(state.minute, quotaBucketMs, latest);
  const quota = state.quota && {
    requests: windowAhead(state.quota.requests, quotaBucketMs, latest),
    input: windowAhead(state.quota.input, quotaBucketMs, latest),
    output: windowAhead(state.quota.output, quotaBucketMs, latest),
  };
  const reported = state.reported && ahead(state.reported.at);
  const quotaAhead = quota && (quota.requests || quota.input || quota.output);
  if (!ahead(state.lastAt) && !ahead(state.firstAt) && !burn && !minute && !quotaAhead && !reported)
    return null;
  return {
    ...state,
    firstAt: ahead(state.firstAt) ? now : state.firstAt,
    lastAt: ahead(state.lastAt) ? now : state.lastAt,
    burn: burn ?? state.burn,
    minute: minute ?? state.minute,
    ...(state.quota && quota
      ? {
          quota: {
            requests: quota.requests ?? state.quota.requests,
            input: quota.input ?? state.quota.input,
            output: quota.output ?? state.quota.output,
          },
        }
      : {}),
    ...(reported ? { reported: null } : {}),
  };
}
