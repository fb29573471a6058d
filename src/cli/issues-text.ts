import type { ValidationIssue } from '../errors/validation.js';
import { kebabCase } from './kebab.js';

/** A value as the user typed it: JSON, except numbers JSON cannot hold (NaN reads as NaN, not null). */
function shown(value: unknown): string {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
}

/**
 * The API's field-naming message, with the flag that sets the field: `true` for the field's kebab-case flag,
 * `false` for none (a file's or stdin's field), or a function giving the flag or argument of a field.
 */
export function issuesText(
  issues: ValidationIssue[],
  flags: boolean | ((field: string) => string | undefined) = true,
): string {
  return issues
    .map((issue) => {
      const flag =
        typeof flags === 'function'
          ? issue.field && flags(issue.field)
          : flags && issue.field
            ? `--${kebabCase(issue.field)}`
            : undefined;
      const value = issue.value === undefined ? '' : `; got ${shown(issue.value)}`;
      return `  ${issue.field || '(input)'}${flag ? ` (${flag})` : ''}: ${issue.message}${issue.message.includes('got') ? '' : value}`;
    })
    .join('\n');
}
