import * as z from 'zod';
import { HealthLevelSchema } from '../health/health-level.js';
import { ContextPressureJsonSchema } from '../kv/context-pressure.js';
import { AgentNameSchema, ProfileSourceSchema } from '../models/model-profile.js';
import { PressureAssessmentSchema, PressureLevelSchema, PrioritySchema } from '../pressure/schemas.js';
import { EvictedSchema, EvictionSavingsSchema } from './eviction-savings.js';
import { ReceiptCallsSchema, ReceiptSchema } from './proxy-receipt.js';
import { SessionTotalsSchema } from './session-totals.js';

/**
 * The shapes a session shows the world (HTTP answers, event-stream messages, the library's return values), one
 * zod schema each; the TypeScript types are inferred from them, and the OpenAPI document and
 * docs/sessions-api.md are generated from the same schemas.
 */

const count = z.number().int().min(0);
/** Every time an answer shows is ISO 8601 (decision 022); stored state keeps epoch milliseconds. */
const iso = z.string().meta({ description: 'ISO 8601 time', format: 'date-time' });

/**
 * The session's actions, mildest first: the regulator's four plus `wait` (only a per-minute quota presses, and its
 * bucket admits the next request within `maxWaitSeconds`), ranked between optimize and compress.
 */
export const VerdictActionSchema = z.enum(['continue', 'optimize', 'wait', 'compress', 'terminate']);
export type VerdictAction = z.infer<typeof VerdictActionSchema>;
export const VerdictModelSchema = z.enum([
  'health',
  'regulator',
  'kv',
  'triggers',
  'quota',
  'budget',
  'pool',
  'window',
]);
export type VerdictModel = z.infer<typeof VerdictModelSchema>;

/** One per-minute quota as the session stands against it. */
export const QuotaStandingSchema = z
  .strictObject({
    dimension: z.enum(['requests', 'input', 'output', 'tokens']),
    limit: count,
    used: count,
    left: count,
    need: count,
    source: z.enum(['headers', 'estimate']),
    waitSeconds: z.number().min(0).nullable(),
  })
  .meta({ id: 'QuotaStanding' });

/**
 * One subscription window (Claude's 5-hour and weekly, a model-scoped weekly one, Codex's primary and secondary) as
 * the session last saw it, with its burn and forecast (src/quota/windows: seed 000's token budget on the window).
 */
export const WindowForecastSchema = z
  .strictObject({
    id: z.string(),
    /** `5h`, `7d`, `7d opus`. */
    label: z.string(),
    source: z.enum(['statusline', 'headers', 'log']),
    status: z.enum(['allowed', 'allowed_warning', 'rejected']).nullable(),
    usedPercent: z.number().min(0),
    leftPercent: z.number().min(0),
    resetsAt: iso.nullable(),
    windowMinutes: count.nullable(),
    /** When the figures were read. */
    at: iso,
    /** Percentage points per hour at the measured pace; null when nothing measures it. */
    burnPercentPerHour: z.number().min(0).nullable(),
    /** `recent` (over the last tenth of the window), `window` (average since it began), `none`. */
    burnBasis: z.enum(['recent', 'window', 'none']),
    /** Seed 000's estimatedMinutesRemaining: left / burn per minute (1 decimal); null when not depleting. */
    minutesRemaining: z.number().min(0).nullable(),
    runsOutAt: iso.nullable(),
    minutesToReset: z.number().min(0).nullable(),
    /** Spent, or will be before its reset at this pace. */
    bindsBeforeReset: z.boolean(),
    exhausted: z.boolean(),
    /** The pause now after which the share left lasts until the reset at this pace. */
    pauseMinutes: z.number().min(0).nullable(),
    thresholds: z.array(z.enum(['token_budget_10_percent', 'token_budget_5_percent', 'eol_approaching'])),
    /** Percentage points of this window period burnt by this session's own calls. */
    sessionPercent: z.number().min(0),
    /**
     * Of `sessionPercent`, each sub-agent's (Claude Code's `x-claude-code-agent-id`, seen by the proxy), largest
     * first; the rest is the main conversation's. Absent when no sub-agent's call raised the window.
     */
    subAgentPercents: z.array(z.strictObject({ agentId: z.string(), percent: z.number().min(0) })).optional(),
  })
  .meta({ id: 'WindowForecast' });
export type WindowForecastView = z.infer<typeof WindowForecastSchema>;

/** One model's say: its action, its priority and why, in its own words. */
export const VerdictReasonSchema = z.strictObject({
  model: VerdictModelSchema,
  action: VerdictActionSchema,
  priority: PrioritySchema,
  reason: z.string(),
});
export type VerdictReason = z.infer<typeof VerdictReasonSchema>;

/** The session's one answer per update: the most severe action any model gave, with every model's reason. */
export const VerdictSchema = z
  .strictObject({
    action: VerdictActionSchema,
    priority: PrioritySchema,
    /**
     * Context pressure calls for a new round (restart with the carried-over state, or compact): the health
     * countdown ended while the prompt is still critical, or the regulator's memory is over 95% / CRITICAL.
     * Stays true until the prompt falls below critical.
     */
    newRoundDue: z.boolean(),
    /**
     * Seconds until the next request of the expected size fits the quota left, or null when it fits now, no quota
     * is known, or it never will. With the action `wait`, how long to wait before sending it.
     */
    waitSeconds: z.number().min(0).nullable(),
    /** Provider parameters to merge into the next request to lower reasoning (seed 004's thinking budget), or null. */
    thinking: z.record(z.string(), z.unknown()).nullable(),
    reasons: z.array(VerdictReasonSchema),
    /**
     * A subscription window that will run out before it resets at the measured pace: which one, the pause (seconds)
     * after which what is left lasts until the reset, and until when. Apart from `waitSeconds` (the per-minute
     * quotas'), which a proxy may hold requests for: nothing holds an agent for a window unless a policy opts in.
     */
    windowWait: z
      .strictObject({ window: z.string(), seconds: z.number().min(0), until: iso })
      .nullable()
      .optional(),
  })
  .meta({ id: 'Verdict' });
export type Verdict = z.infer<typeof VerdictSchema>;

/** The health part of an update: the level, the thresholds, the owned reminder and the countdown. */
export const SessionHealthSchema = z
  .strictObject({
    level: HealthLevelSchema,
    promptTokens: count.nullable(),
    optimal: count,
    critical: count.nullable(),
    limit: count.nullable(),
    reminder: z.strictObject({ id: z.literal('context_health'), text: z.string() }).nullable(),
    countdown: count.nullable(),
  })
  .meta({ id: 'SessionHealth' });
export type SessionHealth = z.infer<typeof SessionHealthSchema>;

/**
 * A session's KV budget (seed 001) as JSON: the snapshot's figures and where its cells come from, `engine` (the
 * local engine's own count, `kvCellsUsed` of the last update that named it) or `usage` (the last prompt plus
 * completion, one sequence's tokens).
 */
export const SessionKvFiguresSchema = z
  .strictObject({
    ...ContextPressureJsonSchema.shape,
    source: z.enum(['engine', 'usage']),
  })
  .meta({ id: 'SessionKvFigures' });
export type SessionKvFigures = z.infer<typeof SessionKvFiguresSchema>;

/** What the session measures, in its own units; `null` where it has no figure. */
export const SessionSignalsSchema = z
  .strictObject({
    lastPromptTokens: count.nullable(),
    lastCompletionTokens: count.nullable(),
    /** The window measured against: the agent's effective window or the model's prompt window. */
    window: count.nullable(),
    percentOfWindow: z.number().min(0).nullable(),
    /**
     * Tokens per minute over the burn window, counted as the provider's per-minute quota counts them (Anthropic:
     * uncached input + cache writes + output; Gemini: input; otherwise prompt + completion).
     */
    burnRateTokensPerMin: count,
    /** Tokens in the last minute as the combined per-minute limit counts them (the provider's rules). */
    tokensLastMinute: z.number().min(0),
    tpmLimit: count.nullable(),
    tpmLeft: z.number().min(0).nullable(),
    /**
     * Each per-minute quota with a known limit (configured, or reported by the provider's headers): used, left,
     * what the next request needs, and the seconds until it fits.
     */
    quotas: z.array(QuotaStandingSchema),
    /**
     * USD spent by the session's calls at the model's prices (registry, family estimate or config), or null when no
     * call could be priced (the price is unknown: never a guess).
     */
    costUsd: z.number().min(0).nullable(),
    /**
     * Whether part of `costUsd` is priced at a family estimate (a model the registry does not list, priced as the
     * newest known model of its family: `profile.estimatedFrom`): the cost is then an estimate.
     */
    costEstimated: z.boolean(),
    /** Calls that could not be priced (their cost is not in `costUsd`; `profile.unpricedReason` says why). */
    unpricedCalls: count,
    /** Share of the prompt tokens read from the provider's cache, over the session, in percent; null before any. */
    cacheHitPercent: z.number().min(0).max(100).nullable(),
    tokenBudget: count.nullable(),
    budgetUsed: count.nullable(),
    budgetRemaining: count.nullable(),
    ageSeconds: count,
    driftPercent: z.number().min(0).max(100).nullable(),
    /** The subscription windows the session has seen (headers, status line, logs); absent when none. */
    windows: z.array(WindowForecastSchema).optional(),
    /** The KV budget of a local model's cache: cells, headroom, critical; absent for a session without `kv`. */
    kv: SessionKvFiguresSchema.optional(),
  })
  .meta({ id: 'SessionSignals' });
export type SessionSignals = z.infer<typeof SessionSignalsSchema>;

/** When the event happened (the update's time). */
const at = iso;

/** Something that happened in a session: the health model's events and the session's own. */
export const SessionEventSchema = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('level_changed'),
      at,
      from: HealthLevelSchema,
      to: HealthLevelSchema,
      promptTokens: count.optional(),
    }),
    z.strictObject({ type: z.literal('reminder_added'), at, level: z.enum(['caution', 'critical']) }),
    z.strictObject({ type: z.literal('reminder_updated'), at, level: z.enum(['caution', 'critical']) }),
    z.strictObject({ type: z.literal('reminder_dropped'), at, promptTokens: count }),
    z.strictObject({ type: z.literal('countdown'), at, remaining: count }),
    z.strictObject({ type: z.literal('forced_new_round'), at, promptTokens: count, critical: count }),
    z.strictObject({
      type: z.literal('verdict_changed'),
      at,
      from: VerdictActionSchema.nullable(),
      to: VerdictActionSchema,
    }),
    z.strictObject({
      type: z.literal('regulator_level_changed'),
      at,
      from: PressureLevelSchema.nullable(),
      to: PressureLevelSchema,
    }),
    z.strictObject({
      type: z.literal('compaction'),
      at,
      trigger: z.string(),
      before: count.nullable(),
      after: count.nullable(),
      /** An eviction by barometer: what it removed and where the originals are. */
      evicted: EvictedSchema.optional(),
    }),
    z.strictObject({ type: z.literal('usage_unavailable'), at, reason: z.string() }),
    /**
     * A subscription window crossed a threshold: 90% or 95% used (seed 000's 10% and 5% budget tiers), spent, or
     * `binds` (it will run out before its reset at the measured pace).
     */
    z.strictObject({
      type: z.literal('window_threshold'),
      at,
      window: z.string(),
      threshold: z.enum(['used_90_percent', 'used_95_percent', 'binds', 'exhausted']),
      usedPercent: z.number().min(0),
      resetsAt: iso.nullable(),
      runsOutAt: iso.nullable(),
    }),
  ])
  .meta({ id: 'SessionEvent' });
export type SessionEvent = z.infer<typeof SessionEventSchema>;
export type SessionEventType = SessionEvent['type'];
/** Every event type, in the order the docs list them. */
export const SESSION_EVENT_TYPES = SessionEventSchema.options.map(
  (option) => option.shape.type.value,
) as SessionEventType[];

/** The compaction triggers' decision as an answer shows it. */
export const TriggerViewSchema = z.strictObject({
  fire: z.boolean(),
  trigger: z.enum(['semantic', 'standard', 'survival']).nullable(),
  reasons: z.array(z.string()),
});

/**
 * What `POST /api/v1/sessions/:id/usage` answers (and `SessionMonitor.postUsage` returns): what an agent needs
 * to act, and nothing that grows with the session's age.
 */
export const UsageAnswerSchema = z
  .strictObject({
    sessionId: z.string(),
    /** 1 for the session's first update. */
    generation: count,
    at: iso,
    /** This call's cost in USD at the model's price; null when the price or the usage is unknown. */
    costUsd: z.number().min(0).nullable(),
    verdict: VerdictSchema,
    health: SessionHealthSchema,
    signals: SessionSignalsSchema,
    regulator: PressureAssessmentSchema,
    trigger: TriggerViewSchema,
    events: z.array(SessionEventSchema),
  })
  .meta({ id: 'UsageAnswer' });
export type UsageAnswer = z.infer<typeof UsageAnswerSchema>;

/** One point of a session's timeline, as the dashboard draws it. */
export const TimelinePointSchema = z
  .strictObject({
    index: count,
    timestamp: iso,
    promptTokens: count.nullable(),
    completionTokens: count.nullable(),
    health: HealthLevelSchema,
    regulatorLevel: PressureLevelSchema,
    viability: z.number(),
    /** Measured tokens per minute (the burn-rate signal), not the regulator's 0-200 scale. */
    burnRate: z.number(),
    action: VerdictActionSchema,
    countdown: count.nullable(),
    reminder: z.boolean(),
  })
  .meta({ id: 'TimelinePoint' });
export type TimelinePoint = z.infer<typeof TimelinePointSchema>;

export const MarkerTypeSchema = z.enum([
  'compaction',
  'forced_new_round',
  'reminder_added',
  'reminder_dropped',
]);
export type MarkerType = z.infer<typeof MarkerTypeSchema>;
export const TimelineMarkerSchema = z
  .strictObject({
    type: MarkerTypeSchema,
    timestamp: iso,
    /** The generations recorded when it happened (a compaction's marker: the calls before it). */
    index: count,
    detail: z.string(),
    /** A compaction that was an eviction by barometer: what it removed and where the originals are. */
    evicted: EvictedSchema.optional(),
  })
  .meta({ id: 'TimelineMarker' });
export type TimelineMarker = z.infer<typeof TimelineMarkerSchema>;

/**
 * What barometer's proxy does with the session's requests: `mode` `act` (the eviction policy edits them) or `observe`
 * (seen through the proxy's `/observe` routes or an observing proxy: forwarded as sent, for the rest of the session);
 * `acting` whether it edits them now; `pause`, the latest time it stopped because recording failed (the requests then
 * went upstream with no new edits), `until` null while it lasts.
 */
export const ProxyStatusSchema = z
  .strictObject({
    mode: z.enum(['act', 'observe']),
    acting: z.boolean(),
    pause: z
      .strictObject({
        stage: z.enum(['session', 'record']),
        code: z.string().nullable(),
        message: z.string(),
        since: iso,
        until: iso.nullable(),
      })
      .nullable(),
    /**
     * What the window policy did to the session's sub-agents (`--window-policy`): the levers on, the lowered budget
     * (`budget_tokens`), the sub-agent conversations and requests sent with it, the requests held and for how long.
     * Absent when no lever is on and none acted.
     */
    windowPolicy: z
      .strictObject({
        levers: z.array(z.enum(['thinking', 'hold'])),
        budgetTokens: count,
        conversationsLowered: count,
        requestsLowered: count,
        requestsHeld: count,
        heldSeconds: z.number().min(0),
      })
      .optional(),
  })
  .meta({ id: 'ProxyStatus' });
export type ProxyStatus = z.infer<typeof ProxyStatusSchema>;

/** A session without its timeline: what lists and the all-sessions stream carry. */
export const SessionSummarySchema = z
  .strictObject({
    id: z.string(),
    model: z.string(),
    agent: AgentNameSchema.nullable(),
    createdAt: iso,
    updatedAt: iso.nullable(),
    generations: count,
    profile: z.strictObject({
      contextWindow: count.nullable(),
      optimalMaxTokens: count,
      criticalMaxTokens: count.nullable(),
      tpmLimit: count.nullable(),
      tokenBudget: count.nullable(),
      /** The last layer that gave the model a figure; null when none knows the model. */
      source: ProfileSourceSchema.nullable(),
      /** Where `contextWindow` comes from; null when no window is known (health is then unknown). */
      windowSource: ProfileSourceSchema.nullable(),
      /** Where the price comes from; null when no price is known (calls are unpriced). */
      priceSource: ProfileSourceSchema.nullable(),
      /** The known model a family estimate took figures from (`claude-opus-4-8`), or null when none was used. */
      estimatedFrom: z.string().nullable(),
      /** The family of that estimate (`claude-opus-*`), or null. */
      family: z.string().nullable(),
      /** Why calls cannot be priced, or null when the model has a price. */
      unpricedReason: z.string().nullable(),
    }),
    signals: SessionSignalsSchema,
    health: SessionHealthSchema,
    regulator: PressureAssessmentSchema.nullable(),
    verdict: VerdictSchema.nullable(),
    /**
     * When the verdict was given: the last usage update, quota observation (a refused request's rate-limit
     * headers) or compaction. A `waitSeconds` counts from here.
     */
    verdictAt: iso.nullable(),
    /** The folder the agent works in, when its hooks, its log or its creator said (`workingDirectory`). */
    workingDirectory: z.string().nullable(),
    /** The agent's process id, when its hook said (`agentProcessId`). */
    agentProcessId: z.number().int().nullable(),
    /** The session this one is a sub-agent of (`parentId` at creation), or null for an agent's own session. */
    parentId: z.string().nullable(),
    /** What barometer's proxy does with the session's requests; null when no proxy has seen it. */
    proxy: ProxyStatusSchema.nullable(),
    /** The sessions created with this one as their parent (its sub-agents), oldest first. */
    subAgents: z.array(z.string()),
    /** The project, for people: the `project` option, else the last segments of `workingDirectory`; null when unknown. */
    project: z.string().nullable(),
    /** An excerpt of the user's first request (`title`), or null when no surface saw one. */
    title: z.string().nullable(),
    /** The session's own calls, tokens and cost (its sub-agents' are in `GET /api/v1/sessions/:id/sub-agents`). */
    totals: SessionTotalsSchema,
    /** What barometer's evictions removed and the tokens they kept from being sent again; null before any. */
    evictions: EvictionSavingsSchema.nullable(),
    /** What barometer's proxy saved, measured per request it forwarded acting; null when none was. */
    receipt: ReceiptSchema.nullable(),
  })
  .meta({ id: 'SessionSummary' });
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

/** The whole session: its summary, the last points of its timeline and its markers. */
export const SessionViewSchema = SessionSummarySchema.extend({
  timeline: z.array(TimelinePointSchema),
  markers: z.array(TimelineMarkerSchema),
  /** The receipts' latest calls and departures; null when the proxy forwarded none acting. */
  receiptCalls: ReceiptCallsSchema.nullable(),
}).meta({ id: 'SessionView' });
export type SessionView = z.infer<typeof SessionViewSchema>;

/**
 * What a session's event stream sends after each change (`event: update`): the new summary, the timeline
 * points and markers added since the last message, never the whole timeline again.
 */
export const SessionDeltaSchema = z
  .strictObject({
    sessionId: z.string(),
    summary: SessionSummarySchema,
    points: z.array(TimelinePointSchema),
    markers: z.array(TimelineMarkerSchema),
  })
  .meta({ id: 'SessionDelta' });
export type SessionDelta = z.infer<typeof SessionDeltaSchema>;
