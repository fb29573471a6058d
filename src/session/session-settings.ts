import { type ResolvedTriggerConfig, withTriggerDefaults } from '../compaction/evaluate-triggers.js';
import type { HealthThresholds } from '../health/health-thresholds.js';
import type { StepHealthOptions } from '../health/step-health.js';
import type { AgentProfile, SystemMode } from '../pressure/parameters.js';
import type { TokenWindowSpec } from '../quota/token-window.js';
import { DEFAULT_BURN_WINDOW_SECONDS } from './session-options.js';
import { BURN_BUCKETS, type SessionState } from './session-state.js';

/** The regulator's mode and profile for sessions: its production baseline and the seed's own (balanced) rules. */
export const REGULATOR_SETTINGS: Readonly<{ systemMode: SystemMode; agentProfile: AgentProfile }> =
  Object.freeze({ systemMode: 'production', agentProfile: 'balanced' });

/** The burn window of a session: its `burnWindowSeconds` (5 minutes by default) in 30 buckets. */
export function burnWindowOf(state: SessionState): TokenWindowSpec {
  return {
    windowMs: (state.options.burnWindowSeconds ?? DEFAULT_BURN_WINDOW_SECONDS) * 1000,
    buckets: BURN_BUCKETS,
  };
}

const NO_TRIGGER_OPTIONS = Object.freeze({});

/**
 * The triggers' settings of a session: its options' thresholds with the defaults, and the model's TPM limit.
 * Made on each step from options the session checked when it was created (no schema parse here): a dozen fields,
 * where a cache per options object cost a WeakMap entry per session and a shared table of them (decision 021).
 */
export function triggerSettingsOf(state: SessionState): ResolvedTriggerConfig {
  return withTriggerDefaults(state.options.triggers ?? NO_TRIGGER_OPTIONS, state.profile.tpmLimit ?? null);
}

/** The health thresholds of a state, as the health model takes them (undefined where the state says null). */
export function thresholdsOf(state: SessionState): HealthThresholds {
  const t = state.thresholds;
  return { limit: t.limit ?? undefined, optimal: t.optimal, critical: t.critical ?? undefined };
}

/** The health model's options of a state. The session writes the reminder's text itself when it is read. */
export function healthOptionsOf(state: SessionState): StepHealthOptions {
  const cadence = state.options.cautionCadence;
  return cadence === undefined
    ? { thresholds: thresholdsOf(state), reminderText: false }
    : { thresholds: thresholdsOf(state), reminderText: false, cautionCadence: cadence };
}
