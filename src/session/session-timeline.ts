import { z } from 'zod';
import type { JsonLines, WritesOwnLines } from '../store/append-only-list.js';
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
      timestamp: event.at,
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
 * One usage update's point appended to the timeline of a session its owner keeps (the monitor over its memory
 * store), with the update's time as epoch ms: the timeline becomes a {@link ColumnTimeline} (once), whose points
 * are numbers in columns. An object kept per update for its 500 next updates was the costliest thing a usage post
 * left behind (each one survives young-generation collections and dies in the old one): the columns keep none.
 * Returns the timeline to keep.
 */
export function appendPointInPlace(
  timeline: Timeline,
  point: TimelinePoint,
  at: number,
  markers: readonly TimelineMarker[],
  limits: { points: number; markers: number } = {
    points: DEFAULT_TIMELINE_POINTS,
    markers: DEFAULT_TIMELINE_MARKERS,
  },
): Timeline {
  const columns =
    timeline instanceof ColumnTimeline && timeline.capacity === limits.points
      ? timeline
      : ColumnTimeline.from(timeline, limits.points);
  columns.append(point, at);
  pushCapped(columns.markers, markers, limits.markers);
  return columns;
}

/**
 * A timeline whose points are kept as numbers in fixed columns (a ring of `capacity`), and given as point objects
 * when read: `points` makes them (once until the next append), `toJSON` writes the plain {@link Timeline}. Its
 * markers (a few per session) are a plain array. Nothing of it is enumerable but `markers`, so that a copy made
 * with a spread does not carry the columns.
 */
export class ColumnTimeline implements Timeline, WritesOwnLines {
  markers: TimelineMarker[];
  readonly #capacity: number;
  readonly #index: Float64Array;
  readonly #at: Float64Array;
  /** NaN for null. */
  readonly #promptTokens: Float64Array;
  readonly #completionTokens: Float64Array;
  readonly #viability: Float64Array;
  readonly #burnRate: Float64Array;
  readonly #countdown: Float64Array;
  readonly #reminder: Uint8Array;
  readonly #health: Array<TimelinePoint['health']>;
  readonly #regulatorLevel: Array<TimelinePoint['regulatorLevel']>;
  readonly #action: Array<TimelinePoint['action']>;
  /** Slot of the oldest point, and how many points are kept. */
  #start = 0;
  #length = 0;
  #points: TimelinePoint[] | undefined;
  /** Slot → the point's timestamp as it was read, for the few whose epoch ms `isoTime` would not write so. */
  readonly #foreign = new Map<number, string>();

  constructor(capacity: number, markers: TimelineMarker[] = []) {
    this.#capacity = capacity;
    this.markers = markers;
    this.#index = new Float64Array(capacity);
    this.#at = new Float64Array(capacity);
    this.#promptTokens = new Float64Array(capacity);
    this.#completionTokens = new Float64Array(capacity);
    this.#viability = new Float64Array(capacity);
    this.#burnRate = new Float64Array(capacity);
    this.#countdown = new Float64Array(capacity);
    this.#reminder = new Uint8Array(capacity);
    this.#health = new Array<TimelinePoint['health']>(capacity).fill('unknown');
    this.#regulatorLevel = new Array<TimelinePoint['regulatorLevel']>(capacity).fill('LOW');
    this.#action = new Array<TimelinePoint['action']>(capacity).fill('continue');
  }

  /**
   * A timeline's last `capacity` points in columns, and its markers. A point whose timestamp is not what
   * `isoTime` writes for its time (not written by this program) keeps its text as it was.
   */
  static from(timeline: Timeline, capacity: number): ColumnTimeline {
    const columns = new ColumnTimeline(capacity, timeline.markers.slice());
    const points = timeline.points;
    for (let index = Math.max(0, points.length - capacity); index < points.length; index++) {
      const point = points[index] as TimelinePoint;
      const at = Date.parse(point.timestamp);
      const slot = columns.append(point, Number.isFinite(at) ? at : 0);
      if (!Number.isFinite(at) || isoTime(at) !== point.timestamp)
        columns.#foreign.set(slot, point.timestamp);
    }
    return columns;
  }

  /** How many points it keeps. */
  get capacity(): number {
    return this.#capacity;
  }

  /**
   * Keeps a point (its time as epoch ms, which `isoTime` writes as its timestamp); the oldest goes past capacity.
   * Answers the slot it took.
   */
  append(point: TimelinePoint, at: number): number {
    let slot: number;
    const capacity = this.#capacity;
    if (this.#length < capacity) {
      slot = (this.#start + this.#length) % capacity;
      this.#length++;
    } else {
      slot = this.#start;
      this.#start = (this.#start + 1) % capacity;
    }
    this.#index[slot] = point.index;
    this.#at[slot] = at;
    this.#promptTokens[slot] = point.promptTokens ?? Number.NaN;
    this.#completionTokens[slot] = point.completionTokens ?? Number.NaN;
    this.#viability[slot] = point.viability;
    this.#burnRate[slot] = point.burnRate;
    this.#countdown[slot] = point.countdown ?? Number.NaN;
    this.#reminder[slot] = point.reminder ? 1 : 0;
    this.#health[slot] = point.health;
    this.#regulatorLevel[slot] = point.regulatorLevel;
    this.#action[slot] = point.action;
    if (this.#foreign.size > 0) this.#foreign.delete(slot);
    this.#points = undefined;
    return slot;
  }

  /** The points, oldest first, as objects (made when first read after a change). */
  get points(): TimelinePoint[] {
    if (this.#points !== undefined) return this.#points;
    const points: TimelinePoint[] = [];
    for (let offset = 0; offset < this.#length; offset++) {
      const slot = (this.#start + offset) % this.#capacity;
      const prompt = this.#promptTokens[slot] as number;
      const completion = this.#completionTokens[slot] as number;
      const countdown = this.#countdown[slot] as number;
      points.push({
        index: this.#index[slot] as number,
        timestamp: this.#timestampOf(slot),
        promptTokens: Number.isNaN(prompt) ? null : prompt,
        completionTokens: Number.isNaN(completion) ? null : completion,
        health: this.#health[slot] as TimelinePoint['health'],
        regulatorLevel: this.#regulatorLevel[slot] as TimelinePoint['regulatorLevel'],
        viability: this.#viability[slot] as number,
        burnRate: this.#burnRate[slot] as number,
        action: this.#action[slot] as TimelinePoint['action'],
        countdown: Number.isNaN(countdown) ? null : countdown,
        reminder: this.#reminder[slot] === 1,
      });
    }
    this.#points = points;
    return points;
  }

  #timestampOf(slot: number): string {
    return this.#foreignAt(slot) || isoTime(this.#at[slot] as number);
  }

  /** The kept text of a slot's time when isoTime would not write it back the same (read from a file). */
  #foreignAt(slot: number): string | undefined {
    return this.#foreign.size > 0 ? this.#foreign.get(slot) : undefined;
  }

  toJSON(): Timeline {
    return { points: this.points, markers: this.markers };
  }

  /**
   * The JSON lines of the points whose index comes after `last` (all of them for undefined), written from the
   * columns as JSON.stringify writes each point: the session files append them without making the points as
   * objects. Undefined when no kept point has the index `last`; null for the markers, which are an array.
   */
  jsonLinesAfter(name: string, last: unknown): JsonLines | undefined | null {
    if (name !== 'points') return null;
    const capacity = this.#capacity;
    let from = 0;
    if (last !== undefined) {
      from = -1;
      for (let offset = this.#length - 1; offset >= 0; offset--) {
        if (this.#index[(this.#start + offset) % capacity] === last) {
          from = offset + 1;
          break;
        }
      }
      if (from < 0) return undefined;
    }
    let text = '';
    for (let offset = from; offset < this.#length; offset++) {
      const slot = (this.#start + offset) % capacity;
      // A time isoTime writes holds only digits and "+-:.TZ": quoted as it is. A kept text read from a file is
      // written as JSON writes it.
      const foreign = this.#foreignAt(slot);
      const timestamp = foreign ? JSON.stringify(foreign) : `"${isoTime(this.#at[slot] as number)}"`;
      text +=
        `{"index":${jsonNumber(this.#index[slot] as number)},"timestamp":${timestamp},` +
        `"promptTokens":${jsonNumber(this.#promptTokens[slot] as number)},` +
        `"completionTokens":${jsonNumber(this.#completionTokens[slot] as number)},` +
        `"health":"${this.#health[slot]}","regulatorLevel":"${this.#regulatorLevel[slot]}",` +
        `"viability":${jsonNumber(this.#viability[slot] as number)},` +
        `"burnRate":${jsonNumber(this.#burnRate[slot] as number)},"action":"${this.#action[slot]}",` +
        `"countdown":${jsonNumber(this.#countdown[slot] as number)},` +
        `"reminder":${this.#reminder[slot] === 1 ? 'true' : 'false'}}\n`;
    }
    const count = this.#length - from;
    return {
      text,
      count,
      last: count > 0 ? this.#index[(this.#start + this.#length - 1) % capacity] : last,
    };
  }
}

/** A number as JSON writes it; NaN (the columns' null) and the infinities as null. */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? `${value}` : 'null';
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
