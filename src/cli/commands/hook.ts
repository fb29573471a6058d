import type { Command } from 'commander';
import type { CliIo } from '../io.js';

/** What `barometer hook` runs (`runHook` of `../hook.ts`). */
export type HookAction = (
  io: CliIo,
  flags: { server?: string; timeout: string; windowReminder?: string },
) => Promise<void>;

/**
 * `barometer hook`: the hook command of Claude Code, Codex and Gemini CLI. The work is passed in: the program imports
 * it when the command runs (so `barometer --help` loads none of it), the lean entry (`hook-main.ts`) imports it
 * directly.
 */
export function registerHookCommand(program: Command, io: CliIo, action: HookAction): void {
  program
    .command('hook')
    .description(
      'Agent hook (Claude Code, Codex, Gemini CLI): reads the event on stdin and tells the live session of the running service; on a submitted prompt, prints the context-health reminder as additional context',
    )
    .option('--server <url>', 'the barometer service (default: $BAROMETER_URL, else http://127.0.0.1:8797)')
    .option('--timeout <ms>', 'give up on the service after this many milliseconds per request', '1500')
    .option(
      '--window-reminder <minutes>',
      'on a submitted prompt, remind the agent when a subscription window runs out within this many minutes (0: never; default 30, or $BAROMETER_WINDOW_REMINDER_MINUTES)',
    )
    .addHelpText(
      'after',
      `
The service: --server, else $BAROMETER_URL, else http://127.0.0.1:8797 (start it with barometer serve, or watch).
It never stops the agent. When no service answers there (or it answers with an error), the hook prints nothing on
stdout, writes one line on stderr (the URL, why, and how to start one; the event is not recorded) and exits 0.
A malformed event or a bad flag exits 1 (a non-blocking error for all three agents), never 2 (which blocks a prompt
or a tool call).

Set it in ~/.claude/settings.json (and the same command for Codex's hooks.json, Gemini CLI's settings.json):
  { "hooks": { "UserPromptSubmit": [ { "hooks": [ { "type": "command", "command": "npx barometer hook" } ] } ] } }
Try it:
  barometer hook < examples/hooks/claude-code-user-prompt-submit.json`,
    )
    .action((flags: { server?: string; timeout: string; windowReminder?: string }) => action(io, flags));
}
