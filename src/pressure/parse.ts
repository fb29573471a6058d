import { type AllowedRange, parseWith, type Result } from '../errors/validation.js';
import { ENUM_PARAMETERS, NUMERIC_PARAMETERS, PARAMETER_NAMES } from './parameters.js';
import { type ResolvedPressureInput, resolvePressureInput } from './resolve-input.js';
import { PressureInputSchema, PressureQuerySchema } from './schemas.js';
import type { PressureInput } from './types.js';

const KNOWN_PARAMETERS = new Set<string>(PARAMETER_NAMES);

function isKnownKeysObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const key in value) if (!KNOWN_PARAMETERS.has(key)) return false;
  return true;
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
 * Parses untrusted regulator input from a surface: a JSON body (`'body'`), a query string or CLI flags
 * (`'text'`, where numbers arrive as text). Unknown keys, wrong types, ranges and cross-field rules all
 * come back as issues naming the field, the value and the allowed range.
 */
export function parsePressureInput(raw: unknown, source: 'body' | 'text'): Result<ResolvedPressureInput> {
  // A well-formed JSON body needs no schema walk: the hand-written checks of resolvePressureInput cover types,
  // ranges and enums from the same table. Anything they refuse goes through zod for the detailed issues.
  if (source === 'body' && isKnownKeysObject(raw)) {
    const resolved = resolvePressureInput(raw as PressureInput);
    if (resolved.ok) return resolved;
  }
  const schema = source === 'body' ? PressureInputSchema : PressureQuerySchema;
  // Absent means all defaults; a body of `null` is not absent and is refused like any non-object.
  const parsed = parseWith(schema, raw === undefined ? {} : raw, pressureParameterRange);
  if (!parsed.ok) return parsed;
  return resolvePressureInput(parsed.value);
}
