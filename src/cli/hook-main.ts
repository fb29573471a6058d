import { baseProgram, configureSubcommands, runProgram } from './base-program.js';
import { registerHookCommand } from './commands/hook.js';
import { runHook } from './hook.js';
import { type CliIo, EXIT_FAILURE, EXIT_USAGE, processIo } from './io.js';

/**
 * The lean entry of `barometer hook`, run by an agent on every hooked event: the root command with only this
 * subcommand, so that it loads no server and no other command. A usage error exits 1, not 2: an agent reads exit
 * code 2 from a hook as "block this prompt or tool call", which a monitor must never do.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const program = baseProgram(io);
  registerHookCommand(program, io, runHook);
  const code = await runProgram(configureSubcommands(program, io), argv, io);
  return code === EXIT_USAGE ? EXIT_FAILURE : code;
}
