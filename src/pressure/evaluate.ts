import { BarometerValidationError, type Result } from '../errors/validation.js';
import { type EvaluateOptions, evaluateResolved } from './evaluate-core.js';
import { resolvePressureInput } from './resolve-input.js';
import type { PressureInput, PressureReport } from './types.js';

export {
  type EvaluateOptions,
  evaluateCore,
  evaluateResolved,
  pressureLevel,
  shouldTerminate,
  terminateCauses,
  viability,
} from './evaluate-core.js';

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
  // The input schema's compiled check (decision 104), then the rules between fields.
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
