export {
  ERROR_CATALOGUE,
  ERROR_CODES,
  type ErrorCatalogueEntry,
  type ErrorCode,
  EXIT_CODES,
  isErrorCode,
} from './error-catalogue.js';
export { HeadroomError, type HeadroomErrorOptions } from './headroom-error.js';
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
