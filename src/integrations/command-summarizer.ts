import { spawn } from 'node:child_process';
import type { Summarizer } from '../compaction/compact-history.js';
import type { HistoryItem } from '../compaction/history-item.js';

/** How long a summarizer command may run before it is stopped, by default. */
export const DEFAULT_SUMMARIZER_TIMEOUT_MS = 60_000;
/** The most a summary may hold; a longer answer is treated as a failure, not cut. */
const MAX_SUMMARY_BYTES = 1024 * 1024;

export interface CommandSummarizerOptions {
  /** A shell command line (`sh -c` on POSIX): it reads the history JSON on stdin and writes the summary on stdout. */
  command: string;
  /** @default 60,000 */
  timeoutMs?: number;
  /** Working directory of the command. @default the process's */
  cwd?: string;
}

/**
 * A summarizer that runs a command of the user's: an LLM CLI, a script calling a model, anything. The command
 * gets `{ "items": [...] }` (the history items the compaction replaces, as JSON) on stdin and answers the summary
 * text on stdout. A non-zero exit, a timeout, a summary that is empty or over 1 MiB is a failure, reported with
 * the command's stderr (its last 500 characters); callers fall back to the deterministic recap.
 */
export function createCommandSummarizer(options: CommandSummarizerOptions): Summarizer {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SUMMARIZER_TIMEOUT_MS;
  return {
    summarize: (items: readonly HistoryItem[]) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(options.command, {
          shell: true,
          cwd: options.cwd,
          stdio: ['pipe', 'pipe', 'pipe'],
          // Its own process group, so that a timeout stops the shell's children too.
          detached: process.platform !== 'win32',
        });
        const out: Buffer[] = [];
        let outBytes = 0;
        let err = '';
        let settled = false;
        const finish = (error: Error | undefined, summary?: string) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (error) reject(error);
          else resolve(summary as string);
        };
        const stop = () => {
          try {
            if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
            else child.kill('SIGKILL');
          } catch {
            // Already gone.
          }
        };
        const timer = setTimeout(() => {
          stop();
          finish(new Error(`summarizer command timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        child.stdout.on('data', (chunk: Buffer) => {
          outBytes += chunk.length;
          if (outBytes > MAX_SUMMARY_BYTES) {
            stop();
            finish(new Error(`summarizer command wrote more than ${MAX_SUMMARY_BYTES} bytes`));
            return;
          }
          out.push(chunk);
        });
        child.stderr.on('data', (chunk: Buffer) => {
          err = (err + chunk.toString('utf8')).slice(-500);
        });
        child.on('error', (error) =>
          finish(new Error(`summarizer command could not start: ${error.message}`)),
        );
        child.on('close', (code, signal) => {
          if (code !== 0) {
            const why = signal ? `was stopped by ${signal}` : `exited with ${code}`;
            finish(new Error(`summarizer command ${why}${err.trim() ? `: ${err.trim()}` : ''}`));
            return;
          }
          const summary = Buffer.concat(out).toString('utf8').trim();
          if (summary === '') finish(new Error('summarizer command wrote no summary'));
          else finish(undefined, summary);
        });
        // A command that does not read its input closes stdin early: that is not a failure by itself.
        child.stdin.on('error', () => {});
        child.stdin.end(JSON.stringify({ items }));
      }),
  };
}
