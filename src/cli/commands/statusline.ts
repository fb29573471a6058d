import type { Command } from 'commander';
import type { CliIo } from '../io.js';

/** What `headroom statusline` runs (`runStatusline` of `../statusline.ts`). */
export type StatuslineAction = (io: CliIo, flags: { config?: string }) => Promise<void>;

/**
 * `headroom statusline`: Claude Code's status line command. The work is passed in: the program imports it when the
 * command runs (so `headroom --help` loads none of it), the lean entry (`statusline-main.ts`) imports it directly.
 */
export function registerStatuslineCommand(program: Command, io: CliIo, action: StatuslineAction): void {
  program
    .command('statusline')
    .description(
      "Claude Code status line: reads its JSON on stdin, prints a health dot, the share of the agent's window, the prompt tokens, the verdict and the cost",
    )
    .option(
      '--config <path>',
      'headroom.config.json/.yaml overriding model limits (default: the one in the working directory, if any)',
    )
    .addHelpText(
      'after',
      `
Set it in ~/.claude/settings.json:
  { "statusLine": { "type": "command", "command": "npx headroom statusline" } }
Try it:
  headroom statusline < examples/statusline-input.json`,
    )
    .action((flags: { config?: string }) => action(io, flags));
}
