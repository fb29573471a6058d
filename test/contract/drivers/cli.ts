import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { PressureReport, ReplayResult } from '../../../src/internal.js';
import { REPO_ROOT } from '../fixtures.js';
import type { Driver, Refusal } from './driver.js';

const SOURCE = join(REPO_ROOT, 'src');
const BUILT = join(REPO_ROOT, 'dist/cli/main.js');

/** The newest modification time of the files the CLI is built from (tests and test helpers are not). */
function newestSource(): number {
  let newest = 0;
  for (const entry of readdirSync(SOURCE, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.test.ts') || !/\.(ts|json)$/.test(entry.name)) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * How to start `barometer`: the built CLI when it is newer than every source file (`npm test` builds first), since
 * plain Node starts it in a third of the time; otherwise the source through tsx, so that the suite never runs a
 * stale build and needs none.
 */
function command(): string[] {
  if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= newestSource()) return [BUILT];
  return ['--import', createRequire(import.meta.url).resolve('tsx'), join(SOURCE, 'cli/main.ts')];
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** At most this many CLI processes at once: each is a whole Node.js start, and the machine may have 2 cores. */
const MAX_PROCESSES = Math.max(2, availableParallelism());

/**
 * The `barometer` command, run as a user's shell runs it: a child process per command (see `command` for which
 * build), stdout and stderr read whole, the exit code checked. It runs in an empty temporary
 * directory, so that no `barometer.config.*` of the developer's working directory changes what it answers (the
 * other drivers read no config file).
 *
 * The CLI has `pressure` (`--json` prints exactly the HTTP 200 body) and `replay` (`--json` prints exactly what
 * POST /api/v1/replay answers). It has no command for sessions (create, usage, view, loading a log or a sample
 * into a live session), for the hot-state check and prompt regressions (seed 002), or for the KV snapshot,
 * health thresholds, trigger decision and thinking budget on their own: `compact`, `archive` and `serve` are
 * its other commands, and none of them answers these.
 */
const NO_SESSION_COMMAND =
  'the CLI has no command for live sessions (serve runs the service that has them; compact and archive work on files)';
const NOT_ALONE =
  'no command answers this model on its own; the CLI shows it only inside a replay’s verdicts, which the replay fixtures check';
/** What the CLI has no command for, and why. */
const CLI_LACKS: Driver['lacks'] = {
  createSession: NO_SESSION_COMMAND,
  postUsage: NO_SESSION_COMMAND,
  view: NO_SESSION_COMMAND,
  loadSample: NO_SESSION_COMMAND,
  loadLog: NO_SESSION_COMMAND,
  checkHotState: 'no command checks a hot state (the library does, and POST /api/v1/hot-state/check)',
  promptRegressions: 'no command reports prompt regressions (the library’s prompt metrics)',
  kvSnapshot: NOT_ALONE,
  healthThresholds: NOT_ALONE,
  cautionCadence: NOT_ALONE,
  evaluateTriggers: NOT_ALONE,
  thinkingBudget: NOT_ALONE,
};

export function cliDriver(): Driver {
  let cwd: string | undefined;
  let start: string[] = [];
  let running = 0;
  const waiting: Array<() => void> = [];

  async function barometer(args: string[]): Promise<Run> {
    if (running >= MAX_PROCESSES) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await new Promise<Run>((resolve, reject) => {
        const child = spawn(process.execPath, [...start, ...args], {
          cwd: cwd ?? REPO_ROOT,
          env: { ...process.env, NO_COLOR: '1', TSX_TSCONFIG_PATH: join(REPO_ROOT, 'tsconfig.json') },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    } finally {
      running--;
      waiting.shift()?.();
    }
  }

  function failure(args: string[], run: Run): Error {
    return new Error(`node ${[...start, ...args].join(' ')} exited ${run.code}\n${run.stderr}`);
  }

  return {
    name: 'cli',
    lacks: CLI_LACKS,
    async start() {
      start = command();
      cwd = await mkdtemp(join(tmpdir(), 'barometer-contract-cli-'));
    },
    async stop() {
      if (cwd) await rm(cwd, { recursive: true, force: true });
    },

    async pressure(input) {
      const args = ['pressure', '--json'];
      for (const [name, value] of Object.entries(input))
        args.push(`--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`, String(value));
      const run = await barometer(args);
      if (run.code === 0) return { ok: true, value: JSON.parse(run.stdout) as PressureReport };
      if (run.code !== 2) throw failure(args, run);
      return refusalOf(run.stderr, input);
    },
    async replay(file) {
      // The contract's replay is of the log's text, as the library and HTTP get it: the file alone in a folder of
      // its own, so the CLI does not also pick up sub-agent transcripts kept beside it (its own tests cover those).
      const folder = await mkdtemp(join(tmpdir(), 'barometer-contract-replay-'));
      try {
        const alone = join(folder, basename(file));
        await copyFile(join(REPO_ROOT, file), alone);
        const args = ['replay', alone, '--json'];
        const run = await barometer(args);
        if (run.code !== 0) throw failure(args, run);
        return JSON.parse(run.stdout) as ReplayResult;
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Reads the issues of exit code 2 back from stderr, as the README documents them:
 * `  memoryUsedPercent (--memory-used-percent): must be from 0 to 100; got "120"`. The `; got …` suffix is the
 * value as the flag gave it (text), which the other surfaces do not repeat in their messages.
 */
function refusalOf(stderr: string, input: Record<string, unknown>): Refusal {
  const issues: Refusal['issues'] = [];
  // A flag the command does not have is refused by the flag parser (commander), in its own words.
  const unknown = /^error: (unknown option '--([a-z-]+)')/m.exec(stderr);
  if (unknown) {
    const [, message, flag] = unknown as unknown as [string, string, string];
    return {
      ok: false,
      issues: [{ field: flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()), message }],
    };
  }
  for (const line of stderr.split('\n')) {
    const match = /^ {2}(\S+) \(--[a-z-]+\): (.*)$/.exec(line);
    if (!match) continue;
    const [, field, text] = match as unknown as [string, string, string];
    const suffix = `; got ${JSON.stringify(String(input[field]))}`;
    issues.push({ field, message: text.endsWith(suffix) ? text.slice(0, -suffix.length) : text });
  }
  if (issues.length === 0) throw new Error(`exit 2 without issues on stderr:\n${stderr}`);
  return { ok: false, issues };
}
