import { Command, CommanderError } from 'commander';
import { BAROMETER_VERSION } from '../version.js';
import { exitCodeOf } from './exit-code.js';
import { type CliIo, EXIT_OK, EXIT_USAGE } from './io.js';

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
 * Parses `argv` with a program and maps what it throws to an exit code: 0 ok, 2 for a usage error commander
 * reported, else `exitCodeOf` (the error catalogue's exit code of a BarometerError; anything else is a fault, 1).
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
    return exitCodeOf(error, io);
  }
}
