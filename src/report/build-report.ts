import { basename, join } from 'node:path';
import { BarometerValidationError } from '../errors/validation.js';
import type { BarometerConfig } from '../models/barometer-config.js';
import { defaultStateFolder } from '../store/state-folder.js';
import { readLogText } from '../usage/read-log-text.js';
import { BAROMETER_VERSION } from '../version.js';
import { discoverLogs, type FoundLog, type LogRoot } from './discover-logs.js';
import type { LogReport } from './log-report.js';
import { ReportPricing, readLogReport } from './read-log-report.js';
import { type CachedLog, REPORT_CACHE_FORMAT, ReportCache } from './report-cache.js';

/** Files read at once: enough to keep the disk busy while one file is parsed. */
const DEFAULT_CONCURRENCY = 8;

export interface CollectLogsOptions {
  /** The agents' folders to search (see `defaultLogRoots`); ignored when `paths` are given. */
  roots: readonly LogRoot[];
  /** Files and folders to read instead of the agents' default places. */
  paths?: readonly string[];
  /** The database that keeps the cache (`<data dir>/barometer.db`); null: no cache. */
  cacheFile: string | null;
  /** Run barometer's what-if on each session. @default true */
  whatIf?: boolean;
  config?: BarometerConfig;
  /**
   * The archive folder the what-if's tombstones name (they are sized with it): the data folder's `archives`.
   * @default `<the user's state folder>/archives`
   */
  archiveDir?: string;
  /** Called after each file: files and bytes done, of the total. */
  onProgress?: (progress: { files: number; totalFiles: number; bytes: number; totalBytes: number }) => void;
  concurrency?: number;
}

export interface CollectedLogs {
  logs: LogReport[];
  /** Files parsed in this run, and files answered from the cache. */
  read: number;
  cached: number;
  /** Files found that are not in the report, and why. */
  skipped: { path: string; problem: string }[];
  /** Given paths that do not exist. */
  missing: string[];
}

/** Codex rollouts name the working directory in their first record (`session_meta.payload.cwd`). */
function codexProject(text: string): string | undefined {
  const end = text.indexOf('\n');
  try {
    const first = JSON.parse(end === -1 ? text : text.slice(0, end)) as { payload?: { cwd?: unknown } };
    return typeof first.payload?.cwd === 'string' ? basename(first.payload.cwd) : undefined;
  } catch {
    return undefined;
  }
}

async function readOne(
  found: FoundLog,
  pricing: ReportPricing,
  whatIf: boolean,
  archiveDir: string,
): Promise<CachedLog> {
  const entry = { size: found.size, mtimeMs: found.mtimeMs, whatIf };
  try {
    // Streamed, a line over the limit left out (readLogText): one huge line does not cost the file's good lines.
    const { text } = await readLogText(found.path);
    const report = await readLogReport(text, found, pricing, { whatIf, archiveDir });
    if (report.agent === 'codex') report.project = codexProject(text) ?? report.project;
    return { ...entry, report };
  } catch (error) {
    if (error instanceof BarometerValidationError)
      return { ...entry, report: null, problem: error.issues[0]?.message ?? error.message };
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return { ...entry, report: null, problem: `cannot read it: ${code}` };
    throw error;
  }
}

/**
 * Finds the session logs (the agents' default places, or the paths given) and turns each into its calls (by slot),
 * compactions and what-if: from the cache when the file has not changed since (same size and modification time),
 * else by reading it, several files at a time. A file that is not a session log is skipped and listed.
 */
export async function collectLogs(options: CollectLogsOptions): Promise<CollectedLogs> {
  const whatIf = options.whatIf !== false;
  const given = options.paths ?? [];
  const { logs: found, missing } = await discoverLogs(given.length > 0 ? [] : options.roots, given);
  if (missing.length > 0) {
    throw new BarometerValidationError(
      missing.map((path) => ({ field: 'paths', value: path, message: 'no such file or folder' })),
      'report',
    );
  }
  const archiveDir = options.archiveDir ?? join(defaultStateFolder(), 'archives');
  // The what-if's figures depend on the archive path its tombstones name: a cache of another folder is not reused.
  const cacheKey = `${REPORT_CACHE_FORMAT}:${BAROMETER_VERSION}:${JSON.stringify(options.config ?? null)}:${archiveDir}`;
  const cache = options.cacheFile === null ? undefined : await ReportCache.open(options.cacheFile, cacheKey);
  const pricing = new ReportPricing(options.config);
  const results: CachedLog[] = new Array(found.length);
  const totalBytes = found.reduce((sum, log) => sum + log.size, 0);
  let files = 0;
  let bytes = 0;
  let read = 0;
  const pending: number[] = [];
  for (let index = 0; index < found.length; index++) {
    const log = found[index]!;
    const hit = cache?.get(log.path, log.size, log.mtimeMs, whatIf);
    if (hit) {
      results[index] = hit;
      files++;
      bytes += log.size;
    } else pending.push(index);
  }
  if (files > 0) options.onProgress?.({ files, totalFiles: found.length, bytes, totalBytes });
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      const index = pending[next++]!;
      const log = found[index]!;
      const entry = await readOne(log, pricing, whatIf, archiveDir);
      results[index] = entry;
      cache?.set(log.path, entry);
      read++;
      files++;
      bytes += log.size;
      options.onProgress?.({ files, totalFiles: found.length, bytes, totalBytes });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? DEFAULT_CONCURRENCY }, worker));
  if (cache) {
    if (given.length === 0) {
      const present = new Set(found.map((log) => log.path));
      cache.prune((path) => present.has(path));
    }
    await cache.save();
  }
  const logs: LogReport[] = [];
  const skipped: CollectedLogs['skipped'] = [];
  results.forEach((entry, index) => {
    const path = found[index]!.path;
    if (entry.report) logs.push({ ...entry.report, path, ...(whatIf ? {} : { whatIf: null }) });
    else skipped.push({ path, problem: entry.problem ?? 'not a session log' });
  });
  return { logs, read, cached: found.length - read, skipped, missing };
}
