import * as z from 'zod';
import {
  type TimelineMarker,
  TimelineMarkerSchema,
  type TimelinePoint,
  TimelinePointSchema,
} from './session-schemas.js';

/** @default 500 points and 200 markers: enough for a chart, bounded however long the session runs. */
export const DEFAULT_TIMELINE_POINTS = 500;
export const DEFAULT_TIMELINE_MARKERS = 200;

/** How many points and markers a timeline keeps; the oldest go past them. */
export interface TimelineLimits {
  points: number;
  markers: number;
}

export const DEFAULT_TIMELINE_LIMITS: Readonly<TimelineLimits> = Object.freeze({
  points: DEFAULT_TIMELINE_POINTS,
  markers: DEFAULT_TIMELINE_MARKERS,
});

/** A timeline as JSON: its points and markers, oldest first (what a store writes and reads back). */
export const TimelineSchema = z.strictObject({
  points: z.array(TimelinePointSchema),
  markers: z.array(TimelineMarkerSchema),
});
export type TimelineData = z.infer<typeof TimelineSchema>;

/**
 * The recent history of a session for people to look at: its points (one per generation) and markers
 * (compactions, forced new rounds, reminders), oldest first, each bounded by its limit. A timeline is a value:
 * `record` and `mark` answer the timeline with the addition, and the one they were called on reads as it did
 * (a store that calls a change twice on the same record gets the same result twice). `toJSON` gives the
 * {@link TimelineData} a store writes.
 *
 * Two implementations: {@link PlainTimeline}, arrays copied at each addition (a timeline filled by hand), and
 * {@link ColumnTimeline}, the points' figures in columns, added to in place while it is the newest version (what
 * the monitor's records hold: nothing is left behind per update). One test suite runs against both
 * (session-timeline.test.ts).
 */
export interface Timeline {
  readonly points: readonly TimelinePoint[];
  readonly markers: readonly TimelineMarker[];
  readonly limits: Readonly<TimelineLimits>;
  /** With one generation's point (`at`: its time as epoch ms, which `isoTime` writes as its timestamp) and markers. */
  record(point: TimelinePoint, at: number, markers: readonly TimelineMarker[]): Timeline;
  /** With markers only (a compaction recorded between generations). */
  mark(markers: readonly TimelineMarker[]): Timeline;
  toJSON(): TimelineData;
}

/** The last `limit` items of `current` followed by `added`, in a new array. */
export function capped<T>(current: readonly T[], added: readonly T[], limit: number): T[] {
  const keep = Math.max(0, limit - added.length);
  const start = Math.max(0, current.length - keep);
  const result = current.slice(start);
  for (const item of added.length > limit ? added.slice(added.length - limit) : added) result.push(item);
  return result;
}

/** Arrays copied at each addition: a timeline to fill by hand (`SessionTimeline`, a library user's chart). */
export class PlainTimeline implements Timeline {
  readonly points: readonly TimelinePoint[];
  readonly markers: readonly TimelineMarker[];
  // Private: a spread copy (how the stores empty a record's lists) carries the points and markers only.
  readonly #limits: Readonly<TimelineLimits>;

  constructor(
    data: { points: readonly TimelinePoint[]; markers: readonly TimelineMarker[] } = {
      points: [],
      markers: [],
    },
    limits: Readonly<TimelineLimits> = DEFAULT_TIMELINE_LIMITS,
  ) {
    this.points = data.points;
    this.markers = data.markers;
    this.#limits = limits;
  }

  get limits(): Readonly<TimelineLimits> {
    return this.#limits;
  }

  record(point: TimelinePoint, _at: number, markers: readonly TimelineMarker[]): PlainTimeline {
    return new PlainTimeline(
      {
        points: capped(this.points, [point], this.#limits.points),
        markers: markers.length ? capped(this.markers, markers, this.#limits.markers) : this.markers,
      },
      this.#limits,
    );
  }

  mark(markers: readonly TimelineMarker[]): PlainTimeline {
    if (markers.length === 0) return this;
    return new PlainTimeline(
      { points: this.points, markers: capped(this.markers, markers, this.#limits.markers) },
      this.#limits,
    );
  }

  toJSON(): TimelineData {
    // Shared, not copied: a timeline's arrays are never changed once made.
    return { points: this.points as TimelinePoint[], markers: this.markers as TimelineMarker[] };
  }
}

/** Whether a record's timeline is a {@link Timeline} already, or data read back from JSON. */
export function isTimeline(value: Timeline | TimelineData): value is Timeline {
  return typeof (value as Partial<Timeline>).record === 'function';
}
