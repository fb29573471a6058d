import { z } from 'zod';
import { isoTime } from './iso-time.js';
import {
  type MarkerType,
  type SessionEvent,
  type SessionSummary,
  type SessionView,
  type TimelineMarker,
  TimelineMarkerSchema,
  type TimelinePoint,
  TimelinePointSchema,
} from './session-schemas.js';
import type { SessionState } from './session-state.js';
import { healthOf, type SessionUpdate, signalsOf } from './step-session.js';

export type {
  MarkerType,
  SessionSummary,
  SessionView,
  TimelineMarker,
  TimelinePoint,
} from './session-schemas.js';

/** @default 500 points and 200 markers: enough for a chart, bounded however long the session runs. */
export const DEFAULT_TIMELINE_POINTS = 500;
export const DEFAULT_TIMELINE_MARKERS = 200;

/** The recent history of a session for people to look at, as plain JSON: points and markers, both bounded. */
export const TimelineSchema = z.strictObject({
  points: z.array(TimelinePointSchema),
  markers: z.array(TimelineMarkerSchema),
});
export type Timeline = z.infer<typeof TimelineSchema>;

export function emptyTimeline(): Timeline {
  return { points: [], markers: [] };
}

const MARKER_TYPES = new Set<string>([
  'compaction',
  'forced_new_round',
  'reminder_added',
  'reminder_dropped',
]);

function describe(event: SessionEvent): string {
  switch (event.type) {
    case 'compaction':
      return `${event.trigger} compaction${event.before === null ? '' : ` from ${event.before}`}${event.after === null ? '' : ` to ${event.after}`} tokens`;
    case 'forced_new_round':
      return `forced new round at ${event.promptTokens} prompt tokens (critical ${event.critical})`;
    case 'reminder_added':
      return `context_health reminder added (${event.level})`;
    case 'reminder_dropped':
      return `context_health reminder dropped at ${event.promptTokens} prompt tokens`;
    default:
      return event.type;
  }
}

/** The timeline point of one update; `index` is the generation's 0-based number. */
export function pointOf(update: SessionUpdate, index: number): TimelinePoint {
  const pressure = update.regulator.report.pressure;
  return {
    index,
    timestamp: isoTime(update.at),
    promptTokens: update.signals.lastPromptTokens,
    completionTokens: update.signals.lastCompletionTokens,
    health: update.health.level,
    regulatorLevel: pressure.level,
    viability: pressure.sessionViability,
    burnRate: update.signals.burnRateTokensPerMin,
    action: update.verdict.action,
    countdown: update.health.countdown,
    reminder: update.health.reminder !== null,
  };
}

/** The markers of some events (compactions, forced new rounds, reminders); other events make none. */
export function markersOf(events: readonly SessionEvent[], index: number): TimelineMarker[] {
  const markers: TimelineMarker[] = [];
  for (const event of events) {
    if (!MARKER_TYPES.has(event.type)) continue;
    markers.push({
      type: event.type as MarkerType,
      timestamp: isoTime(event.at),
      index,
      detail: describe(event),
    });
  }
  return markers;
}

/** A new timeline with the points and markers appended, the oldest dropped past the limits. */
export function appendToTimeline(
  timeline: Timeline,
  points: readonly TimelinePoint[],
  markers: readonly TimelineMarker[],
  limits: { points: number; markers: number } = {
    points: DEFAULT_TIMELINE_POINTS,
    markers: DEFAULT_TIMELINE_MARKERS,
  },
): Timeline {
  return {
    points: points.length ? capped(timeline.points, points, limits.points) : timeline.points,
    markers: markers.length ? capped(timeline.markers, markers, limits.markers) : timeline.markers,
  };
}

/**
 * {@link appendToTimeline} into the given timeline itself, for an owner that replaces the record holding it and
 * lets no one else keep its arrays (the monitor over its memory store): a new timeline copies up to 500 points on
 * every update, the largest allocation of an update. Returns the same timeline.
 */
export function appendToTimelineInPlace(
  timeline: Timeline,
  points: readonly TimelinePoint[],
  markers: readonly TimelineMarker[],
  limits: { points: number; markers: number } = {
    points: DEFAULT_TIMELINE_POINTS,
    markers: DEFAULT_TIMELINE_MARKERS,
  },
): Timeline {
  pushCapped(timeline.points, points, limits.points);
  pushCapped(timeline.markers, markers, limits.markers);
  return timeline;
}

function pushCapped<T>(target: T[], added: readonly T[], limit: number): void {
  for (const item of added) target.push(item);
  // V8 drops the first element of a long array by moving the array's start: no copy.
  while (target.length > limit) target.shift();
}

function capped<T>(current: readonly T[], added: readonly T[], limit: number): T[] {
  const keep = Math.max(0, limit - added.length);
  const start = Math.max(0, current.length - keep);
  const result = current.slice(start);
  for (const item of added.length > limit ? added.slice(added.length - limit) : added) result.push(item);
  return result;
}

/**
 * A timeline to fill by hand (a replay, a library user showing a chart): the same data as {@link Timeline},
 * with the two operations that grow it.
 */
export class SessionTimeline {
  #timeline: Timeline = emptyTimeline();
  readonly #limits: { points: number; markers: number };

  constructor(maxPoints = DEFAULT_TIMELINE_POINTS, maxMarkers = DEFAULT_TIMELINE_MARKERS) {
    this.#limits = { points: maxPoints, markers: maxMarkers };
  }
  get points(): TimelinePoint[] {
    return this.#timeline.points;
  }
  get markers(): TimelineMarker[] {
    return this.#timeline.markers;
  }
  get data(): Timeline {
    return this.#timeline;
  }

  record(update: SessionUpdate, index: number, extraEvents: SessionEvent[] = []): void {
    this.#timeline = appendToTimeline(
      this.#timeline,
      [pointOf(update, index)],
      markersOf([...extraEvents, ...update.events], index),
      this.#limits,
    );
  }

  /** Adds a marker for an event that is one (a compaction, a forced new round, a reminder); others are ignored. */
  mark(event: SessionEvent, index: number): void {
    this.#timeline = appendToTimeline(this.#timeline, [], markersOf([event], index), this.#limits);
  }
}

/** A session's summary: everything but its timeline (what lists and the all-sessions stream carry). */
export function sessionSummary(state: SessionState): SessionSummary {
  return {
    id: state.id,
    model: state.model,
    agent: state.agent,
    createdAt: isoTime(state.createdAt),
    updatedAt: state.lastAt === null ? null : isoTime(state.lastAt),
    generations: state.generations,
    profile: {
      contextWindow: state.thresholds.limit,
      optimalMaxTokens: state.thresholds.optimal,
      criticalMaxTokens: state.thresholds.critical,
      tpmLimit: state.profile.tpmLimit ?? null,
      tokenBudget: state.options.tokenBudget ?? null,
    },
    signals: signalsOf(state),
    health: healthOf(state),
    regulator: state.lastPressure,
    verdict: state.lastVerdict,
  };
}

/** The JSON view of a session: what `GET /api/v1/sessions/:id` answers (see docs/sessions-api.md). */
export function sessionView(state: SessionState, timeline: Timeline = emptyTimeline()): SessionView {
  // Copies: a view stays as it was answered while the monitor appends to the timeline in place.
  return { ...sessionSummary(state), timeline: timeline.points.slice(), markers: timeline.markers.slice() };
}
