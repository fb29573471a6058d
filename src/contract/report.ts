import * as z from 'zod';
import { REPORT_VIEWS } from '../report/aggregate-report.js';
import { WindowForecastSchema } from '../session/session-schemas.js';
import { LOG_FORMATS } from '../usage/session-log.js';

/**
 * `GET /api/v1/report` and `barometer report`: the query (the command's flags) and the answer (what `--json`
 * prints). The library's types (src/report/) agree with these schemas: a test checks it at type level.
 */

const count = z.number().int().min(0);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `--since`, `?since=`: a day, `YYYY-MM-DD` (also `YYYYMMDD`, as ccusage takes it). */
export const ReportDaySchema = z
  .string()
  .transform((text) =>
    /^\d{8}$/.test(text) ? `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6)}` : text,
  )
  .pipe(
    z
      .string()
      .regex(DAY, 'must be a day, YYYY-MM-DD')
      .refine((day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)), 'must be a real day, YYYY-MM-DD'),
  );

export const ReportViewSchema = z.enum(REPORT_VIEWS, { error: `must be one of ${REPORT_VIEWS.join(', ')}` });

export const ReportQuerySchema = z
  .strictObject({
    /** How the calls are grouped. @default session */
    view: ReportViewSchema.optional(),
    since: ReportDaySchema.optional(),
    until: ReportDaySchema.optional(),
    project: z.string().min(1).max(500).optional(),
    agent: z.enum(LOG_FORMATS, { error: `must be one of ${LOG_FORMATS.join(', ')}` }).optional(),
    /** Run barometer's what-if on each session (Claude Code and Codex logs). @default true */
    whatIf: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  })
  .refine((query) => !query.since || !query.until || query.since <= query.until, {
    message: 'must not be after until',
    path: ['since'],
  });

/** One row: the calls of a day, session, project or model, added up. */
export const ReportRowSchema = z
  .strictObject({
    key: z.string(),
    agents: z.array(z.string()),
    projects: z.array(z.string()),
    firstDay: z.string(),
    lastDay: z.string(),
    calls: count,
    inputTokens: count,
    outputTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    /** US dollars of the calls with a known price. */
    costUsd: z.number().min(0),
    /**
     * The part of `costUsd` priced at a family estimate (models the registry does not list, priced as the newest
     * known model of their family); the text output marks a cost that holds any with `~`.
     */
    estimatedCostUsd: z.number().min(0),
    unpricedCalls: count,
    autoCompactions: count,
    manualCompactions: count,
    peakPromptTokens: count.nullable(),
    cautionPercent: z.number().min(0).max(100),
    criticalPercent: z.number().min(0).max(100),
    /** What ccusage would leave out of the row's Claude Code calls (it counts a message's first streamed line). */
    streamedOutputTokens: count,
    streamedCostUsd: z.number(),
    whatIf: z.strictObject({
      sessions: count,
      savedPromptTokens: z.number().int(),
      savedCostUsd: z.number().nullable(),
      compactionsAvoided: z.number().int(),
    }),
    /** What an acting barometer proxy measured on the row's sessions it forwarded: their receipts, added up. */
    proxy: z.strictObject({
      sessions: count,
      calls: count,
      wouldHaveCostUsd: z.number().min(0),
      costUsd: z.number().min(0),
      /** Net of the cache writes barometer caused; negative when acting cost more. */
      savedUsd: z.number(),
      departures: count,
    }),
  })
  .meta({ id: 'ReportRow' });

/** One 5-hour block of the blocks view (as ccusage's `blocks` counts them), or a gap between two. */
export const ReportBlockSchema = z
  .strictObject({
    start: z.string(),
    end: z.string(),
    actualEnd: z.string().nullable(),
    gap: z.boolean(),
    active: z.boolean(),
    models: z.array(z.string()),
    /** Input + output tokens per minute and USD per hour, from the block's first call to its last. */
    burn: z.strictObject({ tokensPerMinute: z.number().min(0), costPerHour: z.number().min(0) }).nullable(),
    /** An active block's totals at that burn until its end. */
    projection: z
      .strictObject({ totalTokens: count, totalCostUsd: z.number().min(0), remainingMinutes: count })
      .nullable(),
    /** The subscription windows the logs record within the block, each with its burn and forecast. */
    windows: z.array(WindowForecastSchema),
  })
  .meta({ id: 'ReportBlock' });

export const ReportResultSchema = z
  .strictObject({
    view: ReportViewSchema,
    since: z.string().nullable(),
    until: z.string().nullable(),
    /** The time zone days are counted in. */
    timeZone: z.string(),
    rows: z.array(ReportRowSchema),
    total: ReportRowSchema,
    /** `view=blocks`: the 5-hour blocks, gaps included, in time order (each block with calls is a row too). */
    blocks: z.array(ReportBlockSchema).optional(),
    /** The rules behind figures another tool (ccusage) would show differently, each with its reason. */
    footnotes: z.array(z.string()),
    files: z.strictObject({
      found: count,
      read: count,
      cached: count,
      skipped: z.array(z.strictObject({ path: z.string(), problem: z.string() })),
    }),
  })
  .meta({
    id: 'ReportResult',
    description:
      'Cost and pressure over the local agent logs, by day, session, project, model or 5-hour block',
  });

export type ReportQuery = z.infer<typeof ReportQuerySchema>;
export type ReportResult = z.infer<typeof ReportResultSchema>;
export type ReportRowAnswer = z.infer<typeof ReportRowSchema>;
