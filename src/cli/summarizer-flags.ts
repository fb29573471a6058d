import type { Summarizer } from '../compaction/compact-history.js';
import { createCommandSummarizer } from '../integrations/command-summarizer.js';
import { durationSeconds } from './duration.js';
import { type CliIo, UsageError } from './io.js';

/**
 * The summarizer that `--summarizer-command` (or its environment variable) names, with `--summarizer-timeout`,
 * or undefined when none is given.
 * @throws UsageError for a timeout that is not a duration
 */
export function summarizerFrom(
  flags: { summarizerCommand?: string | undefined; summarizerTimeout?: string | undefined },
  io: CliIo,
  environment: { summarizerCommand: string; summarizerTimeout: string },
): Summarizer | undefined {
  const command = flags.summarizerCommand ?? io.env[environment.summarizerCommand];
  if (command === undefined || command.trim() === '') return undefined;
  const timeoutText = flags.summarizerTimeout ?? io.env[environment.summarizerTimeout];
  let timeoutMs: number | undefined;
  if (timeoutText !== undefined && timeoutText !== '') {
    const seconds = durationSeconds(timeoutText);
    if (seconds === undefined || seconds <= 0) {
      const source =
        flags.summarizerTimeout !== undefined ? '--summarizer-timeout' : environment.summarizerTimeout;
      throw new UsageError(
        `${source} must be a duration such as 60s, 2m or a number of seconds; got ${JSON.stringify(timeoutText)}`,
      );
    }
    timeoutMs = Math.round(seconds * 1000);
  }
  return createCommandSummarizer({ command, cwd: io.cwd, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}
