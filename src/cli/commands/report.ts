import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ReportQuerySchema } from '../../contract/report.js';
import { defaultLogRoots } from '../../report/discover-logs.js';
import { makeReport } from '../../report/make-report.js';
import { receiptsInDatabase } from '../../report/proxy-receipts-of.js';
import { DATABASE_FILE } from '../../store/state-database.js';
import { LOG_FORMATS } from '../../usage/session-log.js';
import { configFor } from '../config-for.js';
import { dataFolderFor } from '../data-folder-for.js';
import { parseFlags } from '../flag-schema.js';
import { formatReportCsv, formatReportMarkdown, formatReportTable } from '../format-report.js';
import { type CliIo, UsageError } from '../io.js';

/** The progress bar shows once reading has taken this long (a report from the cache never shows one). */
const PROGRESS_AFTER_MS = 1000;
const BAR_WIDTH = 30;

interface ReportFlags {
  view?: string;
  since?: string;
  until?: string;
  project?: string;
  agent?: string;
  json?: boolean;
  csv?: boolean;
  markdown?: boolean;
  whatIf: boolean;
  cache: boolean;
  timeZone?: string;
  config?: string;
}

/** A progress bar on stderr, drawn only on a terminal and only once reading has taken a second. */
function progressBar(io: CliIo, now: () => number) {
  const started = now();
  let drawn = false;
  return {
    update({
      bytes,
      totalBytes,
      files,
      totalFiles,
    }: {
      bytes: number;
      totalBytes: number;
      files: number;
      totalFiles: number;
    }) {
      if (!io.stderr.isTTY || now() - started < PROGRESS_AFTER_MS) return;
      const share = totalBytes === 0 ? 1 : bytes / totalBytes;
      const filled = Math.round(share * BAR_WIDTH);
      io.stderr.write(
        `\rreport: [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${Math.round(share * 100)}% ${files}/${totalFiles} files`,
      );
      drawn = true;
    },
    done() {
      if (drawn) io.stderr.write('\r\u001b[2K');
    },
  };
}

/** `barometer report`: cost and pressure over every local agent log. */
export function registerReportCommand(program: Command, io: CliIo, now: () => number): void {
  program
    .command('report')
    .description(
      "What your agents cost, by day, session, project or model, from the logs on this machine (Claude Code, Codex, pi, Gemini CLI), with barometer's what-if beside each row",
    )
    .argument('[paths...]', "log files or folders to read instead of the agents' default places")
    .option(
      '--view <view>',
      'daily|session|project|model|blocks (default: session; blocks: 5-hour blocks as ccusage counts them)',
    )
    .option('--since <day>', 'first day included, YYYY-MM-DD')
    .option('--until <day>', 'last day included, YYYY-MM-DD')
    .option('--project <name>', 'only this project (as the report names it)')
    .option('--agent <agent>', `only this agent: ${LOG_FORMATS.join('|')}`)
    .option('--json', 'print the report as JSON (as GET /api/v1/report answers)')
    .option('--csv', 'print the report as CSV, every figure exact')
    .option('--markdown', 'print the report as a Markdown table')
    .option(
      '--no-what-if',
      "skip barometer's what-if (faster on a first run: it rebuilds each session's history)",
    )
    .option('--no-cache', 'read every file again (the cache is kept in <data dir>/barometer.db)')
    .option('--time-zone <zone>', "the time zone days are counted in (default: this machine's)")
    .option(
      '--config <path>',
      'barometer.config.json/.yaml with model prices and limits (default: the one in the working directory, if any)',
    )
    .addHelpText(
      'after',
      `
Looks in ~/.claude/projects and ~/.config/claude/projects (or $CLAUDE_CONFIG_DIR), $CODEX_HOME/sessions
(~/.codex/sessions), ~/.pi/agent/sessions and ~/.gemini/tmp/*/chats. The cache lives in the data folder
($BAROMETER_DATA_DIR, default your state folder: ~/.local/state/barometer on Linux); nothing is written where it runs.

Example:
  barometer report --since 2026-01-01
  barometer report --view daily --json | jq .total.costUsd
  barometer report --view model --markdown
  barometer report --view blocks --since 2026-02-23
  barometer report ~/backup/claude/projects --view project --csv > cost.csv`,
    )
    .action(async (paths: string[], flags: ReportFlags) => {
      const formats = [flags.json, flags.csv, flags.markdown].filter(Boolean).length;
      if (formats > 1) throw new UsageError('choose one of --json, --csv, --markdown');
      const query = parseFlags(ReportQuerySchema, {
        view: flags.view,
        since: flags.since,
        until: flags.until,
        project: flags.project,
        agent: flags.agent,
      });
      if (flags.timeZone !== undefined) {
        try {
          new Intl.DateTimeFormat('en-CA', { timeZone: flags.timeZone });
        } catch {
          throw new UsageError(
            `--time-zone must be an IANA time zone such as Europe/Paris or UTC; got "${flags.timeZone}"`,
          );
        }
      }
      const config = await configFor(io, flags.config);
      const home = io.env.HOME?.trim() || homedir();
      const bar = progressBar(io, now);
      const given = paths.map((path) => resolve(io.cwd, path));
      const folder = dataFolderFor(io, undefined);
      const result = await makeReport(
        { ...query, ...(flags.timeZone === undefined ? {} : { timeZone: flags.timeZone }) },
        {
          roots: defaultLogRoots(io.env, home),
          paths: given,
          cacheFile: flags.cache ? join(folder.path, DATABASE_FILE) : null,
          archiveDir: join(folder.path, 'archives'),
          whatIf: flags.whatIf,
          // The proxy's receipts of the sessions it forwarded, from the same data folder's database.
          receiptsOf: receiptsInDatabase(join(folder.path, DATABASE_FILE)),
          ...(config ? { config } : {}),
          onProgress: (progress) => bar.update(progress),
        },
      ).finally(() => bar.done());
      if (result.files.found === 0 && given.length > 0) {
        throw new UsageError(
          `no log files in ${paths.join(', ')}: give session logs or the folders that hold them`,
        );
      }
      io.stdout.write(
        flags.json
          ? `${JSON.stringify(result, null, 2)}\n`
          : flags.csv
            ? formatReportCsv(result)
            : flags.markdown
              ? formatReportMarkdown(result)
              : formatReportTable(result),
      );
    });
}
