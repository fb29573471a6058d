import * as z from 'zod';
import { HealthLevelSchema } from '../health/health-level.js';
import { PressureLevelSchema } from '../pressure/schemas.js';
import {
  VerdictActionSchema,
  VerdictReasonSchema,
  WindowForecastSchema,
} from '../session/session-schemas.js';
import { LOG_FORMATS } from '../usage/session-log.js';

/**
 * `POST /api/v1/replay` and `barometer replay`: the query (the command's flags) and the answer (what `--json`
 * prints). The library's types (src/session/replay.ts, src/session/what-if-replay.ts) agree with these schemas: a
 * test checks it at type level.
 */

const count = z.number().int().min(0);
const usd = z.number().min(0);

/** `--format`, `?format=`: a log format, or `auto` to detect it. */
export const ReplayFormatSchema = z.enum(['auto', ...LOG_FORMATS], {
  error: `must be one of auto, ${LOG_FORMATS.join(', ')}`,
});
/** `--context-window`, `?contextWindow=`: a whole number of tokens, given as text (a flag or a query parameter). */
export const ContextWindowTextSchema = z
  .string()
  .regex(/^\d+$/, 'must be a whole number of tokens ≥ 1')
  .transform(Number)
  .pipe(z.number().int().min(1, 'must be a whole number of tokens ≥ 1'));

export const ReplayQuerySchema = z.strictObject({
  format: ReplayFormatSchema.optional(),
  model: z.string().min(1).max(200).optional(),
  contextWindow: ContextWindowTextSchema.optional(),
  /** Replay barometer's eviction policy on the same calls too (Claude Code and Codex logs). */
  whatIf: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  /** The eviction policy's options as JSON (with whatIf=true), as a `--policy` file holds them. */
  policy: z.string().max(10_000).optional(),
});

/** One call of a replayed log, with the verdict the session gave it. */
export const ReplayCallSchema = z
  .strictObject({
    index: count,
    /** The call's time as the log recorded it (ISO 8601). */
    timestamp: z.string().meta({ description: 'ISO 8601 time', format: 'date-time' }),
    promptTokens: count.nullable(),
    completionTokens: count.nullable(),
    health: HealthLevelSchema,
    regulatorLevel: PressureLevelSchema,
    action: VerdictActionSchema,
    reasons: z.array(VerdictReasonSchema),
    /** The model of this call, and the window its verdict was judged against (a log may switch models). */
    model: z.string(),
    contextWindow: count.nullable(),
    /** The log records a task completed by this call. */
    taskCompleted: z.boolean(),
    /** The call's cost in USD at its model's price; null when the price is unknown. */
    costUsd: usd.nullable(),
    /** With the what-if: the share of the prompt held by stale content, measured on the log's history. */
    driftPercent: z.number().min(0).max(100).nullable().optional(),
    /** With the what-if: the recorded prompt as the calibrated reconstruction of the history estimates it. */
    reconstructedPromptTokens: count.nullable().optional(),
    /** With the what-if: the prompt barometer's policy would have sent. */
    whatIfPromptTokens: count.nullable().optional(),
    /** With the what-if: that call's cost with the prompt cache, at the same price. */
    whatIfCostUsd: usd.nullable().optional(),
    /** The subscription windows the log records (Codex's `rate_limits`), each with its burn and forecast at this call. */
    windows: z.array(WindowForecastSchema).optional(),
  })
  .meta({ id: 'ReplayCall' });

/** A compaction the log recorded (the agent's own). */
export const ReplayCompactionSchema = z.strictObject({
  timestamp: z.string().meta({ description: 'ISO 8601 time', format: 'date-time' }),
  trigger: z.string(),
  preTokens: count.nullable(),
  beforeCallIndex: count,
});

/** Totals of one side of the what-if: the recorded session, or barometer's policy on it. */
export const WhatIfTotalsSchema = z.strictObject({
  promptTokens: count,
  costUsd: usd.nullable(),
  peakPromptTokens: count.nullable(),
  compactions: count,
});

/** One batch barometer's policy would have evicted. */
export const WhatIfEvictionSchema = z.strictObject({
  beforeCallIndex: count,
  taskId: z.string(),
  boundary: z.string(),
  detail: z.string(),
  items: count,
  bytes: count,
  /** Provider tokens the batch took out of the prompt (calibrated). */
  tokensFreed: z.number(),
  archive: z.string().nullable(),
});

/** The fit of one stretch of calls between compactions and model switches, with its own error. */
export const SegmentCalibrationSchema = z.strictObject({
  fromCall: count,
  toCall: count,
  start: z.enum(['start', 'compaction', 'manual compaction', 'model switch']),
  model: z.string().nullable(),
  baseTokens: z.number(),
  toolScale: z.number(),
  textScale: z.number(),
  reasoningScale: z.number(),
  itemTokens: z.number(),
  fit: z.string(),
  calls: count,
  meanAbsErrorPercent: z.number(),
  maxAbsErrorPercent: z.number(),
});

/** How local token counts map onto the provider's prompt tokens, fitted on the session's recorded usage. */
export const CalibrationSchema = z.strictObject({
  baseTokens: z.number(),
  toolScale: z.number(),
  textScale: z.number(),
  reasoningScale: z.number(),
  itemTokens: z.number(),
  segmentOffsets: z.array(z.number()),
  model: z.string(),
  calls: count,
  meanAbsErrorPercent: z.number(),
  maxAbsErrorPercent: z.number(),
  maxErrorCallIndex: count.nullable(),
  /** Each stretch between compactions and model switches, fitted on its own. */
  segments: z.array(SegmentCalibrationSchema),
});

/** `whatIf` of a replay with the what-if: the recorded session against barometer's eviction policy. */
export const WhatIfSummarySchema = z
  .strictObject({
    real: WhatIfTotalsSchema,
    policy: WhatIfTotalsSchema.extend({
      evictions: count,
      /** The what-if's own recaps (off unless asked): priced, never counted as an avoided compaction. */
      recaps: count,
      /** Tool results that entered the history trimmed at arrival (their whole archived). */
      trimmedAtArrival: count,
      archivedItems: count,
      archivedBytes: count,
      rereads: count,
      rereadTokens: z.number(),
      /** Of the re-reads, those of an evicted result the agent's output later quotes. */
      quotedRereads: count,
      callsAboveCompactionPoint: count,
    }),
    savedPercent: z.number(),
    costSavedPercent: z.number().nullable(),
    /** True only once every archived item was read back and matched the log byte for byte. */
    archiveVerified: z.boolean(),
    archiveFailures: z.array(z.string()),
    compactionPoint: count.nullable(),
    calibration: CalibrationSchema,
    evictions: z.array(WhatIfEvictionSchema),
    /** Calls whose model has no price (left out of both costs). */
    unpricedCalls: count,
  })
  .meta({ id: 'WhatIfSummary' });

/** A session's calls, tokens and cost: its own, or with every sub-agent's. */
export const ReplayTotalsSchema = z.strictObject({
  calls: count,
  promptTokens: count,
  completionTokens: count,
  /** USD of the calls that could be priced, each at its own model; null when none could. */
  costUsd: usd.nullable(),
  unpricedCalls: count,
});

const lineNumbers = z.array(z.number().int().min(1));

/** What `barometer replay --json` prints and `POST /api/v1/replay` answers; `whatIf` with the what-if only. */
const ReplayResultBaseSchema = z.strictObject({
  format: z.enum(LOG_FORMATS),
  /** The session's id where the log names one (Claude Code sessionId, a sub-agent's agentId, …). */
  id: z.string().optional(),
  /** A sub-agent's session: the id of its parent. */
  parentId: z.string().optional(),
  /** The file a child was read from, when it is not its parent's (a `subagents/` file). */
  file: z.string().optional(),
  /** Lines that could not be parsed, skipped (1-based). */
  skippedLines: lineNumbers,
  /** Lines that began with a broken fragment: the fragment dropped, the record after it read (1-based). */
  recoveredLines: lineNumbers,
  model: z.string(),
  contextWindow: count.nullable(),
  calls: z.array(ReplayCallSchema),
  compactions: z.array(ReplayCompactionSchema),
  summary: z.strictObject({
    calls: count,
    compactions: count,
    /** Calls the log marks as completing a task. */
    tasksCompleted: count,
    /** The session's cost in USD (the calls that could be priced), or null when none could. */
    costUsd: usd.nullable(),
    /** Calls without a known price (their cost is not in `costUsd`). */
    unpricedCalls: count,
    /** Share of the prompt tokens read from the cache, in percent. */
    cacheHitPercent: z.number().min(0).max(100).nullable(),
    firstCompressCallIndex: count.nullable(),
    peakPromptTokens: count.nullable(),
    /** This session's own prompt and completion tokens (sub-agents' not included). */
    promptTokens: count,
    completionTokens: count,
    /** This session and every sub-agent session under it. */
    total: ReplayTotalsSchema,
  }),
  whatIf: WhatIfSummarySchema.optional(),
});

/** A replay result: a session, and its sub-agent sessions under it. */
export type ReplayResultShape = z.infer<typeof ReplayResultBaseSchema> & { children?: ReplayResultShape[] };

export const ReplayResultSchema: z.ZodType<ReplayResultShape> = ReplayResultBaseSchema.extend({
  /** Sub-agent sessions (and the trajectories of an evaluation output), each replayed on its own. */
  get children() {
    return z.array(ReplayResultSchema).optional();
  },
}).meta({ id: 'ReplayResult' });

/** One session of `barometer replay <files or directories…> --what-if --json`: its figures, or why it has none. */
export const WhatIfCorpusRowSchema = z.strictObject({
  /** The log; a sub-agent's: its transcript (`<session>/subagents/<name>.jsonl`), or `<log>#<n>` inside its parent's. */
  file: z.string(),
  /** The session a sub-agent's row belongs to (its log); null for a session's own row. */
  parent: z.string().nullable(),
  agent: z.string().nullable(),
  calls: count,
  realPromptTokens: count,
  policyPromptTokens: count,
  savedPercent: z.number(),
  realCostUsd: usd.nullable(),
  policyCostUsd: usd.nullable(),
  costSavedPercent: z.number().nullable(),
  realPeakPromptTokens: count.nullable(),
  policyPeakPromptTokens: count.nullable(),
  /** The agent's own compaction point (its lowest automatic compaction, else its window). */
  compactionPoint: count.nullable(),
  realCompactions: count,
  policyCompactions: count,
  rereads: count,
  archiveVerified: z.boolean(),
  calibrationErrorPercent: z.number(),
  /** Why the session has no figures (a log without messages, an unknown model); null when it has. */
  skipped: z.string().nullable(),
});

/** The sessions with figures, summed. */
export const WhatIfCorpusAggregateSchema = z.strictObject({
  sessions: count,
  skipped: count,
  calls: count,
  realPromptTokens: count,
  policyPromptTokens: count,
  savedPercent: z.number(),
  realCostUsd: usd,
  policyCostUsd: usd,
  costSavedPercent: z.number().nullable(),
  /** The largest rise of one session's or sub-agent's cost under the policy, in percent (≤ 0: none costs more). */
  worstCostChangePercent: z.number().nullable(),
  /** The row of that rise (its `file`). */
  worstFile: z.string().nullable(),
  /** Sessions whose what-if peak went above the agent's compaction point. */
  aboveCompactionPoint: count,
  rereads: count,
  archiveVerified: z.boolean(),
});

/** What `barometer replay <files or directories…> --what-if --json` prints for more than one log. */
export const WhatIfCorpusSchema = z
  .strictObject({
    sessions: z.array(WhatIfCorpusRowSchema),
    aggregate: WhatIfCorpusAggregateSchema,
  })
  .meta({ id: 'WhatIfCorpus' });
