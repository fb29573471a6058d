import * as z from 'zod';
import { IsoTimeSchema } from './time.js';

/**
 * Archives on the wire: `GET /api/v1/archives/:session/:task[?item=]`, the MCP tool `read_archive` and
 * `barometer archive --json`. The parameters are the store's own schemas, re-exported.
 */
export { ArchiveItemIdSchema, ArchiveParamsSchema, ArchiveQuerySchema } from '../store/archive-address.js';

/** One archived entry as read back (`content` always as text, byte for byte what was archived). */
export const ArchiveRecordSchema = z
  .strictObject({
    itemId: z.string(),
    /** The history item's kind (a type-level test checks the list against the history's), or a whole message. */
    kind: z.enum(['system', 'user', 'assistant', 'tool-call', 'tool-result', 'opaque', 'message']),
    field: z.enum(['content', 'input', 'item', 'message']),
    content: z.string(),
    /** `content` is JSON text, stored as a JSON value rather than a string. */
    json: z.boolean().optional(),
    sessionId: z.string(),
    taskId: z.string(),
    archivedAt: IsoTimeSchema,
  })
  .meta({ id: 'ArchiveRecord' });
export type ArchiveRecord = z.infer<typeof ArchiveRecordSchema>;

/** Bytes not readable as a whole record (a write cut short, or damage), skipped. */
export const SkippedRegionSchema = z.strictObject({
  offset: z.number().int().min(0),
  bytes: z.number().int(),
});

/** `GET /api/v1/archives/:session/:task`: every whole record, and where bytes were skipped. */
export const ArchiveAnswerSchema = z
  .strictObject({
    sessionId: z.string(),
    taskId: z.string(),
    records: z.array(ArchiveRecordSchema),
    skipped: z.array(SkippedRegionSchema),
  })
  .meta({ id: 'ArchiveAnswer' });
export type ArchiveAnswer = z.infer<typeof ArchiveAnswerSchema>;
