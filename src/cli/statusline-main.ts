// First: it configures zod before any schema is built.
import './one-shot-zod.js';
import { exitCodeOf } from './exit-code.js';
import { type CliIo, EXIT_OK, processIo } from './io.js';
import { runStatusline } from './statusline.js';

/**
 * The lean entry of `barometer statusline`: the root command with only this subcommand, so that a status line
 * refreshed after every message loads no server, no other command and no module it does not use. `main.ts`
 * routes `barometer statusline` here; the build bundles this file into one (see docs/decisions/007).
 *
 * What Claude Code runs, `barometer statusline` and nothing else, needs no flag parser: it runs the status line at
 * once, its errors mapped to exit codes as every command's are (`exitCodeOf`). Anything more (`--help`,
 * `--config`, a wrong flag) goes through commander, as any other command (docs/decisions/080).
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  if (argv.length === 1 && argv[0] === 'statusline') {
    try {
      await runStatusline(io, {});
      return EXIT_OK;
    } catch (error) {
      return exitCodeOf(error, io);
    }
  }
  const [{ baseProgram, configureSubcommands, runProgram }, { registerStatuslineCommand }] =
    await Promise.all([import('./base-program.js'), import('./commands/statusline.js')]);
  const program = baseProgram(io);
  registerStatuslineCommand(program, io, runStatusline);
  return runProgram(configureSubcommands(program, io), argv, io);
}
