import { Command, CommanderError } from 'commander';
import { BarometerError } from '../errors/barometer-error.js';
import { BarometerValidationError } from '../errors/validation.js';
import { BAROMETER_VERSION } from '../version.js';
import { type CliIo, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './io.js';
import { issuesText } from './issues-text.js';

/** The `barometer` root command, writing through `io` and throwing instead of exiting. */
export function baseProgram(io: CliIo): Command {
  return new Command('barometer')
    .description(
      'Keep LLM agent sessions alive under context, KV-cache, token-budget and rate-quota pressure.',
    )
    .version(BAROMETER_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .exitOverride();
}

/** Gives every registered subcommand the root's output, error and exit behaviour. */
export function configureSubcommands(program: Command, io: CliIo): Command {
  for (const command of program.commands) {
    command.exitOverride();
    command.configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
    command.showHelpAfterError('(run with --help for usage)');
  }
  return program;
}

/**
 * Parses `argv` with a program and maps what it throws to an exit code: 0 ok; a BarometerError exits with its
 * code's exit code from the error catalogue (2 bad input, 3 not found, 4 damaged data, 5 refused, 6 unavailable);
 * anything else is a fault, 1.
 */
export async function runProgram(program: Command, argv: string[], io: CliIo): Promise<number> {
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
      ) {
        return EXIT_OK;
      }
      return EXIT_USAGE;
    }
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
}
