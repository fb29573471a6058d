import { Command, CommanderError } from 'commander';
import { HeadroomError } from '../errors/headroom-error.js';
import { HeadroomValidationError } from '../errors/validation.js';
import { HEADROOM_VERSION } from '../version.js';
import { registerArchiveCommand } from './commands/archive.js';
import { registerCompactCommand } from './commands/compact.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerPressureCommand } from './commands/pressure.js';
import { registerReplayCommand } from './commands/replay.js';
import { registerServeCommand } from './commands/serve.js';
import { type CliIo, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, processIo } from './io.js';
import { issuesText } from './issues-text.js';

export interface CliDependencies {
  io?: CliIo;
  now?: () => number;
}

/** Builds the `headroom` command tree; `run` below parses and maps errors to exit codes. */
export function buildProgram(dependencies: CliDependencies = {}): Command {
  const io = dependencies.io ?? processIo();
  const now = dependencies.now ?? Date.now;
  const program = new Command('headroom')
    .description(
      'Keep LLM agent sessions alive under context, KV-cache, token-budget and rate-quota pressure.',
    )
    .version(HEADROOM_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .exitOverride();
  registerPressureCommand(program, io, now);
  registerServeCommand(program, io);
  registerReplayCommand(program, io);
  registerCompactCommand(program, io);
  registerArchiveCommand(program, io);
  registerMcpCommand(program, io);
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
 * Runs the CLI and returns the exit code: 0 ok; a HeadroomError exits with its code's exit code from the error
 * catalogue (2 bad input, 3 not found, 4 damaged data, 5 refused, 6 unavailable); anything else is a fault, 1.
 */
export async function run(argv: string[], dependencies: CliDependencies = {}): Promise<number> {
  const io = dependencies.io ?? processIo();
  const program = buildProgram({ ...dependencies, io });
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
    if (error instanceof HeadroomValidationError) {
      io.stderr.write(`headroom: invalid input:\n${issuesText(error.issues, false)}\n`);
      return error.exitCode;
    }
    if (error instanceof HeadroomError) {
      io.stderr.write(`headroom: ${error.message}\n`);
      return error.exitCode;
    }
    // The CLI runs on the user's own machine: the fault's message is theirs to read.
    io.stderr.write(`headroom: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }
}
