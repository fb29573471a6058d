import { evaluateResolved, pressureLevel } from '../pressure/evaluate.js';
import type { AgentProfile, SystemMode } from '../pressure/parameters.js';
import type { ResolvedPressureInput } from '../pressure/resolve-input.js';
import type { PressureReport } from '../pressure/types.js';
import type { SessionSignals } from './session-schemas.js';

export type { SessionSignals } from './session-schemas.js';

/** The regulator's bounds on the budget: seed 000's parameter table. */
const BUDGET_MIN = 1000;
const BUDGET_MAX = 1_000_000;

/**
 * Maps the session's signals onto the regulator's ten inputs, never inventing one it does not have:
 * - memory = prompt tokens as a percent of the window;
 * - burn on the seed's 0-200 scale, where 100 means the session's quota-limited maximum rate: measured
 *   tokens/min ÷ TPM limit × 100; without a TPM limit the burn cannot be scaled and counts as 0;
 * - drift as given, else 0 ("drift not measured");
 * - the budget's share used is kept when the budget lies outside the seed's 1,000-1,000,000 range; without a
 *   budget the regulator sees an untouched 1,000,000 so that no budget rule fires.
 */
export function regulatorInputOf(
  signals: SessionSignals,
  settings: { systemMode: SystemMode; agentProfile: AgentProfile },
): { input: ResolvedPressureInput; notes: string[] } {
  const notes: string[] = [];
  let memory = 0;
  // From the token figures, not the rounded percent shown: the regulator compares unrounded values.
  if (signals.lastPromptTokens === null || signals.window === null) notes.push('memory not measured');
  else memory = Math.min(100, Math.max(0, (signals.lastPromptTokens / signals.window) * 100));
  let burn = 0;
  if (signals.tpmLimit === null) notes.push('burn not scaled: no TPM limit');
  else burn = Math.min(200, (signals.burnRateTokensPerMin / signals.tpmLimit) * 100);
  let drift = 0;
  if (signals.driftPercent === null) notes.push('drift not measured');
  else drift = Math.min(100, Math.max(0, signals.driftPercent));
  let total = BUDGET_MAX;
  let used = 0;
  if (signals.tokenBudget !== null && signals.budgetUsed !== null) {
    total = Math.min(BUDGET_MAX, Math.max(BUDGET_MIN, signals.tokenBudget));
    used = Math.min(total, (signals.budgetUsed / signals.tokenBudget) * total);
  } else {
    notes.push('no token budget');
  }
  return {
    input: {
      memoryUsedPercent: memory,
      tokenBurnRatePerMin: burn,
      contextDriftPercent: drift,
      sessionAgeSeconds: signals.ageSeconds,
      tokenBudgetTotal: total,
      tokenBudgetUsed: used,
      contextWindowMaxBytes: 200_000,
      contextWindowUsedBytes: 0,
      systemMode: settings.systemMode,
      agentProfile: settings.agentProfile,
    },
    notes,
  };
}

/** The regulator as a session sees it: its report, with the budget figures in real tokens and minutes or null. */
export interface SessionRegulatorView {
  report: PressureReport;
  /** Real tokens left of the session's budget; null without a budget. */
  tokensRemaining: number | null;
  /** Real minutes left at the measured burn; null without a budget or when nothing burns. */
  minutesRemaining: number | null;
  notes: string[];
}

export function regulatorView(
  signals: SessionSignals,
  settings: { systemMode: SystemMode; agentProfile: AgentProfile },
  now: number,
): SessionRegulatorView {
  const { input, notes } = regulatorInputOf(signals, settings);
  const tokensRemaining = signals.budgetRemaining;
  const minutesRemaining =
    tokensRemaining === null || signals.burnRateTokensPerMin === 0
      ? null
      : Math.round((tokensRemaining / signals.burnRateTokensPerMin) * 10) / 10;
  // The report carries the real figures (or null without a budget), and the regulator's minute rules judge them.
  const report = evaluateResolved(input, { now, measured: { tokensRemaining, minutesRemaining } });
  // The level comes from the unrounded viability; rounded, 74.6 would read "75" beside MODERATE. A session shows
  // the figure one below the boundary then, so that its page never contradicts itself.
  const pressure = report.pressure;
  if (pressureLevel(pressure.sessionViability) !== pressure.level) pressure.sessionViability -= 1;
  return { report, tokensRemaining, minutesRemaining, notes };
}
