import type { z } from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';

/**
 * Parses with a schema and returns the value, or throws a {@link BarometerValidationError} whose issues name
 * each bad field: the library's entry points take typed input, so invalid input is the caller's bug.
 */
export function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown, context: string): T {
  const parsed = parseWith(schema, input);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, context);
  return parsed.value;
}
