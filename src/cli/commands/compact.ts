import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { compactOpenAIMessages } from '../../compaction/compact-messages.js';
import { ArchiveStore } from '../../store/archive.js';
import { type CliIo, UsageError } from '../io.js';

/** Default folder for archives written from the CLI, relative to the working directory. */
export const DEFAULT_ARCHIVE_DIR = '.headroom/archives';

/** A session id from a file name: `runs/agent 7.json` → `agent-7`. */
function sessionFromFile(file: string): string {
  const stem = basename(file)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '');
  return stem.slice(0, 128) || 'default';
}

/** `headroom compact <history.json>`: recap and flush an OpenAI chat history, archiving what it replaces. */
export function registerCompactCommand(program: Command, io: CliIo): void {
  program
    .command('compact')
    .description(
      'Compact an OpenAI chat history: keep system messages and recent turns, recap the rest, archive it',
    )
    .argument(
      '<history.json>',
      'a JSON array of OpenAI chat messages, or { "messages": [...], "tasks": [{ "id", "summary" }] } to evict completed tasks',
    )
    .option('--archive-dir <dir>', 'where replaced messages are archived', DEFAULT_ARCHIVE_DIR)
    .option('--session <id>', 'archive under this session id (default: the file name)')
    .option('--keep-turns <n>', 'recent turns kept verbatim', '2')
    .option('--output <file>', 'write the compacted messages to this file (JSON)')
    .option('--json', 'print { before, after, archives, messages }')
    .addHelpText(
      'after',
      `
Every replaced message is appended, exactly as given (JSON), to <archive-dir>/<session>/compaction-<n>.log
before the compacted history is written; <n> is reserved, so compactions of one session running at once never
share an archive. Item ids: <tool call id>:result for a tool message, message-<index in the file> otherwise.
Read it back with: headroom archive <session> compaction-<n> [--item <id>].
With "tasks" (completed tasks, each with a result summary of 15 characters or more), the tool outputs tagged
with those tasks ("task_id" on the tool message, or on the assistant message or its tool call) are archived to
<archive-dir>/<session>/<task>.log and replaced by "[Task <id> completed: output evicted to archive] <where>".
A compaction that would not make the history smaller is refused (exit 1) and nothing is written.

Example:
  headroom compact run-42.json --keep-turns 3 --output run-42.compacted.json`,
    )
    .action(
      async (
        file: string,
        flags: { archiveDir: string; session?: string; keepTurns: string; output?: string; json?: boolean },
      ) => {
        if (!/^\d+$/.test(flags.keepTurns)) {
          throw new UsageError(
            `--keep-turns must be a whole number ≥ 0; got ${JSON.stringify(flags.keepTurns)}`,
          );
        }
        let text: string;
        try {
          text = await readFile(file, 'utf8');
        } catch (error) {
          throw new UsageError(
            `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          );
        }
        let input: unknown;
        try {
          input = JSON.parse(text);
        } catch (error) {
          throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
        }
        // The output's folder is checked first: a run that cannot write its result must not archive anything.
        if (flags.output) {
          const folder = dirname(resolve(io.cwd, flags.output));
          try {
            await access(folder, constants.W_OK);
          } catch {
            throw new UsageError(`--output: cannot write to ${folder}`);
          }
        }
        const archiveRoot = resolve(io.cwd, flags.archiveDir);
        const result = await compactOpenAIMessages(input, {
          sessionId: flags.session ?? sessionFromFile(file),
          keepTurns: Number(flags.keepTurns),
          archive: new ArchiveStore({ root: archiveRoot }),
        });
        if (!result.ok) {
          throw new Error(
            `compaction refused: ${result.reason} (before ${result.before.tokens} tokens, after ${result.after.tokens}); nothing was written`,
          );
        }
        if (flags.output) {
          // Atomic: a reader never sees half a history.
          const target = resolve(io.cwd, flags.output);
          const temporary = `${target}.${randomUUID()}.tmp`;
          await writeFile(temporary, `${JSON.stringify(result.messages, null, 2)}\n`);
          await rename(temporary, target);
        }
        if (flags.json) {
          const { before, after, archives, messages } = result;
          io.stdout.write(`${JSON.stringify({ before, after, archives, messages }, null, 2)}\n`);
          return;
        }
        const saved = result.before.tokens - result.after.tokens;
        io.stdout.write(
          [
            `before: ${result.before.messages} messages, ${result.before.tokens} tokens (${result.counter})`,
            `after:  ${result.after.messages} messages, ${result.after.tokens} tokens (−${saved}, ${Math.round((saved / result.before.tokens) * 100)}%)`,
            ...result.evicted.map((task) => `evicted task ${task.task}: ${task.items} item(s)`),
            `archived to: ${result.archives.join(', ') || '(nothing replaced)'}`,
            flags.output
              ? `compacted history written to ${flags.output}`
              : 'add --output FILE to write the compacted history, or --json to print it',
            '',
          ].join('\n'),
        );
      },
    );
}
