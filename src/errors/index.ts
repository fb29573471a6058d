export { BarometerError, type BarometerErrorOptions } from './barometer-error.js';
export {
  ERROR_CATALOGUE,
  ERROR_CODES,
  type ErrorCatalogueEntry,
  type ErrorCode,
  EXIT_CODES,
  isErrorCode,
} from './error-catalogue.js';
export {
  type AllowedRange,
  BarometerValidationError,
  echoValue,
  formatIssue,
  issuesFromZod,
  parseWith,
  type Result,
  type ValidationIssue,
} from './validation.js';
export { zodIssueMessage } from './zod-issue-message.js';
