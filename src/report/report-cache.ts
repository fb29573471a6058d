import { KeyValueTable } from '../store/key-value-table.js';
import { StateDatabase } from '../store/state-database.js';
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
export const REPORT_CACHE_FORMAT = 4;

/** The cache's space in the database's `kv` table. */
const SPACE = 'report-cache';
/** Entries written per transaction: a long one would hold the write lock that a running service waits for. */
const BATCH = 50;

/** An entry as kept: the cache key it was made under, and the entry. */
interface KeptEntry {
  key: string;
  entry: CachedLog;
}

/**
 * The report's per-file cache, rows of the data dir's database (`<data dir>/barometer.db`), one per log file.
 * `key` names everything besides the file that shapes an entry (barometer's version, the prices in force): an
 * entry written under another key is ignored, and rewritten. A database that cannot be opened is treated as
 * an empty cache that keeps nothing: it only saves time.
 */
export class ReportCache {
  #entries = new Map<string, CachedLog>();
  readonly #changed = new Set<string>();
  readonly #removed = new Set<string>();

  private constructor(
    readonly path: string,
    readonly key: string,
  ) {}

  /** The cache kept in the database at `path` (the data dir's `barometer.db`). */
  static async open(path: string, key: string): Promise<ReportCache> {
    const cache = new ReportCache(path, key);
    try {
      cache.#use((table) => {
        for (const [file, text] of table.entries()) {
          const kept = JSON.parse(text) as KeptEntry;
          if (kept.key === key) cache.#entries.set(file, kept.entry);
        }
      });
    } catch {
      // Missing, locked or damaged: start empty.
      cache.#entries = new Map();
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
    this.#changed.add(path);
    this.#removed.delete(path);
  }

  /** Forgets the files that are gone (of the ones a run looked for). */
  prune(keep: (path: string) => boolean): void {
    for (const path of this.#entries.keys()) {
      if (keep(path)) continue;
      this.#entries.delete(path);
      this.#changed.delete(path);
      this.#removed.add(path);
    }
  }

  /** Writes the entries that changed and removes the pruned ones, a few dozen per transaction. */
  async save(): Promise<void> {
    if (this.#changed.size === 0 && this.#removed.size === 0) return;
    const changes: Array<[string, string | null]> = [
      ...[...this.#removed].map((path): [string, null] => [path, null]),
      ...[...this.#changed].map((path): [string, string] => [
        path,
        JSON.stringify({ key: this.key, entry: this.#entries.get(path) as CachedLog } satisfies KeptEntry),
      ]),
    ];
    this.#use((table) => {
      for (let start = 0; start < changes.length; start += BATCH) {
        table.database.transaction(() => {
          for (const [path, text] of changes.slice(start, start + BATCH)) {
            if (text === null) table.delete(path);
            else table.set(path, text);
          }
        });
      }
    });
    this.#changed.clear();
    this.#removed.clear();
  }

  #use(work: (table: KeyValueTable) => void): void {
    const database = StateDatabase.open(this.path);
    try {
      work(new KeyValueTable(database, SPACE));
    } finally {
      database.close();
    }
  }
}
