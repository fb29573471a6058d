import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The recorded Claude Code sessions the folder repeats (the ones kept in the repository). */
const SESSIONS = [
  '../test/fixtures/traces/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  '../test/fixtures/traces/claude-code/small-sonnet-session.jsonl',
].map((path) => fileURLToPath(new URL(path, import.meta.url)));
const PROJECTS = 20;
const BUILT_CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

export interface ReportFigures {
  bytes: number;
  files: number;
  /** `barometer report` as a user runs it (the what-if included), no cache: every file read and replayed. */
  coldMs: number;
  coldCpuMs: number | null;
  /** The same again, every file answered from the cache: the median of `WARM_RUNS` runs, and its CPU time. */
  warmMs: number;
  warmCpuMs: number | null;
  /** Every warm run's wall time, in order. */
  warmRunsMs: number[];
  /** The same again after one file changed (appended to): that file read, the others from the cache. */
  oneChangedMs: number;
  oneChangedCpuMs: number | null;
  /** `barometer report --no-what-if`, no cache: the reading alone. */
  noWhatIfColdMs: number;
  noWhatIfColdCpuMs: number | null;
  /** Baseline, same run: `node -e 0`, the start of Node itself (the median of `WARM_RUNS`). */
  nodeMs: number;
  nodeCpuMs: number | null;
  /** Baseline, same run, same folder: `ccusage daily --json --offline`; null when ccusage 18 is not installed. */
  ccusageMs: number | null;
  ccusageCpuMs: number | null;
  ccusageVersion: string | null;
  /** The total cost each tool reports for the folder. */
  costUsd: number;
  ccusageCostUsd: number | null;
}

/** Warm runs measured (their median is the figure): one run's wall time on a shared machine is mostly the load. */
const WARM_RUNS = 5;

/** A copy of a session under new ids: its session id, message ids and request ids made unique to the copy. */
function renumber(text: string, copy: number): string {
  return text
    .replace(/"sessionId":"([^"]+)"/g, `"sessionId":"$1-${copy}"`)
    .replace(/"id":"msg_/g, `"id":"msg_${copy}_`)
    .replace(/"requestId":"req_/g, `"requestId":"req_${copy}_`);
}

/**
 * A home directory holding about `megabytes` of Claude Code logs: the recorded sessions repeated under new ids, spread
 * over 20 project folders, as `~/.claude/projects/<project>/<session>.jsonl`.
 */
export async function buildLogFolder(
  megabytes: number,
): Promise<{ home: string; bytes: number; files: number }> {
  const home = await mkdtemp(join(tmpdir(), 'barometer-bench-report-'));
  const texts = await Promise.all(SESSIONS.map((path) => readFile(path, 'utf8')));
  let bytes = 0;
  let files = 0;
  while (bytes < megabytes * 1e6) {
    const text = renumber(texts[files % texts.length]!, files);
    const project = join(home, '.claude', 'projects', `-home-dev-project-${files % PROJECTS}`);
    await mkdir(project, { recursive: true });
    await writeFile(join(project, `session-${String(files).padStart(5, '0')}.jsonl`), text);
    bytes += Buffer.byteLength(text);
    files++;
  }
  return { home, bytes, files };
}

/** The ccusage 18 the machine has in npm's cache (after `npx ccusage@18`), or null. */
function findCcusage(): { bin: string; version: string } | null {
  const check = spawnSync('npx', ['--yes', '--offline', 'ccusage@18', '--version'], { encoding: 'utf8' });
  if (check.status !== 0) return null;
  const cache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
  const npx = join(cache, '_npx');
  for (const entry of existsSync(npx) ? readdirSync(npx) : []) {
    const manifest = join(npx, entry, 'node_modules', 'ccusage', 'package.json');
    if (!existsSync(manifest)) continue;
    const { version, bin } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      version: string;
      bin: { ccusage: string };
    };
    if (version.startsWith('18.'))
      return { bin: join(npx, entry, 'node_modules', 'ccusage', bin.ccusage), version };
  }
  return null;
}

/** GNU time, to read a child's CPU time (user + system): on a shared machine the wall time says more about the load. */
const GNU_TIME = '/usr/bin/time';

/** Runs a command; its wall time, and its CPU time when GNU time is installed (else null). */
function timed(
  command: string,
  args: string[],
  env: Record<string, string>,
): { ms: number; cpuMs: number | null; stdout: string } {
  const withTime = existsSync(GNU_TIME);
  const cpuFile = join(tmpdir(), `barometer-bench-cpu-${process.pid}.txt`);
  const start = performance.now();
  const result = spawnSync(
    withTime ? GNU_TIME : command,
    withTime ? ['-f', '%U %S', '-o', cpuFile, command, ...args] : args,
    { env: { ...process.env, TZ: 'UTC', ...env }, encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  let cpuMs: number | null = null;
  if (withTime) {
    const [user, system] = readFileSync(cpuFile, 'utf8').trim().split(/\s+/).map(Number);
    cpuMs = ((user ?? 0) + (system ?? 0)) * 1000;
  }
  return { ms, cpuMs, stdout: result.stdout };
}

/** The run of a list with the median wall time. */
function median<T extends { ms: number }>(runs: readonly T[]): T {
  return [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)]!;
}

/**
 * `barometer report` on a folder of about `megabytes` of logs with the built CLI as a user runs it (node
 * dist/cli/main.js): the default report (the what-if included) cold (no cache) and warm (the cache the cold run
 * wrote), warm after one file changed, and `--no-what-if` cold; against ccusage on the same folder and `node -e 0`
 * in the same run.
 */
export async function benchReport(megabytes: number): Promise<ReportFigures> {
  if (!existsSync(BUILT_CLI)) throw new Error('dist/cli/main.js is missing: npm run build first');
  const folder = await buildLogFolder(megabytes);
  try {
    const env = (data: string) => ({ HOME: folder.home, BAROMETER_DATA_DIR: data, CLAUDE_CONFIG_DIR: '' });
    const report = (data: string, ...args: string[]) =>
      timed(process.execPath, [BUILT_CLI, 'report', '--view', 'daily', '--json', ...args], env(data));
    const data = join(folder.home, 'barometer-data');
    const cold = report(data);
    const warmRuns = Array.from({ length: WARM_RUNS }, () => report(data));
    const warm = median(warmRuns);
    const node = median(Array.from({ length: WARM_RUNS }, () => timed(process.execPath, ['-e', '0'], {})));
    // One session goes on: a line appended (a copy of its last) changes its size and time.
    const changed = join(folder.home, '.claude', 'projects', '-home-dev-project-0', 'session-00000.jsonl');
    const lines = (await readFile(changed, 'utf8')).trimEnd().split('\n');
    await appendFile(changed, `${lines.at(-1)}\n`);
    const oneChanged = report(data);
    const readAgain = (JSON.parse(oneChanged.stdout) as { files: { read: number } }).files.read;
    if (readAgain !== 1) throw new Error(`one file changed, but the report read ${readAgain}`);
    const noWhatIfCold = report(join(folder.home, 'barometer-data-no-what-if'), '--no-what-if');
    const ccusage = findCcusage();
    let ccusageRun: ReturnType<typeof timed> | null = null;
    if (ccusage) {
      ccusageRun = timed(process.execPath, [ccusage.bin, 'daily', '--json', '--offline'], {
        HOME: folder.home,
        CLAUDE_CONFIG_DIR: join(folder.home, '.claude'),
      });
    }
    return {
      bytes: folder.bytes,
      files: folder.files,
      coldMs: cold.ms,
      coldCpuMs: cold.cpuMs,
      warmMs: warm.ms,
      warmCpuMs: warm.cpuMs,
      warmRunsMs: warmRuns.map((run) => run.ms),
      oneChangedMs: oneChanged.ms,
      oneChangedCpuMs: oneChanged.cpuMs,
      noWhatIfColdMs: noWhatIfCold.ms,
      noWhatIfColdCpuMs: noWhatIfCold.cpuMs,
      nodeMs: node.ms,
      nodeCpuMs: node.cpuMs,
      ccusageMs: ccusageRun?.ms ?? null,
      ccusageCpuMs: ccusageRun?.cpuMs ?? null,
      ccusageVersion: ccusage?.version ?? null,
      costUsd: (JSON.parse(cold.stdout) as { total: { costUsd: number } }).total.costUsd,
      ccusageCostUsd:
        ccusageRun === null
          ? null
          : (JSON.parse(ccusageRun.stdout) as { totals: { totalCost: number } }).totals.totalCost,
    };
  } finally {
    await rm(folder.home, { recursive: true, force: true });
  }
}
