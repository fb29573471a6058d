import { pressureLevel } from '../pressure/evaluate-core.js';
import { evaluateSessionPressure, type SessionPressure } from '../pressure/session-pressure.js';
import type { SessionSignals } from './session-schemas.js';
import { REGULATOR_SETTINGS } from './session-settings.js';

export type { SessionSignals } from './session-schemas.js';

/** The regulator as a session sees it: its report, with the budget figures in real tokens and minutes or null. */
export type SessionRegulatorView = SessionPressure;

/**
 * Seed 000's regulator on a session's signals, through its session entry: memory is the window share, the burn
 * the measured tokens/min against the TPM limit, drift as measured, the budget only when the session has one
 * (`evaluateSessionPressure` says how each maps, and notes what was not measured). `windowShare` is the last
 * prompt's unrounded share of the window (the step computes it once).
 */
export function regulatorView(
  signals: SessionSignals,
  windowShare: number | null,
  now: number,
): SessionRegulatorView {
  const view = evaluateSessionPressure({
    memoryUsedPercent: windowShare === null ? null : windowShare * 100,
    burnTokensPerMin: signals.burnRateTokensPerMin,
    tpmLimit: signals.tpmLimit,
    driftPercent: signals.driftPercent,
    sessionAgeSeconds: signals.ageSeconds,
    budget:
      signals.tokenBudget === null || signals.budgetUsed === null
        ? null
        : { total: signals.tokenBudget, used: signals.budgetUsed },
    systemMode: REGULATOR_SETTINGS.systemMode,
    agentProfile: REGULATOR_SETTINGS.agentProfile,
    now,
  });
  // The level comes from the unrounded viability; rounded, 74.6 would read "75" beside MODERATE. A session shows
  // the figure one below the boundary then, so that its page never contradicts itself.
  const pressure = view.report.pressure;
  if (pressureLevel(pressure.sessionViability) !== pressure.level) pressure.sessionViability -= 1;
  return view;
}
