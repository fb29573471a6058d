import type { Command } from 'commander';
import { EXIT_CODES } from '../errors/error-catalogue.js';
import { baseProgram, configureSubcommands, runProgram } from './base-program.js';
import { registerArchiveCommand } from './commands/archive.js';
import { registerCompactCommand } from './commands/compact.js';
import { registerHookCommand } from './commands/hook.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerModelsCommand } from './commands/models.js';
import { registerPoolCommand } from './commands/pool.js';
import { registerPressureCommand } from './commands/pressure.js';
import { registerProxyCommands } from './commands/proxy.js';
import { registerReplayCommand } from './commands/replay.js';
import { registerReportCommand } from './commands/report.js';
import { registerServeCommand } from './commands/serve.js';
import { registerStatuslineCommand } from './commands/statusline.js';
import { registerStopCommand } from './commands/stop.js';
import { registerWatchCommand } from './commands/watch.js';
import { type CliIo, processIo } from './io.js';

export interface CliDependencies {
  io?: CliIo;
  now?: () => number;
}

/** Builds the `barometer` command tree; `run` below parses and maps errors to exit codes. */
export function buildProgram(dependencies: CliDependencies = {}): Command {
  const io = dependencies.io ?? processIo();
  const now = dependencies.now ?? Date.now;
  const program = baseProgram(io);
  registerPressureCommand(program, io, now);
  registerServeCommand(program, io);
  registerProxyCommands(program, io);
  registerStopCommand(program, io);
  registerReplayCommand(program, io);
  registerReportCommand(program, io, now);
  registerModelsCommand(program, io);
  registerCompactCommand(program, io);
  registerArchiveCommand(program, io);
  registerStatuslineCommand(program, io, async (commandIo, flags) =>
    (await import('./statusline.js')).runStatusline(commandIo, flags),
  );
  registerHookCommand(program, io, async (commandIo, flags) =>
    (await import('./hook.js')).runHook(commandIo, flags),
  );
  registerWatchCommand(program, io);
  registerMcpCommand(program, io);
  registerPoolCommand(program, io);
  program.addHelpText('after', EXIT_CODES_HELP);
  return configureSubcommands(program, io);
}

/** What each exit code means, in the root's help: the catalogue's codes (docs/errors.md), one word each. */
const EXIT_CODE_WORDS: Readonly<Record<keyof typeof EXIT_CODES, string>> = {
  ok: 'done',
  internal: 'an unexpected fault',
  invalidInput: 'bad input (a flag, an argument, a file)',
  notFound: 'not found',
  integrity: 'damaged data',
  refused: 'refused by the current state',
  unavailable: 'not now: a limit, a taken port, no service at the URL (retry later)',
};

const EXIT_CODES_HELP = `
Exit codes (docs/errors.md):
${Object.entries(EXIT_CODE_WORDS)
  .map(([name, words]) => `  ${EXIT_CODES[name as keyof typeof EXIT_CODES]}  ${words}`)
  .join('\n')}
barometer hook exits only 0 or 1: an agent reads 2 from a hook as "block".`;

/**
 * Runs the CLI and returns the exit code: 0 ok; a BarometerError exits with its code's exit code from the error
 * catalogue (2 bad input, 3 not found, 4 damaged data, 5 refused, 6 unavailable); anything else is a fault, 1.
 */
export async function run(argv: string[], dependencies: CliDependencies = {}): Promise<number> {
  const io = dependencies.io ?? processIo();
  return runProgram(buildProgram({ ...dependencies, io }), argv, io);
}
