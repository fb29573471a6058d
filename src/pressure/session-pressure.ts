import { evaluateCore, terminateCauses } from './evaluate-core.js';
import type { AgentProfile, SystemMode } from './parameters.js';
import type { PressureReport, TerminateCause } from './types.js';

/**
 * What a live session measured, in its own units: the regulator's session entry maps them onto seed 000's
 * inputs (DESIGN.md, 000 "Units") and never invents one it does not have.
 */
export interface SessionPressureInput {
  /** The last prompt as a percent of the window, unrounded; null when the prompt or the window is unknown. */
  memoryUsedPercent: number | null;
  /** Measured tokens per minute over the session's burn window, counted as its per-minute quota counts them. */
  burnTokensPerMin: number;
  /** The session's quota-limited maximum rate (its TPM limit), which is 100 on the regulator's burn scale. */
  tpmLimit: number | null;
  /** Drift (0–100) when something measured it; null when nothing did. */
  driftPercent: number | null;
  sessionAgeSeconds: number;
  /** The session's token budget and what it has spent, only when it has a budget. */
  budget: { total: number; used: number } | null;
  /** @default 'production' */
  systemMode?: SystemMode;
  /** @default 'balanced' (the seed's own rules) */
  agentProfile?: AgentProfile;
  /** Epoch ms stamped on the report. */
  now: number;
}

/** The regulator's answer to a session: its own report, and what a session needs to read it. */
export interface SessionPressure {
  /** Seed 000's report, exactly as the regulator gave it (its `suggestedAction` included). */
  report: PressureReport;
  /** The inputs it did not have, each counted as 0 or left out, in words ("drift not measured"). */
  notes: string[];
  /** Why the report says terminate, when it does (see {@link terminateCauses}). */
  terminateCauses: TerminateCause[];
  /** Real tokens left of the session's budget; null without a budget. */
  tokensRemaining: number | null;
  /** Real minutes left at the measured burn; null without a budget or when nothing burns. */
  minutesRemaining: number | null;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * The burn on the regulator's 0–200 scale: 100 means the session's quota-limited maximum rate, so measured
 * tokens/min ÷ TPM limit × 100, at most 200. Null without a TPM limit: the burn cannot be scaled.
 */
export function burnOnRegulatorScale(tokensPerMinute: number, tpmLimit: number | null): number | null {
  return tpmLimit === null ? null : Math.min(200, (tokensPerMinute / tpmLimit) * 100);
}

/**
 * Seed 000's regulator on a live session's measured figures. Memory, burn (mapped by
 * {@link burnOnRegulatorScale}) and drift it has not measured count as 0, each with a note; the budget rules
 * read the session's real budget (its share left, its tokens left and its minutes at the measured burn), and
 * without a budget none of them fires and both figures are null. The stateless `/api/v1/pressure` does not come
 * here: it takes the seed's ten inputs and defaults (`evaluatePressure`). Pure: time is `now`.
 *
 * @example
 * evaluateSessionPressure({ memoryUsedPercent: 97, burnTokensPerMin: 0, tpmLimit: null, driftPercent: null,
 *   sessionAgeSeconds: 60, budget: null, now: Date.now() }).terminateCauses; // ['memory_over_95']
 */
export function evaluateSessionPressure(input: SessionPressureInput): SessionPressure {
  const notes: string[] = [];
  let memory = 0;
  if (input.memoryUsedPercent === null) notes.push('memory not measured');
  else memory = Math.min(100, Math.max(0, input.memoryUsedPercent));
  const scaled = burnOnRegulatorScale(input.burnTokensPerMin, input.tpmLimit);
  if (scaled === null) notes.push('burn not scaled: no TPM limit');
  const burn = scaled ?? 0;
  let drift = 0;
  if (input.driftPercent === null) notes.push('drift not measured');
  else drift = Math.min(100, Math.max(0, input.driftPercent));
  let remainingShare: number | null = null;
  let tokensRemaining: number | null = null;
  let minutesRemaining: number | null = null;
  if (input.budget === null) notes.push('no token budget');
  else {
    tokensRemaining = Math.max(0, input.budget.total - input.budget.used);
    remainingShare = tokensRemaining / input.budget.total;
    if (input.burnTokensPerMin !== 0) {
      const minutes = round1(tokensRemaining / input.burnTokensPerMin);
      minutesRemaining = Number.isFinite(minutes) ? minutes : null;
    }
  }
  const report = evaluateCore(
    memory,
    burn,
    drift,
    input.sessionAgeSeconds,
    remainingShare,
    tokensRemaining,
    minutesRemaining,
    input.systemMode ?? 'production',
    input.agentProfile ?? 'balanced',
    input.now,
  );
  const pressure = report.pressure;
  return {
    report,
    notes,
    terminateCauses:
      pressure.suggestedAction === 'terminate'
        ? terminateCauses(pressure.level, memory, pressure.estimatedMinutesRemaining)
        : [],
    tokensRemaining,
    minutesRemaining,
  };
}
