import { ERROR_CATALOGUE, type ErrorCatalogueEntry, type ErrorCode } from './error-catalogue.js';
import type { ValidationIssue } from './validation-issue.js';

/** What a {@link BarometerError} carries besides its code and message. */
export interface BarometerErrorOptions {
  /** The fields at fault, each with its value and the allowed range. */
  issues?: ValidationIssue[];
  /**
   * Structured fields a client may act on (a limit, the figures of a refusal). The HTTP service sends them in
   * the answer's body next to `error` and `code`: put nothing there that a client must not see.
   */
  details?: Readonly<Record<string, unknown>>;
  /** The error that caused this one, kept for the log. */
  cause?: unknown;
}

/**
 * The base of every error barometer throws on purpose: a stable code from the error catalogue, and with it the
 * HTTP status and CLI exit code that the surfaces answer with. Anything thrown that is not a BarometerError is a
 * fault (BR_ERR_INTERNAL).
 *
 * @example
 * try { await archive.readArchive('s1', 't9'); }
 * catch (error) { if (error instanceof BarometerError && error.code === 'BR_ERR_ARCHIVE_NOT_FOUND') … }
 */
export class BarometerError extends Error {
  readonly code: ErrorCode;
  /** The HTTP status of the code, from the catalogue. */
  readonly status: number;
  /** The CLI exit code of the code, from the catalogue. */
  readonly exitCode: ErrorCatalogueEntry['exit'];
  /** The fields at fault; empty when the error is not about one field. */
  readonly issues: ValidationIssue[];
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options: BarometerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BarometerError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.exitCode = ERROR_CATALOGUE[code].exit;
    this.issues = options.issues ?? [];
    this.details = options.details;
  }
}
