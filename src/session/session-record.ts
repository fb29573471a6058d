import * as z from 'zod';
import { parseWith } from '../errors/validation.js';
import { SessionStateSchema } from './session-state-schema.js';
import { type Timeline, type TimelineData, TimelineSchema } from './session-timeline.js';

/** What the monitor keeps per session: its state, its timeline, and when it last changed (wall clock). */
export const SessionRecordSchema = z.strictObject({
  state: SessionStateSchema,
  timeline: TimelineSchema,
  /** Epoch ms of the last change, by the monitor's clock: what the idle expiry reads. */
  touchedAt: z.number(),
});
/**
 * A session's record: its timeline is a {@link Timeline} where the monitor made it (a memory store keeps it so),
 * or its JSON where a store read the record back (a snapshot file, Redis).
 */
export type SessionRecord = Omit<z.infer<typeof SessionRecordSchema>, 'timeline'> & {
  timeline: Timeline | TimelineData;
};

/** Checks a record read back from a store (a snapshot file, Redis). */
export function parseSessionRecord(
  value: unknown,
): { ok: true; value: SessionRecord } | { ok: false; reason: string } {
  const parsed = parseWith(SessionRecordSchema, value);
  if (parsed.ok) return parsed;
  return {
    ok: false,
    reason: parsed.issues
      .slice(0, 3)
      .map((issue) => `${issue.field || '(record)'}: ${issue.message}`)
      .join('; '),
  };
}
