import { BarometerValidationError, type Result } from '../errors/validation.js';
import {
  type AgentProfile,
  BASELINE_BURN,
  COMPRESS_MEMORY_TRIGGER,
  ENUM_PARAMETERS,
  NUMERIC_PARAMETERS,
  type SystemMode,
} from './parameters.js';
import { KNOWN_KEYS, type ResolvedPressureInput, resolvePressureInput } from './resolve-input.js';
import type {
  PressureInput,
  PressureLevel,
  PressureReport,
  Priority,
  SuggestedAction,
  ThresholdCode,
} from './types.js';

/** Options of `evaluatePressure`. */
export interface EvaluateOptions {
  /** The time stamped on the report: a Date or epoch milliseconds. Time is a parameter, never read here. */
  now: Date | number;
  /**
   * Budget figures the caller measured itself, reported instead of the ones derived from the inputs and used by
   * the minute rules (`eol_approaching`, terminate under 5 minutes): a session knows its real tokens left and its
   * real burn in tokens/min, which the seed's 0-200 burn scale cannot express. `null` means "no budget": no
   * budget threshold fires and the figure is reported as null. The stateless endpoint never sets this.
   */
  measured?: { tokensRemaining: number | null; minutesRemaining: number | null };
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

// Formatting a date is the costliest step of an evaluation; reports within one second share the string.
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
  return evaluateCore(
    input.memoryUsedPercent,
    input.tokenBurnRatePerMin,
    input.contextDriftPercent,
    input.sessionAgeSeconds,
    input.tokenBudgetTotal,
    input.tokenBudgetUsed,
    input.systemMode,
    input.agentProfile,
    options.now,
    options.measured,
  );
}

// Scalars rather than an object: the hot path allocates only the report itself.
function evaluateCore(
  memory: number,
  burn: number,
  drift: number,
  sessionAgeSeconds: number,
  tokenBudgetTotal: number,
  tokenBudgetUsed: number,
  systemMode: SystemMode,
  agentProfile: AgentProfile,
  now: Date | number,
  measured?: EvaluateOptions['measured'],
): PressureReport {
  const baseline = BASELINE_BURN[systemMode];
  const value = viability(memory, burn, drift);
  const level = pressureLevel(value);
  const remaining = tokenBudgetTotal - tokenBudgetUsed;
  // Comparisons use the reported (rounded) minutes so that the flags agree with the figure shown.
  // A burn so small that the figure overflows is "not depleting" too.
  const rounded = round1(measured ? (measured.minutesRemaining ?? Number.NaN) : remaining / burn);
  const minutes = (burn === 0 && !measured) || !Number.isFinite(rounded) ? null : rounded;
  const hasBudget = !measured || measured.tokensRemaining !== null;

  const thresholdsExceeded: ThresholdCode[] = [];
  if (memory > 80) thresholdsExceeded.push('memory_critical');
  else if (memory > 65) thresholdsExceeded.push('memory_warning');
  const remainingShare = remaining / tokenBudgetTotal;
  if (hasBudget && remainingShare < 0.05) thresholdsExceeded.push('token_budget_5_percent');
  else if (hasBudget && remainingShare < 0.1) thresholdsExceeded.push('token_budget_10_percent');
  if (drift > 75) thresholdsExceeded.push('drift_critical');
  else if (drift > 50) thresholdsExceeded.push('elevated_drift');
  if (sessionAgeSeconds > 7200) thresholdsExceeded.push('session_too_long');
  if (minutes !== null && minutes < 10) thresholdsExceeded.push('eol_approaching');

  const shouldCompress =
    level === 'HIGH' || level === 'CRITICAL' || memory > COMPRESS_MEMORY_TRIGGER[agentProfile];
  const shouldOptimize = level === 'MODERATE' || level === 'HIGH' || burn > 1.5 * baseline;
  const shouldTerminate = level === 'CRITICAL' || memory > 95 || (minutes !== null && minutes < 5);
  let suggestedAction: SuggestedAction = 'continue';
  if (shouldTerminate) suggestedAction = 'terminate';
  else if (shouldCompress && level === 'HIGH') suggestedAction = 'compress';
  else if (shouldOptimize) suggestedAction = 'optimize';

  return {
    timestamp: timestampOf(now),
    pressure: {
      level,
      sessionViability: Math.round(value),
      memoryPressure: Math.round(memory),
      tokenBurnRate: Math.round(Math.min(burn, 100)),
      contextDrift: Math.round(drift),
      estimatedTokensRemaining: measured ? measured.tokensRemaining : Math.round(remaining),
      estimatedMinutesRemaining: minutes,
      burnRateAcceleration: round2(burn / baseline),
      recommendations: { shouldCompress, shouldOptimize, shouldTerminate, priority: PRIORITY[level] },
      thresholdsExceeded,
      suggestedAction,
    },
    metadata: { systemMode, agentProfile },
  };
}

const DEFAULT_MEMORY = NUMERIC_PARAMETERS.memoryUsedPercent.default;
const DEFAULT_BURN = NUMERIC_PARAMETERS.tokenBurnRatePerMin.default;
const DEFAULT_DRIFT = NUMERIC_PARAMETERS.contextDriftPercent.default;
const DEFAULT_AGE = NUMERIC_PARAMETERS.sessionAgeSeconds.default;
const DEFAULT_TOTAL = NUMERIC_PARAMETERS.tokenBudgetTotal.default;
const DEFAULT_USED = NUMERIC_PARAMETERS.tokenBudgetUsed.default;
const DEFAULT_MODE = ENUM_PARAMETERS.systemMode.default;
const DEFAULT_PROFILE = ENUM_PARAMETERS.agentProfile.default;

/** Only an absent value takes the default: `null` stays null and fails the checks below. */
const orDefault = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value);

const inRange = (value: number | undefined, min: number, max: number) =>
  value === undefined || (typeof value === 'number' && value >= min && value <= max);

/**
 * The common case, checked field by field without building anything: every given value is a number in
 * range (NaN fails every comparison), the enums are known, and used ≤ total. Anything else takes the
 * detailed path that names what is wrong.
 */
function evaluateFast(input: PressureInput, now: Date | number): PressureReport | undefined {
  // An unknown key is refused by the full path, never ignored.
  for (const key in input) if (!KNOWN_KEYS.has(key)) return undefined;
  const memoryGiven = input.memoryUsedPercent;
  const burn = orDefault(input.tokenBurnRatePerMin, DEFAULT_BURN);
  const drift = orDefault(input.contextDriftPercent, DEFAULT_DRIFT);
  const age = orDefault(input.sessionAgeSeconds, DEFAULT_AGE);
  const total = orDefault(input.tokenBudgetTotal, DEFAULT_TOTAL);
  const used = orDefault(input.tokenBudgetUsed, DEFAULT_USED);
  const systemMode = orDefault(input.systemMode, DEFAULT_MODE);
  const agentProfile = orDefault(input.agentProfile, DEFAULT_PROFILE);
  if (
    !inRange(memoryGiven, 0, 100) ||
    !inRange(burn, 0, 200) ||
    !inRange(drift, 0, 100) ||
    !inRange(age, 0, Number.MAX_VALUE) ||
    !inRange(total, 1000, 1_000_000) ||
    !inRange(used, 0, total) ||
    (systemMode !== 'production' && systemMode !== 'demo' && systemMode !== 'diagnostic') ||
    (agentProfile !== 'balanced' && agentProfile !== 'minimal' && agentProfile !== 'aggressive') ||
    input.contextWindowMaxBytes !== undefined ||
    input.contextWindowUsedBytes !== undefined
  ) {
    return undefined;
  }
  return evaluateCore(
    memoryGiven ?? DEFAULT_MEMORY,
    burn,
    drift,
    age,
    total,
    used,
    systemMode,
    agentProfile,
    now,
  );
}

/**
 * Evaluates the context pressure of a session: seed 000's regulator. Pure and deterministic: the same
 * input and `now` give the same report. Absent inputs take the seed's defaults.
 *
 * @throws BarometerValidationError when an input is out of range, of the wrong type or inconsistent.
 * @example
 * evaluatePressure({ memoryUsedPercent: 72, tokenBurnRatePerMin: 55, contextDriftPercent: 68,
 *   tokenBudgetUsed: 62000 }, { now: Date.now() }).pressure.suggestedAction // 'compress'
 */
export function evaluatePressure(
  input: PressureInput,
  options: Partial<EvaluateOptions> = {},
): PressureReport {
  const now = options.now ?? Date.now();
  const fast = evaluateFast(input, now);
  if (fast !== undefined) return fast;
  const resolved = resolvePressureInput(input);
  if (!resolved.ok) throw new BarometerValidationError(resolved.issues, 'pressure input');
  return evaluateResolved(resolved.value, { ...options, now });
}

/** Like `evaluatePressure`, but returns the validation issues as data instead of throwing. */
export function safeEvaluatePressure(
  input: PressureInput,
  options: Partial<EvaluateOptions> = {},
): Result<PressureReport> {
  const resolved = resolvePressureInput(input);
  if (!resolved.ok) return resolved;
  return {
    ok: true,
    value: evaluateResolved(resolved.value, { ...options, now: options.now ?? Date.now() }),
  };
}
