import type { ValidationIssue } from '../errors/validation.js';
import { kebabCase } from './kebab.js';

/** The API's field-naming message, with the flag that sets the field. */
export function issuesText(issues: ValidationIssue[], flagged = true): string {
  return issues
    .map((issue) => {
      const flag = flagged && issue.field ? ` (--${kebabCase(issue.field)})` : '';
      const value = issue.value === undefined ? '' : `; got ${JSON.stringify(issue.value)}`;
      return `  ${issue.field || '(input)'}${flag}: ${issue.message}${issue.message.includes('got') ? '' : value}`;
    })
    .join('\n');
}
