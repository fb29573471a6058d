import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_MIN_GAIN_PERCENT } from '../../compaction/compact-history.js';
import { compactOpenAIMessages } from '../../compaction/compact-messages.js';
import { DEFAULT_KEEP_TOKENS } from '../../compaction/flush.js';
import { CompactRequestSchema } from '../../contract/compact.js';
import { BarometerError } from '../../errors/barometer-error.js';
import { ERROR_CATALOGUE } from '../../errors/error-catalogue.js';
import { ArchiveStore } from '../../store/archive.js';
import { archiveDirFor } from '../data-folder-for.js';
import { parseFlags } from '../flag-schema.js';
import { type CliIo, UsageError } from '../io.js';
import { summarizerFrom } from '../summarizer-flags.js';

/** Environment variables read by `barometer compact` (the same names as `barometer serve`'s). */
export const SUMMARIZER_ENVIRONMENT = {
  summarizerCommand: 'BAROMETER_SUMMARIZER_COMMAND',
  summarizerTimeout: 'BAROMETER_SUMMARIZER_TIMEOUT',
} as const;

/** A session id from a file name: `runs/agent 7.json` → `agent-7`. */
function sessionFromFile(file: string): string {
  const stem = basename(file)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '');
  return stem.slice(0, 128) || 'default';
}

/** `barometer compact <history.json>`: recap and flush an OpenAI chat history, archiving what it replaces. */
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
    .option(
      '--archive-dir <dir>',
      'where replaced messages are archived (default: <data folder>/archives; the data folder is $BAROMETER_DATA_DIR, else your state folder)',
    )
    .option('--session <id>', 'archive under this session id (default: the file name)')
    .option('--keep-turns <n>', 'recent turns kept verbatim', '2')
    .option(
      '--keep-tokens <n>',
      'the kept turns are shortened to at most this many tokens, at a step boundary (tool pairs intact)',
      String(DEFAULT_KEEP_TOKENS),
    )
    .option(
      '--min-gain <percent>',
      'refuse a compaction that saves less than this share of the tokens',
      String(DEFAULT_MIN_GAIN_PERCENT),
    )
    .option(
      '--summarizer-command <cmd>',
      `a command that writes the recap: the replaced items as JSON ({ "items": [...] }) on stdin, the summary on stdout; on failure the deterministic recap is used, with a warning (env ${SUMMARIZER_ENVIRONMENT.summarizerCommand})`,
    )
    .option(
      '--summarizer-timeout <duration>',
      `how long the summarizer command may run (env ${SUMMARIZER_ENVIRONMENT.summarizerTimeout}; default 60s)`,
    )
    .option('--output <file>', 'write the compacted messages to this file (JSON)')
    .option('--json', 'print { before, after, archives, messages }')
    .addHelpText(
      'after',
      `
Every replaced message is appended, exactly as given (JSON), to <archive-dir>/<session>/compaction-<n>.log
before the compacted history is written; <n> is reserved, so compactions of one session running at once never
share an archive. Item ids: <tool call id>:result for a tool message, message-<index in the file> otherwise.
Read it back with: barometer archive <session> compaction-<n> [--item <id>].
With "tasks" (completed tasks, each with a result summary of 15 characters or more), the tool outputs tagged
with those tasks ("task_id" on the tool message, or on the assistant message or its tool call) are archived to
<archive-dir>/<session>/<task>.log and replaced by "[Task <id> completed: output evicted to archive] <where>".
The kept turns are cut to --keep-tokens at a step boundary (a call and its result stay together), so a turn of
one request and hundreds of tool calls still compacts; the recap lists every replaced request with its archive
item, the plan, decisions, files touched and the last conclusion. A compaction that saves less than --min-gain
percent of the tokens is refused (exit ${ERROR_CATALOGUE.BR_ERR_COMPACTION_REFUSED.exit}) and nothing is written.

Example:
  barometer compact run-42.json --keep-turns 3 --output run-42.compacted.json`,
    )
    .action((file: string, flags: CompactFlags) => compactAction(file, flags, io));
}

/** The flags of `barometer compact`, as commander parses them. */
interface CompactFlags {
  archiveDir?: string;
  session?: string;
  keepTurns: string;
  keepTokens: string;
  minGain: string;
  summarizerCommand?: string;
  summarizerTimeout?: string;
  output?: string;
  json?: boolean;
}

/** The history file's JSON, or a usage error naming the file that cannot be read or is not JSON. */
async function readHistory(file: string, io: CliIo): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

/** `barometer compact`'s action: reads the history, compacts it, writes the result and prints what it did. */
async function compactAction(file: string, flags: CompactFlags, io: CliIo): Promise<void> {
  // The flags of POST /api/v1/compact's fields, checked by its schema.
  const checked = parseFlags(
    CompactRequestSchema.pick({
      sessionId: true,
      keepTurns: true,
      keepTokens: true,
      minGainPercent: true,
    }),
    {
      sessionId: flags.session,
      keepTurns: flags.keepTurns,
      keepTokens: flags.keepTokens,
      minGainPercent: flags.minGain,
    },
    {
      numbers: ['keepTurns', 'keepTokens', 'minGainPercent'],
      names: { sessionId: '--session', minGainPercent: '--min-gain' },
    },
  );
  const summarizer = summarizerFrom(flags, io, SUMMARIZER_ENVIRONMENT);
  const input = await readHistory(file, io);
  // The output's folder is checked first: a run that cannot write its result must not archive anything.
  if (flags.output) {
    const folder = dirname(resolve(io.cwd, flags.output));
    try {
      await access(folder, constants.W_OK);
    } catch {
      throw new UsageError(`--output: cannot write to ${folder}`);
    }
  }
  const archiveRoot = flags.archiveDir === undefined ? archiveDirFor(io) : resolve(io.cwd, flags.archiveDir);
  const result = await compactOpenAIMessages(input, {
    sessionId: checked.sessionId ?? sessionFromFile(file),
    keepTurns: checked.keepTurns ?? 2,
    keepTokens: checked.keepTokens ?? DEFAULT_KEEP_TOKENS,
    minGainPercent: checked.minGainPercent ?? DEFAULT_MIN_GAIN_PERCENT,
    archive: new ArchiveStore({ root: archiveRoot }),
    ...(summarizer ? { summarizer, summarizerFallback: true } : {}),
  });
  if (result.ok) for (const warning of result.warnings) io.stderr.write(`warning: ${warning}\n`);
  if (!result.ok) {
    throw new BarometerError(
      result.code,
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
    const { before, after, archives, messages, warnings } = result;
    io.stdout.write(`${JSON.stringify({ before, after, archives, messages, warnings }, null, 2)}\n`);
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
}
