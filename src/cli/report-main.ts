import { baseProgram, configureSubcommands, runProgram } from './base-program.js';
import { registerReportCommand } from './commands/report.js';
import { type CliIo, processIo } from './io.js';

/**
 * The lean entry of `barometer report`: the root command with only this subcommand, so that a report answered
 * from its cache does not spend its second loading the service, the MCP server and the other commands. `main.ts`
 * routes `barometer report` here.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const program = baseProgram(io);
  registerReportCommand(program, io, Date.now);
  return runProgram(configureSubcommands(program, io), argv, io);
}
