import { BarometerError } from '../errors/barometer-error.js';
import { BarometerValidationError } from '../errors/validation.js';
import { type CliIo, EXIT_FAILURE } from './io.js';
import { issuesText } from './issues-text.js';

/**
 * Writes what a command threw to stderr and gives its exit code: a BarometerError exits with its code's exit code
 * from the error catalogue (2 bad input, 3 not found, 4 damaged data, 5 refused, 6 unavailable); anything else is a
 * fault, 1. No flag parser here: the status line's plain run maps its errors with this alone.
 */
export function exitCodeOf(error: unknown, io: CliIo): number {
  if (error instanceof BarometerValidationError) {
    io.stderr.write(`barometer: invalid ${error.context}:\n${issuesText(error.issues, false)}\n`);
    return error.exitCode;
  }
  // Every error barometer throws on purpose (UsageError included) exits with its code's exit code.
  if (error instanceof BarometerError) {
    io.stderr.write(`barometer: ${error.message}\n`);
    return error.exitCode;
  }
  // The CLI runs on the user's own machine: the fault's message is theirs to read.
  io.stderr.write(`barometer: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_FAILURE;
}
