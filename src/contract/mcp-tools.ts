import { z } from 'zod';
import { CompactRequestSchema } from '../compaction/compact-request.js';
import { HealthLevelSchema } from '../health/health-level.js';
import { IdSchema } from '../ids/id-schema.js';
import { AgentNameSchema } from '../models/model-profile.js';
import { PressureInputSchema, PressureReportSchema } from '../pressure/schemas.js';
import { SessionOptionsSchema } from '../session/session-options.js';
import {
  SessionSummarySchema,
  TimelineMarkerSchema,
  UsageAnswerSchema,
  VerdictActionSchema,
} from '../session/session-schemas.js';
import { UsageInputSchema } from '../session/usage-input.js';
import { ArchiveItemIdSchema, ArchiveParamsSchema } from '../store/archive-address.js';
import { ArchiveRecordSchema } from './archives.js';
import { CompactAnswerSchema } from './compact.js';

/**
 * The input and the output of each MCP tool, built from the schemas that validate the same request and describe
 * the same answer over HTTP (DESIGN.md: one schema per concept), so that a field means and checks the same on
 * every surface. Where a route takes part of its input from the path (`/sessions/:id/usage`), the tool names it
 * `sessionId` beside the body. The outputs are advertised as each tool's `outputSchema`; a client checks every
 * tool's `structuredContent` against it.
 */

/** `evaluate_pressure`: the body of `POST /api/v1/pressure`. */
export const EvaluatePressureInputSchema = PressureInputSchema;

/** `create_session`: the body of `POST /api/v1/sessions`. */
export const CreateSessionInputSchema = SessionOptionsSchema;

/** `context_status`: the `:id` of `GET /api/v1/sessions/:id`; without it, the most recently updated sessions. */
export const ContextStatusInputSchema = z.strictObject({
  sessionId: IdSchema.optional().meta({
    description: 'The session to read; omit it to list the most recently updated sessions',
  }),
});

/** `report_usage`: the `:id` and the body of `POST /api/v1/sessions/:id/usage`. */
export const ReportUsageInputSchema = z.strictObject({
  sessionId: IdSchema.meta({ description: 'The session (created with create_session or over HTTP)' }),
  usage: UsageInputSchema.meta({
    description:
      'One generation: { promptTokens, completionTokens?, ... } as measured, or { format, response } with the provider response',
  }),
});

/** `compact_history`: the body of `POST /api/v1/compact` without `tasks` (recap and flush). */
export const CompactHistoryInputSchema = CompactRequestSchema.omit({ tasks: true });

/** `evict_task`: the body of `POST /api/v1/compact` with `tasks` (surgical eviction; the recap options do not apply). */
export const EvictTaskInputSchema = CompactRequestSchema.pick({ messages: true, sessionId: true }).extend({
  tasks: CompactRequestSchema.shape.tasks
    .unwrap()
    .min(1, 'must list at least one completed task: { id, summary }'),
});

/**
 * `read_archive`: a tombstone or its address (`<archive path>#<item id>`, `/api/v1/archives/<session>/<task>?item=<id>`),
 * or the params and query of `GET /api/v1/archives/:session/:task?item=`.
 */
export const ReadArchiveInputSchema = z
  .strictObject({
    location: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .meta({ description: 'A tombstone, or the archive address it names' }),
    session: ArchiveParamsSchema.shape.session.optional(),
    task: ArchiveParamsSchema.shape.task.optional(),
    item: ArchiveItemIdSchema.optional().meta({ description: 'One record; omit it for the whole archive' }),
  })
  .superRefine((value, context) => {
    const byIds = value.session !== undefined || value.task !== undefined;
    if (value.location !== undefined && (byIds || value.item !== undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['location'],
        message: 'give either location, or session and task (and item), not both',
      });
    } else if (value.location === undefined) {
      for (const key of ['session', 'task'] as const) {
        if (value[key] === undefined)
          context.addIssue({
            code: 'custom',
            path: [key],
            message: 'is required without location (or give location: a tombstone or its address)',
          });
      }
    }
  });

/** `evaluate_pressure`: the 200 body of `POST /api/v1/pressure`. */
export const EvaluatePressureOutputSchema = PressureReportSchema;

/** `create_session`: the new session's summary. */
export const CreateSessionOutputSchema = z.strictObject({ session: SessionSummarySchema });

/** One session as `context_status` lists it without an id: enough to pick one. */
export const ListedSessionSchema = z.strictObject({
  id: z.string(),
  model: z.string(),
  agent: AgentNameSchema.nullable(),
  updatedAt: z.string().meta({ description: 'ISO 8601 time', format: 'date-time' }).nullable(),
  generations: z.number().int().min(0),
  health: HealthLevelSchema,
  action: VerdictActionSchema.nullable(),
});

/**
 * `context_status`: with `sessionId`, the session's summary and latest markers; without, the most recently updated
 * sessions and how many there are.
 */
export const ContextStatusOutputSchema = z.union([
  z.strictObject({ session: SessionSummarySchema, markers: z.array(TimelineMarkerSchema) }),
  z.strictObject({ sessions: z.array(ListedSessionSchema), total: z.number().int().min(0) }),
]);

/** `report_usage`: the 200 body of `POST /api/v1/sessions/:id/usage`. */
export const ReportUsageOutputSchema = UsageAnswerSchema;

/** `compact_history` and `evict_task`: the 200 body of `POST /api/v1/compact`. */
export const CompactHistoryOutputSchema = CompactAnswerSchema;
export const EvictTaskOutputSchema = CompactAnswerSchema;

/** `read_archive`: one item exactly as archived (with its size in bytes), or every record of the archive. */
export const ReadArchiveOutputSchema = z.union([
  ArchiveRecordSchema.extend({ bytes: z.number().int().min(0) }),
  z.strictObject({ sessionId: z.string(), taskId: z.string(), records: z.array(ArchiveRecordSchema) }),
]);
