import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isId } from '../ids/id-schema.js';

/** How often changed values are written out: a process killed with SIGKILL loses at most this much. */
export const DEFAULT_FLUSH_INTERVAL_MS = 1000;

export interface StateSnapshotOptions<T> {
  /** The folder that holds one `<id>.json` file per value. */
  directory: string;
  /** Checks a value read back; a value that fails is reported and left on disk as `<id>.json.invalid`. */
  parse: (value: unknown) => { ok: true; value: T } | { ok: false; reason: string };
  /** @default 1000 */
  flushIntervalMs?: number;
  /** Told of files that could not be read or written (the process goes on). */
  onProblem?: (problem: { id: string; action: 'load' | 'write' | 'remove'; reason: string }) => void;
}

const SUFFIX = '.json';

/**
 * Keeps a memory store's values in a folder, one JSON file per id, so that a restart finds them again. Changes
 * are collected and written at most once per `flushIntervalMs` (and on `close`), each file written whole to a
 * temporary name and renamed over the old one: a reader never sees a torn file, and a process killed at any
 * moment leaves every file either as it was or as it became. Files are not fsynced: a kill loses at most the
 * last interval's changes, a power cut may lose what the operating system had not yet written.
 */
export class StateSnapshot<T> {
  readonly directory: string;
  readonly #parse: StateSnapshotOptions<T>['parse'];
  readonly #intervalMs: number;
  readonly #onProblem: NonNullable<StateSnapshotOptions<T>['onProblem']>;
  /** id → the value to write, or null to remove the file. */
  #pending = new Map<string, T | null>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(options: StateSnapshotOptions<T>) {
    this.directory = options.directory;
    this.#parse = options.parse;
    this.#intervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.#onProblem = options.onProblem ?? (() => {});
  }

  /** Every value in the folder that reads back and passes `parse`; others are reported and set aside. */
  async load(): Promise<Map<string, T>> {
    await mkdir(this.directory, { recursive: true });
    const values = new Map<string, T>();
    for (const name of await readdir(this.directory)) {
      if (!name.endsWith(SUFFIX)) continue;
      const id = name.slice(0, -SUFFIX.length);
      const path = join(this.directory, name);
      let reason: string;
      try {
        const parsed = this.#parse(JSON.parse(await readFile(path, 'utf8')));
        if (parsed.ok && isId(id)) {
          values.set(id, parsed.value);
          continue;
        }
        reason = parsed.ok ? 'the file name is not a valid id' : parsed.reason;
      } catch (error) {
        reason = (error as Error).message;
      }
      this.#onProblem({ id, action: 'load', reason });
      await rename(path, `${path}.invalid`).catch(() => {});
    }
    return values;
  }

  /** Notes that `id` now holds `value`; it is written at the next flush. */
  changed(id: string, value: T): void {
    this.#pending.set(id, value);
    this.#schedule();
  }

  /** Notes that `id` is gone; its file is removed at the next flush. */
  removed(id: string): void {
    this.#pending.set(id, null);
    this.#schedule();
  }

  /** Writes every pending change now. */
  async flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    // One flush at a time: a change made during a flush is written by the next one.
    while (this.#flushing) await this.#flushing;
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    this.#flushing = this.#write(batch).finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  /** Writes what is pending and stops the timer. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch((error: unknown) =>
        this.#onProblem({ id: '*', action: 'write', reason: (error as Error).message }),
      );
    }, this.#intervalMs);
    this.#timer.unref();
  }

  async #write(batch: Map<string, T | null>): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    for (const [id, value] of batch) {
      const path = join(this.directory, `${id}${SUFFIX}`);
      try {
        if (value === null) {
          await unlink(path).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'ENOENT') throw error;
          });
        } else {
          const temporary = `${path}.${process.pid}.tmp`;
          await writeFile(temporary, JSON.stringify(value));
          await rename(temporary, path);
        }
      } catch (error) {
        this.#onProblem({
          id,
          action: value === null ? 'remove' : 'write',
          reason: (error as Error).message,
        });
        // Kept for the next flush rather than lost, unless a newer change replaced it meanwhile.
        if (!this.#pending.has(id)) this.#pending.set(id, value);
        this.#schedule();
      }
    }
  }
}
