import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { DATA_DIR_HELP } from '../proxy-flags.js';
import type { WatchFlags } from '../watch.js';

/** `barometer watch [DIR…]`: agent logs as live sessions, in the embedded service's dashboard or a running one. */
export function registerWatchCommand(program: Command, io: CliIo): void {
  program
    .command('watch')
    .description(
      'Follow Claude Code, Codex and Gemini CLI logs as they are written: each log a live session, shown in the dashboard of an embedded service (or sent to a running one with --server)',
    )
    .argument(
      '[dirs...]',
      'folders (or log files) to follow (default: ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp)',
    )
    .option('--server <url>', 'send the sessions to this running barometer service instead of starting one')
    .option('--host <host>', 'address of the embedded service (default 127.0.0.1)')
    .option('--port <port>', 'port of the embedded service, 0 for any free port (default 8797)')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option(
      '--since <duration>',
      'follow logs written to within this long; older ones once they change',
      '2h',
    )
    .option('--poll <duration>', 'check followed logs this often when no change notice arrives', '1s')
    .option('--settle <duration>', "take a log's last call as final after this much quiet", '1.5s')
    .addHelpText(
      'after',
      `
Claude Code's folder follows $CLAUDE_CONFIG_DIR, Codex's $CODEX_HOME. Subagents' own transcripts are not followed
(their context is not the agent's). Stop with Ctrl-C: the last calls are sent before it exits.

Examples:
  npx barometer watch                                  # your agents, live, at http://127.0.0.1:8797/
  barometer watch ~/.codex/sessions --server http://127.0.0.1:8797`,
    )
    .action(async (dirs: string[], flags: WatchFlags) => {
      const { runWatch } = await import('../watch.js');
      await runWatch(io, dirs, flags);
    });
}
