import type { z } from 'zod';
import { BarometerError } from './barometer-error.js';
import type { ErrorCode } from './error-catalogue.js';
import type { AllowedRange, ValidationIssue } from './validation-issue.js';
import { zodIssueMessage } from './zod-issue-message.js';

export type { AllowedRange, ValidationIssue } from './validation-issue.js';

/** A decision as data: either a value or the issues that prevented it. */
export type Result<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/**
 * Thrown by library entry points that take already-typed input when that input is still invalid; `issues` name
 * each field, its value and the allowed range. The code is BR_ERR_INVALID_PARAM unless a more precise one applies
 * (BR_ERR_SESSION_NOT_FOUND, BR_ERR_SESSION_EXISTS, BR_ERR_SESSION_LIMIT).
 */
export class BarometerValidationError extends BarometerError {
  /** What was invalid, in a few words ("input", "statusline input", "pool"). */
  readonly context: string;
  /** A request that works, for the HTTP answer (a route's example). */
  readonly example: string | undefined;

  constructor(
    issues: ValidationIssue[],
    context = 'input',
    code: ErrorCode = 'BR_ERR_INVALID_PARAM',
    example?: string,
  ) {
    super(code, `Invalid ${context}: ${issues.map(formatIssue).join('; ')}`, { issues });
    this.name = 'BarometerValidationError';
    this.context = context;
    this.example = example;
  }
}

/** Human text for one issue, used by the CLI and by error messages. */
export function formatIssue(issue: ValidationIssue): string {
  return issue.field ? `${issue.field}: ${issue.message}` : issue.message;
}

/** Longest string echoed back in an issue. */
const MAX_ECHOED_STRING = 200;

/**
 * What an issue echoes of the value given: primitives as they are (long strings cut), arrays and objects
 * described, never copied. A hostile body nested ten thousand deep must not be serialized back (that overflows
 * the stack) nor a megabyte echoed.
 */
export function echoValue(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length > MAX_ECHOED_STRING
      ? `${value.slice(0, MAX_ECHOED_STRING)}… (${value.length} characters)`
      : value;
  }
  if (Array.isArray(value)) return `(an array of ${value.length})`;
  if (value !== null && typeof value === 'object')
    return `(an object with ${Object.keys(value).length} keys)`;
  if (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol')
    return String(value);
  return value;
}

function pathToField(path: readonly PropertyKey[]): string {
  let field = '';
  for (const part of path) {
    if (typeof part === 'number') field += `[${part}]`;
    else field += field ? `.${String(part)}` : String(part);
  }
  return field;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

/**
 * Turns a zod error into issues that name the field, the value given and the allowed range.
 * Unknown keys become one issue per key, so that the key itself is the field. The messages are the ones the parse
 * produced: parse with `{ error: zodIssueMessage }` (as {@link parseWith} does) for barometer's wording.
 */
export function issuesFromZod(
  error: z.ZodError,
  input: unknown,
  allowedFor?: (field: string) => AllowedRange | undefined,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const zodIssue of error.issues) {
    if (zodIssue.code === 'unrecognized_keys') {
      for (const key of zodIssue.keys) {
        const path = [...zodIssue.path, key];
        issues.push({
          field: pathToField(path),
          value: echoValue(valueAt(input, path)),
          message: 'unknown parameter',
        });
      }
      continue;
    }
    const issue: ValidationIssue = {
      field: pathToField(zodIssue.path),
      value: echoValue(valueAt(input, zodIssue.path)),
      message: zodIssue.message,
    };
    const known = allowedFor?.(issue.field);
    if (known) {
      issue.allowed = known;
    } else if (zodIssue.code === 'too_small' && typeof zodIssue.minimum === 'number') {
      issue.allowed = { min: zodIssue.minimum };
    } else if (zodIssue.code === 'too_big' && typeof zodIssue.maximum === 'number') {
      issue.allowed = { max: zodIssue.maximum };
    } else if (zodIssue.code === 'invalid_value') {
      issue.allowed = { values: zodIssue.values.map(String) };
    }
    issues.push(issue);
  }
  return issues;
}

/**
 * Parses with a zod schema and returns a Result whose issues name fields, values and ranges, in barometer's words
 * (never zod's default sentences, which name neither the value nor what is allowed in terms a user knows).
 */
export function parseWith<T>(
  schema: z.ZodType<T>,
  input: unknown,
  allowedFor?: (field: string) => AllowedRange | undefined,
): Result<T> {
  // Without an error map zod takes its compiled path (about a sixth of the cost on the pressure body); the map only
  // words the issues, so it is passed again once the value is refused.
  const accepted = schema.safeParse(input);
  if (accepted.success) return { ok: true, value: accepted.data };
  const parsed = schema.safeParse(input, { error: zodIssueMessage });
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, issues: issuesFromZod(parsed.error, input, allowedFor) };
}
