import { repairFutureClock } from './clock-repair.js';
import { parseSessionRecord, type SessionRecord } from './session-monitor.js';
import type { TimelineData } from './session-timeline.js';

/**
 * A session record read back from its files after a restart, checked and mended:
 * - timeline points past the state's generation (index ≥ generations) and markers past it (index > generations,
 *   a compaction's marker sits at the generation) are dropped: the timeline's file is written before the state's,
 *   so a process killed between the two leaves the timeline ahead, never behind (issue 29, F3);
 * - times ahead of `latest` (the clock plus its tolerance), written before live times were checked, are brought
 *   back and the windows they filled emptied (F4, {@link repairFutureClock}).
 * `repaired` says what was mended, for the log.
 */
export function restoreSessionRecord(
  value: unknown,
  now: number,
  latest: number,
): { ok: true; value: SessionRecord; repaired?: string } | { ok: false; reason: string } {
  const parsed = parseSessionRecord(value);
  if (!parsed.ok) return parsed;
  let record = parsed.value;
  const notes: string[] = [];
  const generations = record.state.generations;
  const timeline = record.timeline as TimelineData;
  const points = timeline.points.filter((point) => point.index < generations);
  const markers = timeline.markers.filter((marker) => marker.index <= generations);
  const droppedPoints = timeline.points.length - points.length;
  const droppedMarkers = timeline.markers.length - markers.length;
  if (droppedPoints > 0 || droppedMarkers > 0) {
    notes.push(
      `timeline past generation ${generations} dropped (${droppedPoints} point${droppedPoints === 1 ? '' : 's'}, ${droppedMarkers} marker${droppedMarkers === 1 ? '' : 's'}): the process stopped between writing the timeline and the state`,
    );
    record = { ...record, timeline: { points, markers } };
  }
  const state = repairFutureClock(record.state, now, latest);
  if (state) {
    notes.push(
      `times ahead of the clock (last update at ${new Date(record.state.lastAt ?? now).toISOString()}) brought back to ${new Date(now).toISOString()}, and the token windows they filled emptied`,
    );
    record = { ...record, state };
  }
  return notes.length === 0
    ? { ok: true, value: record }
    : { ok: true, value: record, repaired: notes.join('; ') };
}
