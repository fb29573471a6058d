import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';
import type { TimelineMarker, TimelinePoint } from './session-schemas.js';
import {
  appendPointInPlace,
  appendToTimeline,
  ColumnTimeline,
  emptyTimeline,
  type Timeline,
  TimelineSchema,
} from './session-timeline.js';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const LIMITS = { points: 7, markers: 3 };

const pointArbitrary = fc.record({
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

describe('appendPointInPlace (the monitor over its memory store)', () => {
  it('keeps the same points and markers as appendToTimeline, past the limits, and writes the same JSON', () => {
    fc.assert(
      fc.property(fc.array(pointArbitrary, { minLength: 1, maxLength: 30 }), (steps) => {
        let plain: Timeline = emptyTimeline();
        let owned: Timeline = emptyTimeline();
        let at = T0;
        steps.forEach(({ gapMs, marker: withMarker, ...fields }, index) => {
          at += gapMs;
          const point: TimelinePoint = { index, timestamp: isoTime(at), ...fields };
          const markers = withMarker ? [marker(index, at)] : [];
          plain = appendToTimeline(plain, [point], markers, LIMITS);
          owned = appendPointInPlace(owned, point, at, markers, LIMITS);
          expect(owned).toBeInstanceOf(ColumnTimeline);
          expect(owned.points).toEqual(plain.points);
          expect(owned.markers).toEqual(plain.markers);
          expect(JSON.stringify(owned)).toBe(JSON.stringify(plain));
          expect(TimelineSchema.parse(JSON.parse(JSON.stringify(owned)))).toEqual(plain);
          // The session files' lines, written from the columns, are JSON.stringify's, from any kept point on.
          const columns = owned as ColumnTimeline;
          const linesFrom = (from: number) =>
            plain.points
              .slice(from)
              .map((each) => `${JSON.stringify(each)}\n`)
              .join('');
          expect(columns.jsonLinesAfter('points', undefined)).toEqual({
            text: linesFrom(0),
            count: plain.points.length,
            last: index,
          });
          plain.points.forEach((kept, at) => {
            expect(columns.jsonLinesAfter('points', kept.index)).toEqual({
              text: linesFrom(at + 1),
              count: plain.points.length - at - 1,
              last: index,
            });
          });
          expect(columns.jsonLinesAfter('points', -1)).toBeUndefined();
          expect(columns.jsonLinesAfter('markers', undefined)).toBeNull();
        });
      }),
    );
  });

  it('carries nothing but its markers into a spread copy (a store empties its lists that way)', () => {
    const point: TimelinePoint = {
      index: 0,
      timestamp: isoTime(T0),
      promptTokens: 1_000,
      completionTokens: 10,
      health: 'healthy',
      regulatorLevel: 'LOW',
      viability: 99,
      burnRate: 1_010,
      action: 'continue',
      countdown: null,
      reminder: false,
    };
    const owned = appendPointInPlace(emptyTimeline(), point, T0, [marker(0, T0)]);
    expect({ ...owned, points: [] }).toEqual({ points: [], markers: [marker(0, T0)] });
  });

  it('takes over a timeline read back from a file, and keeps the text of a time isoTime would not write so', () => {
    const at = T0 + 1_234;
    const read: Timeline = {
      points: [
        {
          index: 4,
          timestamp: isoTime(at),
          promptTokens: 5,
          completionTokens: null,
          health: 'caution',
          regulatorLevel: 'HIGH',
          viability: 12.5,
          burnRate: 0,
          action: 'compress',
          countdown: 2,
          reminder: true,
        },
      ],
      markers: [],
    };
    const next: TimelinePoint = { ...read.points[0]!, index: 5, timestamp: isoTime(at + 1) };
    const owned = appendPointInPlace(read, next, at + 1, []);
    expect(owned).toBeInstanceOf(ColumnTimeline);
    expect(owned.points).toEqual([read.points[0], next]);
    // A time written without milliseconds is not what isoTime writes: the point keeps its text as it was read.
    const foreignPoint = { ...read.points[0]!, timestamp: '2026-11-23T12:00:01Z' };
    const kept = appendPointInPlace(
      { points: [foreignPoint], markers: [] },
      next,
      at + 1,
      [],
    ) as ColumnTimeline;
    expect(kept).toBeInstanceOf(ColumnTimeline);
    expect(kept.points).toEqual([foreignPoint, next]);
    expect(kept.jsonLinesAfter('points', undefined)?.text).toBe(
      `${JSON.stringify(foreignPoint)}\n${JSON.stringify(next)}\n`,
    );
    // Once the ring reuses its slot, the new point's own time is written.
    let ring: Timeline = kept;
    const later: TimelinePoint[] = [];
    for (let index = 6; index < 6 + 500; index++) {
      const point = { ...next, index, timestamp: isoTime(at + index) };
      later.push(point);
      ring = appendPointInPlace(ring, point, at + index, []);
    }
    expect(ring.points).toEqual([next, ...later].slice(-500));
  });
});
