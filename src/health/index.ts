export { type HealthLevel, HealthLevelSchema, healthLevel } from './health-level.js';
export {
  CONTEXT_HEALTH_REMINDER,
  cautionReminderText,
  criticalReminderText,
  type ReminderFigures,
} from './health-reminder.js';
export {
  DEFAULT_CRITICAL_SHARE,
  DEFAULT_OPTIMAL_MAX_TOKENS,
  type HealthProfile,
  type HealthThresholds,
  healthThresholds,
} from './health-thresholds.js';
export {
  cautionCadence,
  DEFAULT_CAUTION_CADENCE,
  DEFAULT_CRITICAL_COUNTDOWN,
  type HealthEvent,
  type HealthObservation,
  type HealthState,
  HealthStateSchema,
  type HealthStep,
  initialHealthState,
  type ReminderInstruction,
  type StepHealthOptions,
  stepHealth,
} from './step-health.js';
