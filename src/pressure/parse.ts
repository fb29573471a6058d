import { compileValidator } from '../errors/compiled-validator.js';
import type { Result } from '../errors/validation.js';
import {
  pressureInputValidator,
  pressureParameterRange,
  type ResolvedPressureInput,
  resolveCheckedPressureInput,
} from './resolve-input.js';
import { PressureQuerySchema } from './schemas.js';

export { pressureParameterRange } from './resolve-input.js';

/** The same input as text (a query string, CLI flags): zod's own parse, since numbers arrive as text to convert. */
const pressureQueryValidator = compileValidator(PressureQuerySchema, pressureParameterRange);

/**
 * Parses untrusted regulator input from a surface: a JSON body (`'body'`), a query string or CLI flags
 * (`'text'`, where numbers arrive as text). Unknown keys, wrong types, ranges and cross-field rules all
 * come back as issues naming the field, the value and the allowed range.
 */
export function parsePressureInput(raw: unknown, source: 'body' | 'text'): Result<ResolvedPressureInput> {
  // Absent means all defaults; a body of `null` is not absent and is refused like any non-object.
  const input = raw === undefined ? {} : raw;
  const checked = (source === 'body' ? pressureInputValidator : pressureQueryValidator).parse(input);
  return checked.ok ? resolveCheckedPressureInput(checked.value) : checked;
}
