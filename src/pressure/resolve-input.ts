import { type CompiledValidator, compileValidator } from '../errors/compiled-validator.js';
import type { AllowedRange, Result, ValidationIssue } from '../errors/validation.js';
import { type AgentProfile, ENUM_PARAMETERS, NUMERIC_PARAMETERS, type SystemMode } from './parameters.js';
import { PressureInputSchema } from './schemas.js';
import type { PressureInput } from './types.js';

/** All ten inputs present, checked, with memory derived where the seed allows it. */
export interface ResolvedPressureInput {
  memoryUsedPercent: number;
  tokenBurnRatePerMin: number;
  contextDriftPercent: number;
  sessionAgeSeconds: number;
  tokenBudgetTotal: number;
  tokenBudgetUsed: number;
  contextWindowMaxBytes: number;
  contextWindowUsedBytes: number;
  systemMode: SystemMode;
  agentProfile: AgentProfile;
}

/** The allowed range of a regulator parameter, for error messages. */
export function pressureParameterRange(field: string): AllowedRange | undefined {
  if (field in NUMERIC_PARAMETERS) {
    const spec = NUMERIC_PARAMETERS[field as keyof typeof NUMERIC_PARAMETERS];
    return spec.max === undefined ? { min: spec.min } : { min: spec.min, max: spec.max };
  }
  if (field in ENUM_PARAMETERS)
    return { values: ENUM_PARAMETERS[field as keyof typeof ENUM_PARAMETERS].values };
  return undefined;
}

/**
 * The regulator's input as a JSON body, checked by the JSON Schema compiled from {@link PressureInputSchema}: types,
 * ranges, enums and unknown keys, from the one schema (decision 104). It runs on every evaluation.
 */
export const pressureInputValidator: CompiledValidator<PressureInput> = compileValidator(
  PressureInputSchema,
  pressureParameterRange,
);

/**
 * The issues with one more: a plain function rather than a closure made on every evaluation (under tsx each
 * closure is also named through Object.defineProperty).
 */
function withIssue(issues: ValidationIssue[] | undefined, issue: ValidationIssue): ValidationIssue[] {
  if (issues === undefined) return [issue];
  issues.push(issue);
  return issues;
}

/**
 * Checks the input against the schema, fills defaults, applies the rules between fields, and derives
 * `memoryUsedPercent` from the byte figures when it is absent and either byte figure was given.
 */
export function resolvePressureInput(input: PressureInput): Result<ResolvedPressureInput> {
  const checked = pressureInputValidator.parse(input);
  return checked.ok ? resolveCheckedPressureInput(checked.value) : checked;
}

/**
 * The rules no schema holds, on an input its schema accepted: defaults (only an absent value takes one), the
 * budget and window used at most their totals, and the memory derived from the byte figures.
 */
export function resolveCheckedPressureInput(input: PressureInput): Result<ResolvedPressureInput> {
  let issues: ValidationIssue[] | undefined;
  const systemMode = input.systemMode ?? ENUM_PARAMETERS.systemMode.default;
  const agentProfile = input.agentProfile ?? ENUM_PARAMETERS.agentProfile.default;
  const tokenBudgetTotal = input.tokenBudgetTotal ?? NUMERIC_PARAMETERS.tokenBudgetTotal.default;
  const tokenBudgetUsed = input.tokenBudgetUsed ?? NUMERIC_PARAMETERS.tokenBudgetUsed.default;
  if (tokenBudgetUsed > tokenBudgetTotal) {
    issues = withIssue(
      issues,
      exceeds(
        'tokenBudgetUsed',
        tokenBudgetUsed,
        input.tokenBudgetUsed === undefined,
        'tokenBudgetTotal',
        tokenBudgetTotal,
      ),
    );
  }
  const contextWindowMaxBytes =
    input.contextWindowMaxBytes ?? NUMERIC_PARAMETERS.contextWindowMaxBytes.default;
  const contextWindowUsedBytes =
    input.contextWindowUsedBytes ?? NUMERIC_PARAMETERS.contextWindowUsedBytes.default;
  if (contextWindowUsedBytes > contextWindowMaxBytes) {
    issues = withIssue(
      issues,
      exceeds(
        'contextWindowUsedBytes',
        contextWindowUsedBytes,
        input.contextWindowUsedBytes === undefined,
        'contextWindowMaxBytes',
        contextWindowMaxBytes,
      ),
    );
  }
  if (issues) return { ok: false, issues };

  let memoryUsedPercent = input.memoryUsedPercent;
  if (memoryUsedPercent === undefined) {
    const bytesGiven =
      input.contextWindowUsedBytes !== undefined || input.contextWindowMaxBytes !== undefined;
    memoryUsedPercent = bytesGiven
      ? (contextWindowUsedBytes / contextWindowMaxBytes) * 100
      : NUMERIC_PARAMETERS.memoryUsedPercent.default;
  }
  return {
    ok: true,
    value: {
      memoryUsedPercent,
      tokenBurnRatePerMin: input.tokenBurnRatePerMin ?? NUMERIC_PARAMETERS.tokenBurnRatePerMin.default,
      contextDriftPercent: input.contextDriftPercent ?? NUMERIC_PARAMETERS.contextDriftPercent.default,
      sessionAgeSeconds: input.sessionAgeSeconds ?? NUMERIC_PARAMETERS.sessionAgeSeconds.default,
      tokenBudgetTotal,
      tokenBudgetUsed,
      contextWindowMaxBytes,
      contextWindowUsedBytes,
      systemMode,
      agentProfile,
    },
  };
}

function exceeds(
  field: string,
  value: number,
  defaulted: boolean,
  limitField: string,
  limit: number,
): ValidationIssue {
  const given = defaulted ? `its default ${value}` : String(value);
  const hint = defaulted ? `; pass ${field} explicitly` : '';
  return {
    field,
    value,
    message: `must be ≤ ${limitField} (${limit}), got ${given}${hint}`,
    allowed: { min: 0, max: limit },
  };
}
