import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { OWNER_ONLY_FILE_MODE, OWNER_ONLY_FOLDER_MODE } from '../store/owner-only.js';
import type { LogReport } from './log-report.js';

/** One file's cached result: valid while the file keeps its size and modification time. */
export interface CachedLog {
  size: number;
  mtimeMs: number;
  /** Whether the what-if was asked for when the entry was made (an entry without it cannot answer a run with it). */
  whatIf: boolean;
  report: LogReport | null;
  /** Why the file is not in the report (not a session log, say). */
  problem?: string;
}

/**
 * The shape of the cache's entries: part of every cache's key, raised when what an entry holds changes, so that a
 * cache an older build wrote is ignored rather than misread. 2: calls added up by quarter hour (`ReportSlot`); 3: a slot's cost
 * priced at family estimates (`estimatedCostUsd`).
 */
export const REPORT_CACHE_FORMAT = 3;

/** Saves so far in this process: each writes a temporary file of its own. */
let saves = 0;

interface CacheFile {
  key: string;
  entries: Record<string, CachedLog>;
}

/**
 * The report's per-file cache, one JSON file in the data directory (`<data dir>/report-cache.json`). `key` names
 * everything besides the file that shapes an entry (barometer's version, the prices in force): a cache written
 * under another key is ignored, and rewritten. A cache that cannot be read is treated as empty: it only saves time.
 */
export class ReportCache {
  #entries = new Map<string, CachedLog>();
  #changed = false;

  private constructor(
    readonly path: string,
    readonly key: string,
  ) {}

  static async open(path: string, key: string): Promise<ReportCache> {
    const cache = new ReportCache(path, key);
    try {
      const file = JSON.parse((await readFile(path)).toString('utf8')) as CacheFile;
      if (file.key === key && file.entries && typeof file.entries === 'object')
        cache.#entries = new Map(Object.entries(file.entries));
    } catch {
      // Missing or damaged: start empty.
    }
    return cache;
  }

  /** The entry of a file, if it still describes the file as it is and holds what the run needs. */
  get(path: string, size: number, mtimeMs: number, whatIf: boolean): CachedLog | undefined {
    const entry = this.#entries.get(path);
    if (!entry || entry.size !== size || entry.mtimeMs !== mtimeMs) return undefined;
    if (whatIf && !entry.whatIf && entry.report !== null) return undefined;
    return entry;
  }

  set(path: string, entry: CachedLog): void {
    this.#entries.set(path, entry);
    this.#changed = true;
  }

  /** Forgets the files that are gone (of the ones a run looked for). */
  prune(keep: (path: string) => boolean): void {
    for (const path of this.#entries.keys()) {
      if (!keep(path)) {
        this.#entries.delete(path);
        this.#changed = true;
      }
    }
  }

  /** Writes the cache if it changed: to a temporary file, then renamed over the old one (never half-written). */
  async save(): Promise<void> {
    if (!this.#changed) return;
    await mkdir(dirname(this.path), { recursive: true, mode: OWNER_ONLY_FOLDER_MODE });
    const temporary = `${this.path}.${process.pid}.${++saves}.tmp`;
    const file: CacheFile = { key: this.key, entries: Object.fromEntries(this.#entries) };
    await writeFile(temporary, JSON.stringify(file), { mode: OWNER_ONLY_FILE_MODE });
    await rename(temporary, this.path);
    this.#changed = false;
  }
}
