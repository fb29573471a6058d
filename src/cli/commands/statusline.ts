import type { Command } from 'commander';
import type { CliIo } from '../io.js';

/** What `barometer statusline` runs (`runStatusline` of `../statusline.ts`). */
export type StatuslineAction = (io: CliIo, flags: { config?: string }) => Promise<void>;

/**
 * `barometer statusline`: Claude Code's status line command. The work is passed in: the program imports it when the
 * command runs (so `barometer --help` loads none of it), the lean entry (`statusline-main.ts`) imports it directly.
 */
export function registerStatuslineCommand(program: Command, io: CliIo, action: StatuslineAction): void {
  program
    .command('statusline')
    .description(
      "Claude Code status line: reads its JSON on stdin, prints a health dot, the share of the agent's window, the prompt tokens, the verdict and the cost",
    )
    .option(
      '--config <path>',
      'barometer.config.json/.yaml overriding model limits (default: the one in the working directory, if any)',
    )
    .addHelpText(
      'after',
      `
Set it in ~/.claude/settings.json:
  { "statusLine": { "type": "command", "command": "npx barometer statusline" } }
Try it:
  barometer statusline < examples/statusline-input.json`,
    )
    .action((flags: { config?: string }) => action(io, flags));
}
