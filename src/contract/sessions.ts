import * as z from 'zod';
import { IdSchema } from '../ids/id-schema.js';
import { EvictedSchema } from '../session/eviction-savings.js';
import {
  SessionDeltaSchema,
  SessionEventSchema,
  SessionSummarySchema,
  SessionViewSchema,
} from '../session/session-schemas.js';

export { SessionContextSchema } from '../session/describe-session.js';
export { EvictedSchema, EvictionSavingsSchema } from '../session/eviction-savings.js';
export { SessionOptionsSchema } from '../session/session-options.js';
/**
 * The sessions API's requests and answers. The shapes a session shows (its view, summary, verdict, events, the usage
 * answer) are defined once, beside the session (src/session/session-schemas.ts), and re-exported here; what only
 * the wire has (path parameters, list envelopes, stream messages) is defined here.
 */
export {
  MarkerTypeSchema,
  ProxyStatusSchema,
  QuotaStandingSchema,
  SESSION_EVENT_TYPES,
  SessionDeltaSchema,
  SessionEventSchema,
  SessionHealthSchema,
  SessionSignalsSchema,
  SessionSummarySchema,
  SessionViewSchema,
  TimelineMarkerSchema,
  TimelinePointSchema,
  TriggerViewSchema,
  UsageAnswerSchema,
  VerdictActionSchema,
  VerdictModelSchema,
  VerdictReasonSchema,
  VerdictSchema,
} from '../session/session-schemas.js';
export { SessionTotalsSchema } from '../session/session-totals.js';
export { SubAgentsAnswerSchema } from '../session/sub-agents.js';
export { ManualUsageInputSchema, RawUsageInputSchema, UsageInputSchema } from '../session/usage-input.js';

const timestamp = z.union([z.iso.datetime({ offset: true }), z.number().int().min(0).max(8.64e15)], {
  error: 'must be an ISO 8601 time or epoch milliseconds (at most 8640000000000000)',
});

/**
 * `POST /api/v1/sessions/:id/compactions`: a compaction the caller made (or the agent did): the context size before
 * (default: the last prompt) and after. `after` may be unknown (an agent's pre-compaction hook fires before the
 * summary exists): the session then marks the compaction without arming the triggers' loop guards, which need both
 * sizes. A request may give its time as epoch milliseconds; answers always show ISO 8601.
 */
export const CompactionInputSchema = z
  .strictObject({
    before: z.number().int().min(0).optional(),
    after: z.number().int().min(0).optional(),
    trigger: z.string().min(1).max(64).optional(),
    timestamp: timestamp.optional(),
    /** The compaction was an eviction (barometer's proxy sends it): items, tokens freed, sub-task and archive. */
    evicted: EvictedSchema.optional(),
  })
  .superRefine((value, context) => {
    if (value.before !== undefined && value.after !== undefined && value.after > value.before) {
      context.addIssue({
        code: 'too_big',
        maximum: value.before,
        origin: 'number',
        inclusive: true,
        path: ['after'],
        message: `must not exceed before (${value.before}): a compaction does not grow the context`,
      });
    }
  });
export type CompactionInput = z.infer<typeof CompactionInputSchema>;

/** `/api/v1/sessions/:id…`: the session's id, by the one id rule. */
export const SessionIdParamsSchema = z.strictObject({ id: IdSchema });
/** `/api/v1/samples/:name/load`. */
export const SampleParamsSchema = z.strictObject({ name: z.string() });

/** The most sessions one page lists. */
export const MAX_SESSION_PAGE = 1000;
/** Sessions per page unless `limit` says otherwise. */
export const DEFAULT_SESSION_PAGE = 100;

/**
 * `GET /api/v1/sessions?limit=&cursor=` and `GET /api/v1/events?limit=&cursor=`: one page of the sessions, in id
 * order. `cursor` is the `nextCursor` of the page before (absent: the first page).
 */
export const SessionListQuerySchema = z.strictObject({
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number from 1 to 1000')
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_SESSION_PAGE))
    .optional()
    .meta({ description: `Sessions per page, 1 to ${MAX_SESSION_PAGE} (default ${DEFAULT_SESSION_PAGE})` }),
  cursor: IdSchema.optional().meta({
    description: 'The nextCursor of the previous page: this page starts after that session id',
  }),
});
/** The event streams also take the API key as `access_token` (EventSource sends no headers). */
export const EventsQuerySchema = SessionListQuerySchema.extend({
  access_token: z
    .string()
    .optional()
    .meta({ description: 'The API key, for clients that cannot send headers' }),
});

/** `GET /api/v1/sessions`, and the first message of the all-sessions stream (`event: sessions`). */
export const SessionListSchema = z
  .strictObject({
    sessions: z.array(SessionSummarySchema),
    /** Where the next page starts (`?cursor=`); null on the last page. */
    nextCursor: z.string().nullable().meta({
      description:
        'Pass as `cursor` for the next page; null on the last page. A page may hold fewer than `limit` and still have one (read while sessions still load after a restart)',
    }),
  })
  .meta({ id: 'SessionList' });
export type SessionList = z.infer<typeof SessionListSchema>;

/** `POST /api/v1/sessions/:id/compactions`: the compaction event and the session summary after it. */
export const CompactionAnswerSchema = z
  .strictObject({ event: SessionEventSchema, session: SessionSummarySchema })
  .meta({ id: 'CompactionAnswer' });
export type CompactionAnswer = z.infer<typeof CompactionAnswerSchema>;

/** One bundled sample session (`GET /api/v1/samples`). */
export const SampleInfoSchema = z.strictObject({
  name: z.string(),
  format: z.string(),
  description: z.string(),
});
export type SampleInfo = z.infer<typeof SampleInfoSchema>;
export const SamplesAnswerSchema = z
  .strictObject({ samples: z.array(SampleInfoSchema) })
  .meta({ id: 'SamplesAnswer' });

/** `event: deleted` of both streams: a session was deleted, or expired (idle past its TTL). */
export const SessionDeletedMessageSchema = z.strictObject({
  id: z.string(),
  reason: z.enum(['deleted', 'expired']),
});
export type SessionDeletedMessage = z.infer<typeof SessionDeletedMessageSchema>;

/** A model event as a session's stream sends it (`event: <type>`): the event and the session it happened in. */
const eventMessages = SessionEventSchema.options.map((option) => option.extend({ sessionId: z.string() }));
export const SessionEventMessageSchema = z.discriminatedUnion('type', [
  eventMessages[0]!,
  ...eventMessages.slice(1),
]);
export type SessionEventMessage = z.infer<typeof SessionEventMessageSchema>;

/**
 * The messages of `GET /api/v1/sessions/:id/events`, by event name: `session` first (the whole view), then each
 * model event as it happens and `update` (what was added) after each change, `deleted` when it goes.
 */
export const SESSION_STREAM_MESSAGES = {
  session: SessionViewSchema,
  update: SessionDeltaSchema,
  deleted: SessionDeletedMessageSchema,
  '<event type>': SessionEventMessageSchema,
} as const;

/**
 * The messages of `GET /api/v1/events`: `sessions` first (every summary), then `session` (the latest summary of a
 * changed session), `deleted`.
 */
export const ALL_SESSIONS_STREAM_MESSAGES = {
  sessions: SessionListSchema,
  session: SessionSummarySchema,
  deleted: SessionDeletedMessageSchema,
} as const;
