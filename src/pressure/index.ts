export {
  type EvaluateOptions,
  evaluatePressure,
  evaluateResolved,
  pressureLevel,
  safeEvaluatePressure,
  shouldTerminate,
  terminateCauses,
  viability,
} from './evaluate.js';
export {
  AGENT_PROFILES,
  type AgentProfile,
  BASELINE_BURN,
  COMPRESS_MEMORY_TRIGGER,
  ENUM_PARAMETERS,
  NUMERIC_PARAMETER_NAMES,
  NUMERIC_PARAMETERS,
  type NumericParameterName,
  PARAMETER_NAMES,
  SYSTEM_MODES,
  type SystemMode,
} from './parameters.js';
export { parsePressureInput, pressureParameterRange } from './parse.js';
export { type ResolvedPressureInput, resolvePressureInput } from './resolve-input.js';
export {
  AgentProfileSchema,
  PressureAssessmentSchema,
  PressureInputSchema,
  PressureLevelSchema,
  PressureQuerySchema,
  PressureRecommendationsSchema,
  PressureReportSchema,
  PrioritySchema,
  SuggestedActionSchema,
  SystemModeSchema,
  ThresholdCodeSchema,
} from './schemas.js';
export {
  burnOnRegulatorScale,
  evaluateSessionPressure,
  type SessionPressure,
  type SessionPressureInput,
} from './session-pressure.js';
export type {
  PressureAssessment,
  PressureInput,
  PressureLevel,
  PressureRecommendations,
  PressureReport,
  Priority,
  SuggestedAction,
  TerminateCause,
  ThresholdCode,
} from './types.js';
