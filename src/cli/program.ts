import type { Command } from 'commander';
import { baseProgram, configureSubcommands, runProgram } from './base-program.js';
import { registerArchiveCommand } from './commands/archive.js';
import { registerCompactCommand } from './commands/compact.js';
import { registerHookCommand } from './commands/hook.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerPoolCommand } from './commands/pool.js';
import { registerPressureCommand } from './commands/pressure.js';
import { registerReplayCommand } from './commands/replay.js';
import { registerServeCommand } from './commands/serve.js';
import { registerStatuslineCommand } from './commands/statusline.js';
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
  registerReplayCommand(program, io);
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
  return configureSubcommands(program, io);
}

/**
 * Runs the CLI and returns the exit code: 0 ok; a BarometerError exits with its code's exit code from the error
 * catalogue (2 bad input, 3 not found, 4 damaged data, 5 refused, 6 unavailable); anything else is a fault, 1.
 */
export async function run(argv: string[], dependencies: CliDependencies = {}): Promise<number> {
  const io = dependencies.io ?? processIo();
  return runProgram(buildProgram({ ...dependencies, io }), argv, io);
}
