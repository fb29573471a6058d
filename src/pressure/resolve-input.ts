import type { Result, ValidationIssue } from '../errors/validation.js';
import {
  AGENT_PROFILES,
  type AgentProfile,
  ENUM_PARAMETERS,
  NUMERIC_PARAMETER_NAMES,
  NUMERIC_PARAMETERS,
  SYSTEM_MODES,
  type SystemMode,
} from './parameters.js';
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

/** The range as the HTTP schemas word it (src/pressure/schemas.ts), so every surface says the same. */
function rangeText(min: number, max: number | undefined): string {
  return max === undefined ? `≥ ${min}` : `from ${min} to ${max}`;
}

/** Every key the regulator takes; anything else is an unknown parameter, never silently ignored. */
export const KNOWN_KEYS: ReadonlySet<string> = new Set<string>([
  ...NUMERIC_PARAMETER_NAMES,
  'systemMode',
  'agentProfile',
]);

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
 * Fills defaults, checks types and ranges, and derives `memoryUsedPercent` from the byte figures when it
 * is absent and either byte figure was given. Hand-written rather than zod because it runs on every
 * evaluation and must cost nanoseconds; the ranges come from the same table as the zod schemas.
 */
export function resolvePressureInput(input: PressureInput): Result<ResolvedPressureInput> {
  let issues: ValidationIssue[] | undefined;
  const raw = input as Record<string, unknown>;
  for (const key in raw) {
    if (!KNOWN_KEYS.has(key) && Object.hasOwn(raw, key))
      issues = withIssue(issues, { field: key, value: raw[key], message: 'unknown parameter' });
  }
  for (const name of NUMERIC_PARAMETER_NAMES) {
    const value = raw[name];
    if (value === undefined) continue;
    const spec = NUMERIC_PARAMETERS[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      issues = withIssue(issues, {
        field: name,
        value,
        message: `must be a number ${rangeText(spec.min, spec.max)}`,
        allowed: { min: spec.min, ...(spec.max === undefined ? {} : { max: spec.max }) },
      });
    } else if (value < spec.min || (spec.max !== undefined && value > spec.max)) {
      issues = withIssue(issues, {
        field: name,
        value,
        message: `must be ${rangeText(spec.min, spec.max)}`,
        allowed: { min: spec.min, ...(spec.max === undefined ? {} : { max: spec.max }) },
      });
    }
  }
  // Only an absent value takes the default: a null that was given is an error, never a silent default.
  const systemMode = input.systemMode === undefined ? ENUM_PARAMETERS.systemMode.default : input.systemMode;
  if (!SYSTEM_MODES.includes(systemMode)) {
    issues = withIssue(issues, {
      field: 'systemMode',
      value: input.systemMode,
      message: `must be one of ${SYSTEM_MODES.join(', ')}`,
      allowed: { values: SYSTEM_MODES },
    });
  }
  const agentProfile =
    input.agentProfile === undefined ? ENUM_PARAMETERS.agentProfile.default : input.agentProfile;
  if (!AGENT_PROFILES.includes(agentProfile)) {
    issues = withIssue(issues, {
      field: 'agentProfile',
      value: input.agentProfile,
      message: `must be one of ${AGENT_PROFILES.join(', ')}`,
      allowed: { values: AGENT_PROFILES },
    });
  }
  if (issues) return { ok: false, issues };

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
