import type { z } from 'zod';
import type { HealthLevelSchema } from '../health/health-level.js';
import type {
  PressureAssessmentSchema,
  PressureInputSchema,
  PressureLevelSchema,
  PressureReportSchema,
} from '../pressure/schemas.js';
import type { EvictedSchema, EvictionSavingsSchema } from '../session/eviction-savings.js';
import type {
  MarkerTypeSchema,
  ProxyStatusSchema,
  SessionDeltaSchema,
  SessionEventSchema,
  SessionHealthSchema,
  SessionSignalsSchema,
  SessionSummarySchema,
  SessionViewSchema,
  TimelineMarkerSchema,
  TimelinePointSchema,
  UsageAnswerSchema,
  VerdictActionSchema,
  VerdictReasonSchema,
  VerdictSchema,
} from '../session/session-schemas.js';
import type { SessionTotalsSchema } from '../session/session-totals.js';
import type { SubAgentsAnswerSchema } from '../session/sub-agents.js';
import type { ProblemSchema, ValidationIssueSchema } from './problem.js';
import type {
  ReplayCallSchema,
  ReplayCompactionSchema,
  ReplayResultSchema,
  WhatIfEvictionSchema,
  WhatIfSummarySchema,
  WhatIfTotalsSchema,
} from './replay.js';

/**
 * barometer's contract: one zod schema per wire shape, requests and answers, of every surface (HTTP, the event
 * streams, the MCP tools, the CLI's `--json`), and the TypeScript types inferred from them (decision 022). The
 * route table declares each route's schemas from here, `/openapi.json` and docs/sessions-api.md are generated from
 * them, the MCP tools advertise them as input and output schemas, and the dashboard (web/) imports the types, by
 * `import type` only. Shapes that the library defines beside their concept (a session's view, a pool, the
 * regulator's report) are re-exported, never written twice.
 *
 * Every time in an answer is an ISO 8601 string.
 */

export * from './archives.js';
export * from './compact.js';
export * from './discipline.js';
export * from './mcp-tools.js';
export * from './pools.js';
export * from './pressure.js';
export * from './problem.js';
export * from './replay.js';
export * from './report.js';
export * from './service.js';
export * from './sessions.js';
export * from './time.js';
export * from './webhooks.js';

// The types the surfaces and the dashboard read, inferred from the schemas.
export type HealthLevel = z.infer<typeof HealthLevelSchema>;
export type PressureInput = z.input<typeof PressureInputSchema>;
export type PressureLevel = z.infer<typeof PressureLevelSchema>;
export type PressureAssessment = z.infer<typeof PressureAssessmentSchema>;
export type PressureReport = z.infer<typeof PressureReportSchema>;
export type VerdictAction = z.infer<typeof VerdictActionSchema>;
export type VerdictReason = z.infer<typeof VerdictReasonSchema>;
export type Verdict = z.infer<typeof VerdictSchema>;
export type SessionHealth = z.infer<typeof SessionHealthSchema>;
export type SessionSignals = z.infer<typeof SessionSignalsSchema>;
export type SessionEvent = z.infer<typeof SessionEventSchema>;
export type UsageAnswer = z.infer<typeof UsageAnswerSchema>;
export type TimelinePoint = z.infer<typeof TimelinePointSchema>;
export type MarkerType = z.infer<typeof MarkerTypeSchema>;
export type TimelineMarker = z.infer<typeof TimelineMarkerSchema>;
export type SessionSummary = z.infer<typeof SessionSummarySchema>;
export type SessionView = z.infer<typeof SessionViewSchema>;
export type SessionDelta = z.infer<typeof SessionDeltaSchema>;
export type ProxyStatus = z.infer<typeof ProxyStatusSchema>;
export type Evicted = z.infer<typeof EvictedSchema>;
export type EvictionSavings = z.infer<typeof EvictionSavingsSchema>;
export type SessionTotals = z.infer<typeof SessionTotalsSchema>;
export type SubAgentsAnswer = z.infer<typeof SubAgentsAnswerSchema>;
export type ReplayResult = z.infer<typeof ReplayResultSchema>;
export type ReplayCall = z.infer<typeof ReplayCallSchema>;
export type ReplayCompaction = z.infer<typeof ReplayCompactionSchema>;
export type WhatIfSummary = z.infer<typeof WhatIfSummarySchema>;
export type WhatIfTotals = z.infer<typeof WhatIfTotalsSchema>;
export type WhatIfEviction = z.infer<typeof WhatIfEvictionSchema>;
export type ValidationIssueAnswer = z.infer<typeof ValidationIssueSchema>;
/** The body of every error answer of the API. */
export type ApiProblem = z.infer<typeof ProblemSchema>;
