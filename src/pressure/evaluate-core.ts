/**
 * Seed 000's regulator on checked input: the viability equation, the level, the thresholds and the suggested action.
 * Apart from the entry points that validate (evaluate.ts), so that a surface which builds its own checked input (a
 * session's step, the status line) loads no input schema.
 */
import { type AgentProfile, BASELINE_BURN, COMPRESS_MEMORY_TRIGGER, type SystemMode } from './parameters.js';
import type { ResolvedPressureInput } from './resolve-input.js';
import type {
  PressureLevel,
  PressureReport,
  Priority,
  SuggestedAction,
  TerminateCause,
  ThresholdCode,
} from './types.js';

/** Options of `evaluatePressure`. */
export interface EvaluateOptions {
  /** The time stamped on the report: a Date or epoch milliseconds. Time is a parameter, never read here. */
  now: Date | number;
}

/** Viability weights of seed 000: memory 40 %, burn 40 %, coherence 20 %. */
const MEMORY_WEIGHT = 40;
const BURN_WEIGHT = 40;
const DRIFT_WEIGHT = 20;

/** The viability equation, unrounded and clamped to [0, 100]. Burn is on the seed's 0–200 scale. */
export function viability(
  memoryUsedPercent: number,
  tokenBurnRatePerMin: number,
  contextDriftPercent: number,
): number {
  const value =
    (1 - memoryUsedPercent / 100) * MEMORY_WEIGHT +
    (1 - Math.min(1, tokenBurnRatePerMin / 100)) * BURN_WEIGHT +
    (1 - contextDriftPercent / 100) * DRIFT_WEIGHT;
  return Math.max(0, Math.min(100, value));
}

/** Level from the unrounded viability. */
export function pressureLevel(sessionViability: number): PressureLevel {
  if (sessionViability >= 75) return 'LOW';
  if (sessionViability >= 50) return 'MODERATE';
  if (sessionViability >= 25) return 'HIGH';
  return 'CRITICAL';
}

const PRIORITY: Readonly<Record<PressureLevel, Priority>> = {
  CRITICAL: 'urgent',
  HIGH: 'high',
  MODERATE: 'normal',
  LOW: 'low',
};

const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;

// Formatting a date is the costliest step of an evaluation; reports within one second share the string. One entry
// (two variables): `toISOString` took 1.4–2.7 µs a call here, the cached text tens of ns (decision 021).
let cachedSecond = Number.NaN;
let cachedTimestamp = '';
function timestampOf(now: Date | number): string {
  const ms = typeof now === 'number' ? now : now.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    // The seed's reports carry whole seconds: 2026-02-17T15:30:45Z.
    cachedTimestamp = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
    cachedSecond = second;
  }
  return cachedTimestamp;
}

/** Evaluates already-resolved input; the rules of DESIGN.md's "000 regulator" section. */
export function evaluateResolved(input: ResolvedPressureInput, options: EvaluateOptions): PressureReport {
  const burn = input.tokenBurnRatePerMin;
  const remaining = input.tokenBudgetTotal - input.tokenBudgetUsed;
  return evaluateCore(
    input.memoryUsedPercent,
    burn,
    input.contextDriftPercent,
    input.sessionAgeSeconds,
    remaining / input.tokenBudgetTotal,
    Math.round(remaining),
    seedMinutes(remaining, burn),
    input.systemMode,
    input.agentProfile,
    options.now,
  );
}

/**
 * The seed's own runway: `remaining ÷ burn` on the 0–200 scale (the seed's examples call it minutes; it is hours,
 * see DESIGN.md), rounded to 1 decimal as reported; null when nothing burns or the figure overflows.
 */
function seedMinutes(remaining: number, burn: number): number | null {
  const minutes = round1(remaining / burn);
  return burn === 0 || !Number.isFinite(minutes) ? null : minutes;
}

/** Seed 000's terminate rule; {@link terminateCauses} names which of its parts held. */
export function shouldTerminate(level: PressureLevel, memory: number, minutes: number | null): boolean {
  return level === 'CRITICAL' || memory > 95 || (minutes !== null && minutes < 5);
}

/**
 * Why the regulator says terminate, as data, in the rule's order: the CRITICAL level, memory over 95%, or the
 * budget's runway under 5 minutes. Empty when it does not. `memory` is the unrounded input, `minutes` the
 * reported (rounded) runway, as the rule compares them.
 */
export function terminateCauses(
  level: PressureLevel,
  memory: number,
  minutes: number | null,
): TerminateCause[] {
  const causes: TerminateCause[] = [];
  if (level === 'CRITICAL') causes.push('critical_level');
  if (memory > 95) causes.push('memory_over_95');
  if (minutes !== null && minutes < 5) causes.push('runway_under_5_minutes');
  return causes;
}

/**
 * The rules on plain figures. The budget comes as the share left (the budget thresholds read it), the tokens left
 * and the runway in minutes (reported; read by `eol_approaching` and the 5-minute terminate); `remainingShare`
 * null means no budget: no budget rule fires and both figures are reported as null. Internal: the stateless
 * entries and {@link evaluateSessionPressure} call it. Scalars rather than an object: the hot path allocates only
 * the report itself.
 */
export function evaluateCore(
  memory: number,
  burn: number,
  drift: number,
  sessionAgeSeconds: number,
  remainingShare: number | null,
  tokensRemaining: number | null,
  minutes: number | null,
  systemMode: SystemMode,
  agentProfile: AgentProfile,
  now: Date | number,
): PressureReport {
  const baseline = BASELINE_BURN[systemMode];
  const value = viability(memory, burn, drift);
  const level = pressureLevel(value);
  // `minutes` is the reported (rounded) figure, so that the flags agree with what the report shows.
  const thresholdsExceeded: ThresholdCode[] = [];
  if (memory > 80) thresholdsExceeded.push('memory_critical');
  else if (memory > 65) thresholdsExceeded.push('memory_warning');
  if (remainingShare !== null && remainingShare < 0.05) thresholdsExceeded.push('token_budget_5_percent');
  else if (remainingShare !== null && remainingShare < 0.1)
    thresholdsExceeded.push('token_budget_10_percent');
  if (drift > 75) thresholdsExceeded.push('drift_critical');
  else if (drift > 50) thresholdsExceeded.push('elevated_drift');
  if (sessionAgeSeconds > 7200) thresholdsExceeded.push('session_too_long');
  if (minutes !== null && minutes < 10) thresholdsExceeded.push('eol_approaching');

  const compress = level === 'HIGH' || level === 'CRITICAL' || memory > COMPRESS_MEMORY_TRIGGER[agentProfile];
  const optimize = level === 'MODERATE' || level === 'HIGH' || burn > 1.5 * baseline;
  const terminate = shouldTerminate(level, memory, minutes);
  let suggestedAction: SuggestedAction = 'continue';
  if (terminate) suggestedAction = 'terminate';
  else if (compress && level === 'HIGH') suggestedAction = 'compress';
  else if (optimize) suggestedAction = 'optimize';

  return {
    timestamp: timestampOf(now),
    pressure: {
      level,
      sessionViability: Math.round(value),
      memoryPressure: Math.round(memory),
      tokenBurnRate: Math.round(Math.min(burn, 100)),
      contextDrift: Math.round(drift),
      estimatedTokensRemaining: tokensRemaining,
      estimatedMinutesRemaining: minutes,
      burnRateAcceleration: round2(burn / baseline),
      recommendations: {
        shouldCompress: compress,
        shouldOptimize: optimize,
        shouldTerminate: terminate,
        priority: PRIORITY[level],
      },
      thresholdsExceeded,
      suggestedAction,
    },
    metadata: { systemMode, agentProfile },
  };
}
