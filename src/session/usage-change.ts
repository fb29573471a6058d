import type { BarometerConfig } from '../models/barometer-config.js';
import type { WindowTrack } from '../quota/windows/window-track.js';
import { repairFutureClock } from './clock-repair.js';
import type { PoolStanding } from './pool-reason.js';
import { poolOfOptions, type ReadPool, type SessionPool, samePool } from './pool-standings.js';
import type { UsageUpdate } from './session-options.js';
import type { SessionRecord } from './session-record.js';
import type { TimelineMarker, TimelinePoint, UsageAnswer } from './session-schemas.js';
import { markersOf, pointOf, timelineOf } from './session-timeline.js';
import { stepSession } from './step-session.js';

/** What applying one usage update produced, besides the new record. */
export interface AppliedUsage {
  step: ReturnType<typeof stepSession>;
  point: TimelinePoint;
  markers: TimelineMarker[];
}

/** What a usage update is judged with besides the session's own record. */
export interface UsageChangeOptions {
  /** The monitor's clock (epoch ms). */
  now: () => number;
  /** How far ahead of the clock an update's time may be. */
  skewMs: number;
  /** The standing of the session's pool, read before the update (with the pool read); undefined when none was. */
  pool: ReadPool | undefined;
  config?: BarometerConfig | undefined;
  accountWindows?: readonly WindowTrack[];
}

/**
 * One usage update decided on a record: applied (the new record, and what the answer reports), or not applied
 * because the session is in a pool whose standing was not read first (its verdict needs it), or was read for another
 * pool (the session was made again since, with another pool or priority). Data, not an exception:
 * the store's update writes the record as it was for the second, and the monitor reads the pool and updates again.
 */
export type UsageChange =
  | { kind: 'applied'; record: SessionRecord; applied: AppliedUsage }
  | { kind: 'needs-pool'; pool: SessionPool };

/**
 * A record with one usage update applied: the pure step, then the point and markers recorded on the record's
 * timeline (which answers a new timeline; the record given is left as it was, so a store may call this twice).
 * Everything that can throw (the step refuses a time a date cannot hold) runs before the timeline is touched.
 * @throws BarometerValidationError: a time a date cannot hold, or beyond the allowed skew
 */
export function usageChange(
  current: SessionRecord,
  update: UsageUpdate,
  options: UsageChangeOptions,
): UsageChange {
  const { now, skewMs, pool, config, accountWindows } = options;
  const sessionPool = poolOfOptions(current.state.options);
  if (sessionPool !== null && !samePool(pool?.of, sessionPool))
    return { kind: 'needs-pool', pool: sessionPool };
  // A standing read for a session no longer in a pool is not its own: it has no pool model.
  const standing: PoolStanding | null | undefined = sessionPool === null ? undefined : pool?.standing;
  const time = now();
  const state = repairFutureClock(current.state, time, time + skewMs) ?? current.state;
  const step = stepSession(state, update, {
    now: time,
    latest: time + skewMs,
    pool: standing,
    ...(config ? { config } : {}),
    ...(accountWindows?.length ? { accountWindows } : {}),
  });
  const index = step.state.generations - 1;
  const point = pointOf(step.update, index);
  const markers = markersOf(step.update.events, index);
  return {
    kind: 'applied',
    record: {
      state: step.state,
      timeline: timelineOf(current.timeline).record(point, step.update.at, markers),
      touchedAt: now(),
    },
    applied: { step, point, markers },
  };
}

/** The answer to a usage post: what the agent needs of the step it caused. */
export function usageAnswerOf(id: string, record: SessionRecord, applied: AppliedUsage): UsageAnswer {
  const { update: result } = applied.step;
  return {
    sessionId: id,
    generation: record.state.generations,
    at: applied.point.timestamp,
    costUsd: result.costUsd,
    verdict: result.verdict,
    health: result.health,
    signals: result.signals,
    regulator: result.regulator.report.pressure,
    trigger: {
      fire: result.trigger.fire,
      trigger: result.trigger.trigger ?? null,
      reasons: result.trigger.reasons,
    },
    events: result.events,
  };
}
