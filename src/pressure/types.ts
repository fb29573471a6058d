import type { AgentProfile, SystemMode } from './parameters.js';

/** The regulator's input; every field is optional and takes the seed's default when absent. */
export interface PressureInput {
  memoryUsedPercent?: number;
  tokenBurnRatePerMin?: number;
  contextDriftPercent?: number;
  sessionAgeSeconds?: number;
  tokenBudgetTotal?: number;
  tokenBudgetUsed?: number;
  contextWindowMaxBytes?: number;
  contextWindowUsedBytes?: number;
  systemMode?: SystemMode;
  agentProfile?: AgentProfile;
}

export type PressureLevel = 'LOW' | 'MODERATE' | 'HIGH' | 'CRITICAL';
export type Priority = 'urgent' | 'high' | 'normal' | 'low';
export type SuggestedAction = 'continue' | 'optimize' | 'compress' | 'terminate';
export type ThresholdCode =
  | 'memory_warning'
  | 'memory_critical'
  | 'token_budget_10_percent'
  | 'token_budget_5_percent'
  | 'elevated_drift'
  | 'drift_critical'
  | 'session_too_long'
  | 'eol_approaching';

/** Which part of seed 000's terminate rule held: the CRITICAL level, memory over 95%, the runway under 5 minutes. */
export type TerminateCause = 'critical_level' | 'memory_over_95' | 'runway_under_5_minutes';

export interface PressureRecommendations {
  shouldCompress: boolean;
  shouldOptimize: boolean;
  shouldTerminate: boolean;
  priority: Priority;
}

export interface PressureAssessment {
  level: PressureLevel;
  sessionViability: number;
  memoryPressure: number;
  tokenBurnRate: number;
  contextDrift: number;
  /** Tokens left of the budget; `null` only in a session without a budget (see evaluateSessionPressure). */
  estimatedTokensRemaining: number | null;
  /** `null` when nothing burns (the budget is not depleting). */
  estimatedMinutesRemaining: number | null;
  burnRateAcceleration: number;
  recommendations: PressureRecommendations;
  thresholdsExceeded: ThresholdCode[];
  suggestedAction: SuggestedAction;
}

/** Exactly the body of a 200 answer from `/api/v1/pressure`. */
export interface PressureReport {
  timestamp: string;
  pressure: PressureAssessment;
  metadata: { systemMode: SystemMode; agentProfile: AgentProfile };
}
