import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';
import type { TimelineMarker, TimelinePoint } from './session-schemas.js';
import {
  ColumnTimeline,
  PlainTimeline,
  type Timeline,
  type TimelineData,
  type TimelineLimits,
  TimelineSchema,
  timelineOf,
} from './session-timeline.js';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const LIMITS: TimelineLimits = { points: 7, markers: 3 };

const stepArbitrary = fc.record({
  gapMs: fc.integer({ min: 0, max: 90_000 }),
  promptTokens: fc.option(fc.integer({ min: 0, max: 2_000_000 }), { nil: null }),
  completionTokens: fc.option(fc.integer({ min: 0, max: 64_000 }), { nil: null }),
  health: fc.constantFrom('healthy', 'caution', 'critical', 'unknown' as const),
  regulatorLevel: fc.constantFrom('LOW', 'MODERATE', 'HIGH', 'CRITICAL' as const),
  viability: fc.double({ min: 0, max: 100, noNaN: true }),
  burnRate: fc.double({ min: 0, max: 1e7, noNaN: true }),
  action: fc.constantFrom('continue', 'optimize', 'compress', 'terminate' as const),
  countdown: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
  reminder: fc.boolean(),
  marker: fc.boolean(),
});

function marker(index: number, at: number): TimelineMarker {
  return {
    type: 'reminder_added',
    timestamp: isoTime(at),
    index,
    detail: 'context_health reminder added (caution)',
  };
}

function point(index: number, at: number, promptTokens: number | null = 1_000): TimelinePoint {
  return {
    index,
    timestamp: isoTime(at),
    promptTokens,
    completionTokens: 10,
    health: 'healthy',
    regulatorLevel: 'LOW',
    viability: 99,
    burnRate: 1_010,
    action: 'continue',
    countdown: null,
    reminder: false,
  };
}

/**
 * One suite, every implementation of {@link Timeline} (as Hono runs one suite against each of its routers): what
 * a timeline keeps, and that it is a value. `make` gives an empty timeline with the limits.
 */
function timelineSuite(name: string, make: (limits: TimelineLimits) => Timeline) {
  describe(`${name}: the Timeline contract`, () => {
    it('keeps the last points and markers within its limits, oldest first, and writes them as TimelineData', () => {
      fc.assert(
        fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 30 }), (steps) => {
          let timeline = make(LIMITS);
          // The expected lists, kept the plain way: everything appended, the last few kept.
          const points: TimelinePoint[] = [];
          const markers: TimelineMarker[] = [];
          let at = T0;
          steps.forEach(({ gapMs, marker: withMarker, ...fields }, index) => {
            at += gapMs;
            const added: TimelinePoint = { index, timestamp: isoTime(at), ...fields };
            const addedMarkers = withMarker ? [marker(index, at)] : [];
            timeline = timeline.record(added, at, addedMarkers);
            points.push(added);
            markers.push(...addedMarkers);
            const expected: TimelineData = {
              points: points.slice(-LIMITS.points),
              markers: markers.slice(-LIMITS.markers),
            };
            expect(timeline.points).toEqual(expected.points);
            expect(timeline.markers).toEqual(expected.markers);
            expect(JSON.stringify(timeline)).toBe(JSON.stringify(expected));
            expect(TimelineSchema.parse(JSON.parse(JSON.stringify(timeline)))).toEqual(expected);
          });
        }),
      );
    });

    it('is a value: the timeline recorded on reads as it did, and recording twice on it gives two timelines', () => {
      let timeline = make(LIMITS);
      for (let index = 0; index < 10; index++)
        timeline = timeline.record(point(index, T0 + index), T0 + index, []);
      const before = JSON.stringify(timeline);
      // A store that calls its change twice on one record records twice on the same timeline.
      const first = timeline.record(point(10, T0 + 10, 1), T0 + 10, [marker(10, T0 + 10)]);
      const second = timeline.record(point(10, T0 + 10, 2), T0 + 10, []);
      expect(JSON.stringify(timeline)).toBe(before);
      expect(first.points.map((each) => each.promptTokens)).toEqual([
        1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1,
      ]);
      expect(second.points.map((each) => each.promptTokens)).toEqual([
        1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 2,
      ]);
      expect(first.markers).toHaveLength(1);
      expect(second.markers).toEqual([]);
      // Each goes on from where it is.
      const next = second.record(point(11, T0 + 11), T0 + 11, []);
      expect(next.points.map((each) => each.index)).toEqual([5, 6, 7, 8, 9, 10, 11]);
      expect(second.points.map((each) => each.index)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    });

    it('marks markers without a point, and leaves the timeline marked as it was', () => {
      const timeline = make(LIMITS).record(point(0, T0), T0, []);
      const marked = timeline.mark([marker(1, T0 + 1), marker(1, T0 + 2)]);
      expect(marked.points).toEqual(timeline.points);
      expect(marked.markers).toEqual([marker(1, T0 + 1), marker(1, T0 + 2)]);
      expect(timeline.markers).toEqual([]);
      expect(marked.mark([])).toBe(marked);
      expect(marked.limits).toEqual(LIMITS);
    });

    it('carries its points and markers only into a spread copy (a store empties its lists that way)', () => {
      const timeline = make(LIMITS).record(point(0, T0), T0, [marker(0, T0)]);
      expect({ ...timeline, points: [] }).toEqual({ points: [], markers: [marker(0, T0)] });
    });
  });
}

timelineSuite('PlainTimeline', (limits) => new PlainTimeline(undefined, limits));
timelineSuite('ColumnTimeline', (limits) => new ColumnTimeline(limits));

describe('ColumnTimeline', () => {
  it('takes over a timeline read back from a file, and keeps the text of a time isoTime would not write so', () => {
    const at = T0 + 1_234;
    const read: TimelineData = {
      points: [{ ...point(4, at, 5), completionTokens: null, countdown: 2, reminder: true }],
      markers: [marker(4, at)],
    };
    const next = point(5, at + 1);
    const taken = timelineOf(read);
    expect(taken).toBeInstanceOf(ColumnTimeline);
    expect(taken.record(next, at + 1, []).points).toEqual([read.points[0], next]);
    expect(taken.markers).toEqual(read.markers);
    // A time written without milliseconds is not what isoTime writes: the point keeps its text as it was read.
    const foreignPoint = { ...point(4, at), timestamp: '2026-11-23T12:00:01Z' };
    const kept = ColumnTimeline.from({ points: [foreignPoint], markers: [] }).record(next, at + 1, []);
    expect(kept.points).toEqual([foreignPoint, next]);
    expect(JSON.stringify(kept)).toBe(JSON.stringify({ points: [foreignPoint, next], markers: [] }));
    // Once the ring reuses its slot, the new point's own time is written.
    let ring: Timeline = kept;
    const later: TimelinePoint[] = [];
    for (let index = 6; index < 6 + 500; index++) {
      const added = point(index, at + index);
      later.push(added);
      ring = ring.record(added, at + index, []);
    }
    expect(ring.points).toEqual([next, ...later].slice(-500));
  });

  it('takes a timeline as it is, and data without points into columns too', () => {
    const own = new PlainTimeline();
    expect(timelineOf(own)).toBe(own);
    const empty = timelineOf({ points: [], markers: [marker(0, T0)] });
    expect(empty).toBeInstanceOf(ColumnTimeline);
    expect(empty.record(point(0, T0), T0, []).toJSON()).toEqual({
      points: [point(0, T0)],
      markers: [marker(0, T0)],
    });
  });

  it('grows its ring as it fills, past the first size and up to its limit, and keeps every point', () => {
    let timeline: Timeline = new ColumnTimeline();
    const kept: TimelinePoint[] = [];
    for (let index = 0; index < 700; index++) {
      const previous = timeline;
      timeline = timeline.record(point(index, T0 + index), T0 + index, []);
      kept.push(point(index, T0 + index));
      // The version before still reads whole, across every growth of the ring.
      if ([6, 7, 8, 15, 16, 499, 500, 501].includes(index))
        expect(previous.points).toEqual(kept.slice(-501, -1).slice(-500));
    }
    expect(timeline.points).toEqual(kept.slice(-500));
  });

  it('refuses to read a version two records behind its newest, whose oldest point the ring has reused', () => {
    let timeline = new ColumnTimeline(LIMITS);
    for (let index = 0; index < LIMITS.points; index++) timeline = timeline.record(point(index, T0), T0, []);
    const old = timeline;
    const newer = old.record(point(7, T0), T0, []);
    // One behind: still whole.
    expect(old.points.map((each) => each.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const newest = newer.record(point(8, T0), T0, []);
    expect(newest.points.map((each) => each.index)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(() => old.record(point(7, T0), T0, [])).toThrow(/only the newest version and the one before it/);
  });
});
