export { ERROR_CODES, type ErrorCode } from './codes.js';
export {
  type AllowedRange,
  echoValue,
  formatIssue,
  HeadroomValidationError,
  issuesFromZod,
  parseWith,
  type Result,
  type ValidationIssue,
} from './validation.js';
