import * as z from 'zod';
import { TriggerStateSchema } from '../compaction/evaluate-triggers.js';
import { HealthStateSchema } from '../health/step-health.js';
import { IdSchema } from '../ids/id-schema.js';
import { AgentNameSchema, StoredModelProfileSchema } from '../models/model-profile.js';
import { PressureAssessmentSchema } from '../pressure/schemas.js';
import { TokenWindowSchema } from '../quota/token-window.js';
import { WindowTrackSchema } from '../quota/windows/window-track.js';
import { EvictionTallySchema } from './eviction-savings.js';
import { ReceiptTallySchema } from './proxy-receipt.js';
import { ProxyStateSchema } from './proxy-status.js';
import { SessionOptionsSchema } from './session-options.js';
import { VerdictSchema } from './session-schemas.js';

// Apart from session-state.ts: a new session (the status line's, a hook's) never validates a stored state, and this
// schema brings the verdict's and the regulator's schemas with it (about half the zod schemas a status line built).
const count = z.number().int().min(0);

const reportedLimit = z.strictObject({
  limit: count.optional(),
  remaining: count.optional(),
  resetAt: z.number().optional(),
});
const ReportedQuotaStateSchema = z.strictObject({
  at: z.number(),
  requests: reportedLimit.optional(),
  input: reportedLimit.optional(),
  output: reportedLimit.optional(),
  tokens: reportedLimit.optional(),
  retryAfterSeconds: z.number().min(0).optional(),
});

/**
 * Everything a session remembers between updates, as plain JSON: what it was created with, its resolved
 * limits, the last figures, the health and trigger state machines, the two token windows and the last verdict.
 * A few kilobytes however long the session runs; anything that can hold JSON can hold a session.
 */
export const SessionStateSchema = z
  .strictObject({
    version: z.literal(1),
    id: IdSchema,
    model: z.string().min(1),
    agent: AgentNameSchema.nullable(),
    /** Epoch ms. */
    createdAt: z.number(),
    /** The options the session was created with, as validated. */
    options: SessionOptionsSchema,
    /** The resolved profile; states written before family estimates name the registry `builtin`. */
    profile: StoredModelProfileSchema,
    thresholds: z.strictObject({ limit: count.nullable(), optimal: count, critical: count.nullable() }),
    generations: count,
    firstAt: z.number().nullable(),
    lastAt: z.number().nullable(),
    lastPrompt: count.nullable(),
    lastCompletion: count.nullable(),
    /** The KV cells the engine reported with the last update that named them (`kvCellsUsed`); absent before any. */
    kvCellsUsed: count.optional(),
    budgetUsed: z.number().min(0),
    drift: z.number().min(0).max(100).nullable(),
    health: HealthStateSchema,
    triggers: TriggerStateSchema,
    /** The owned reminder's figures (its text is written out when read), or null when none is shown. */
    reminder: z.strictObject({ prompt: count, countdown: count.nullable() }).nullable(),
    /** Tokens over the burn window, and over the last minute (the quota window). */
    burn: TokenWindowSchema,
    /** Tokens as the combined per-minute limit counts them (provider rules), over the last minute. */
    minute: TokenWindowSchema,
    /** Requests, input and output tokens over the last minute, counted as the provider counts them. */
    quota: z
      .strictObject({ requests: TokenWindowSchema, input: TokenWindowSchema, output: TokenWindowSchema })
      .optional(),
    /** The last call as the quotas count it: the expected size of the next request. */
    lastCounts: z
      .strictObject({ requests: count, input: count, output: count, tokens: count })
      .nullable()
      .optional(),
    /** The quotas the provider's headers reported, and when (epoch ms). */
    reported: ReportedQuotaStateSchema.nullable().optional(),
    /** The thinking budget is lowered (kept until 30% of the quota is left again: hysteresis). */
    thinkingLow: z.boolean().optional(),
    /** Money and cache: the cost of the calls that could be priced, and the prompt tokens read from the cache. */
    spend: z
      .strictObject({
        costUsd: z.number().min(0),
        /** The part of `costUsd` priced at a family estimate (absent in states written before estimates). */
        estimatedCostUsd: z.number().min(0).optional(),
        pricedCalls: count,
        unpricedCalls: count,
        promptTokens: count,
        cachedReadTokens: count,
      })
      .optional(),
    lastVerdict: VerdictSchema.nullable(),
    /**
     * When `lastVerdict` was given (epoch ms): a usage update, a quota observation (a refused request's headers) or
     * a compaction; absent in states written before it existed (then `lastAt`).
     */
    verdictAt: z.number().nullable().optional(),
    lastPressure: PressureAssessmentSchema.nullable(),
    /** What barometer's proxy does with the session's requests; absent when no proxy has seen it. */
    proxy: ProxyStateSchema.optional(),
    /** barometer's evictions so far and the tokens they kept from being resent (eviction-savings.ts). */
    evictions: EvictionTallySchema.optional(),
    /** The subscription windows the session has seen, each through its current period (src/quota/windows). */
    windows: z.array(WindowTrackSchema).max(32).optional(),
    /** The ids of the sessions created with this one as their parent, oldest first (at most 1000). */
    subAgents: z.array(IdSchema).max(1000).optional(),
    /** The receipts of the requests an acting proxy forwarded (proxy-receipt.ts); absent before any. */
    receipts: ReceiptTallySchema.optional(),
  })
  .meta({ id: 'SessionState' });
export type SessionState = z.infer<typeof SessionStateSchema>;
