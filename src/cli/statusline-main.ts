import { baseProgram, configureSubcommands, runProgram } from './base-program.js';
import { registerStatuslineCommand } from './commands/statusline.js';
import { type CliIo, processIo } from './io.js';
import { runStatusline } from './statusline.js';

/**
 * The lean entry of `barometer statusline`: the root command with only this subcommand, so that a status line
 * refreshed after every message loads no server, no other command and no module it does not use. `main.ts`
 * routes `barometer statusline` here; the build bundles this file into one (see docs/decisions/004).
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const program = baseProgram(io);
  registerStatuslineCommand(program, io, runStatusline);
  return runProgram(configureSubcommands(program, io), argv, io);
}
