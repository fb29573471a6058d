/**
 * The shapes the dashboard reads from `/api/v1`, as documented in docs/sessions-api.md. The dashboard is a
 * client of that contract: it declares what it reads and nothing it would have to compute itself.
 */
import type { PressureReport } from '../../src/pressure/types.js';

export type { PressureAssessment, PressureLevel, PressureReport } from '../../src/pressure/types.js';

export const HEALTH_LEVELS = ['healthy', 'caution', 'critical', 'unknown'] as const;
export type HealthLevel = (typeof HEALTH_LEVELS)[number];

export type VerdictAction = 'continue' | 'optimize' | 'compress' | 'terminate';
export type VerdictPriority = 'urgent' | 'high' | 'normal' | 'low';

export interface VerdictReason {
  model: string;
  action: VerdictAction;
  priority: VerdictPriority;
  reason: string;
}

export interface Verdict {
  action: VerdictAction;
  priority: VerdictPriority;
  reasons: VerdictReason[];
}

export interface HealthView {
  level: HealthLevel;
  promptTokens: number | null;
  optimal: number | null;
  critical: number | null;
  reminder: { id: string; text: string } | null;
  countdown: number | null;
}

export interface SessionSignals {
  lastPromptTokens: number | null;
  percentOfWindow: number | null;
  burnRateTokensPerMin: number | null;
  tokensLastMinute: number | null;
  tpmLimit: number | null;
  budgetUsed: number | null;
  budgetRemaining: number | null;
  ageSeconds: number | null;
  driftPercent: number | null;
  /** USD spent at the model's price; null when no price is known. */
  costUsd?: number | null;
  /** Share of prompt tokens read from the provider's cache, in percent. */
  cacheHitPercent?: number | null;
}

export interface TimelinePoint {
  index: number;
  timestamp: string;
  promptTokens: number | null;
  completionTokens: number | null;
  health: HealthLevel;
  regulatorLevel: string | null;
  viability: number | null;
  /** Measured tokens per minute (the session's burn rate signal), not the regulator's 0–200 scale. */
  burnRate: number | null;
  action: VerdictAction | null;
  countdown: number | null;
  reminder: boolean;
}

export type MarkerType = 'compaction' | 'forced_new_round' | 'reminder_added' | 'reminder_dropped';

export interface SessionMarker {
  type: MarkerType;
  timestamp: string;
  index: number;
  detail?: string | null;
}

export interface SessionView {
  id: string;
  model: string;
  agent: string | null;
  createdAt: string;
  updatedAt: string | null;
  generations: number;
  profile: {
    contextWindow: number | null;
    optimalMaxTokens: number | null;
    criticalMaxTokens: number | null;
    tpmLimit: number | null;
    tokenBudget: number | null;
  };
  signals: SessionSignals | null;
  health: HealthView | null;
  regulator: (PressureReport['pressure'] & Record<string, unknown>) | null;
  verdict: Verdict | null;
  timeline: TimelinePoint[];
  markers: SessionMarker[];
}

export interface ReplayCall {
  index: number;
  timestamp: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  health: HealthLevel;
  regulatorLevel: string | null;
  action: VerdictAction;
  reasons: Array<VerdictReason | string>;
  /** With the what-if: the prompt barometer's policy would have sent, and the drift measured on the log. */
  whatIfPromptTokens?: number | null;
  whatIfCostUsd?: number | null;
  driftPercent?: number | null;
}

/** Totals of one side of the what-if. */
export interface WhatIfTotals {
  promptTokens: number;
  costUsd: number | null;
  peakPromptTokens: number | null;
  compactions: number;
}

/** One batch barometer's policy would have evicted. */
export interface WhatIfEviction {
  beforeCallIndex: number;
  taskId: string;
  boundary: string;
  detail: string;
  items: number;
  bytes: number;
  tokensFreed: number;
}

/** `whatIf` of a replay with `whatIf=true`: the recorded session against barometer's eviction policy. */
export interface ReplayWhatIf {
  real: WhatIfTotals;
  policy: WhatIfTotals & {
    evictions: number;
    archivedItems: number;
    archivedBytes: number;
    rereads: number;
    rereadTokens: number;
    callsAboveCompactionPoint: number;
  };
  savedPercent: number;
  costSavedPercent: number | null;
  archiveVerified: boolean;
  archiveFailures: string[];
  compactionPoint: number | null;
  calibration: { meanAbsErrorPercent: number; maxAbsErrorPercent: number };
  evictions: WhatIfEviction[];
}

export interface ReplayCompaction {
  timestamp: string | null;
  trigger: string | null;
  preTokens: number | null;
  beforeCallIndex: number | null;
}

/** Exactly what `barometer replay --json` prints and `POST /api/v1/replay` answers. */
export interface ReplayResult {
  format: string;
  model: string | null;
  contextWindow: number | null;
  /** Present when the replay reports the thresholds it used; drawn as lines when given. */
  optimal?: number | null;
  critical?: number | null;
  calls: ReplayCall[];
  compactions: ReplayCompaction[];
  summary: {
    calls: number;
    compactions: number;
    firstCompressCallIndex: number | null;
    peakPromptTokens: number | null;
  };
  /** Present when the replay ran with `whatIf=true`. */
  whatIf?: ReplayWhatIf;
}

export interface SampleInfo {
  name: string;
  format: string;
  description: string;
}

/** The body of every 4xx answer of the API. */
export interface ApiProblem {
  error: string;
  code: string;
  issues?: Array<{ field: string; value: unknown; message: string }>;
}

/** What a session's stream sends after each change (`event: update`): the summary and what was added. */
export interface SessionDelta {
  sessionId: string;
  summary: Omit<SessionView, 'timeline' | 'markers'>;
  points: TimelinePoint[];
  markers: SessionMarker[];
}
