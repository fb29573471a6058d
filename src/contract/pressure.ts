/** `/api/v1/pressure`, the MCP tool `evaluate_pressure`, `barometer pressure`: the regulator's own schemas (seed 000). */

export { HealthLevelSchema } from '../health/health-level.js';
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
} from '../pressure/schemas.js';
