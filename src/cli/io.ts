import { BarometerError } from '../errors/barometer-error.js';
import { ERROR_CATALOGUE, EXIT_CODES } from '../errors/error-catalogue.js';

/** Where a command reads and writes; the real process by default, buffers in tests. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * Exit codes: 0 done; otherwise the catalogue's code of the failure (docs/errors.md): 1 a fault, 2 bad input,
 * 3 not found, 4 damaged data, 5 refused, 6 unavailable (retry later).
 */
export const EXIT_OK = EXIT_CODES.ok;
export const EXIT_FAILURE = ERROR_CATALOGUE.BR_ERR_INTERNAL.exit;
export const EXIT_USAGE = ERROR_CATALOGUE.BR_ERR_INVALID_PARAM.exit;

/** A bad flag, argument or input file: the program prints its message on stderr and exits 2. */
export class UsageError extends BarometerError {
  declare readonly code: 'BR_ERR_INVALID_PARAM';
  constructor(message: string) {
    super('BR_ERR_INVALID_PARAM', message);
    this.name = 'UsageError';
  }
}
