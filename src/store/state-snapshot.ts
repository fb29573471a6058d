import {
  appendFileSync,
  existsSync,
  mkdirSync,
  opendirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isId } from '../ids/id-schema.js';
import { type AppendOnlyList, atPath, keepsOwnList, withPath } from './append-only-list.js';
import { OWNER_ONLY_FILE_MODE, OWNER_ONLY_FOLDER_MODE } from './owner-only.js';

/** Files are created owner-only: sessions name the agent's files and carry its prompts' figures. */
const OWNER_ONLY = { mode: OWNER_ONLY_FILE_MODE } as const;

/** How often changed values are written out: a process killed with SIGKILL loses at most this much. */
export const DEFAULT_FLUSH_INTERVAL_MS = 1000;

/**
 * How long a flush writes files (a listing lists names, a load reads values) before it lets the event loop run.
 * A turn can hold two slices (a page's in the poll phase, another in the check phase) and a scavenge: with 5 ms
 * slices the service's longest turn while 100,000 sessions loaded was 35–48 ms and a request arriving in it waited
 * as long; with 2 ms, 28–31 ms (decision 091).
 */
export const DEFAULT_SLICE_MS = 2;

/**
 * Directory entries read per system call while the ids are listed: 4,096 read 300,000 names in ~0.35 s here, 1,024
 * in ~0.8 s (Node's default, 32, is made for small folders).
 */
const DIRECTORY_BUFFER = 4096;

/** How many of a value's flushes are appended to its state log before its file is written whole again. */
export const DEFAULT_CHECKPOINT_EVERY = 16;

export interface StateSnapshotOptions<T> {
  /** The folder that holds one `<id>.json` file per value. */
  directory: string;
  /**
   * Checks a value read back; a value that fails is reported and left on disk as `<id>.json.invalid`. A value it
   * had to mend says how in `repaired` (reported with the action `repair`).
   */
  parse: (value: unknown) => { ok: true; value: T; repaired?: string } | { ok: false; reason: string };
  /**
   * Lists of the value that only grow at their end (a timeline's points): each is kept in a file of its own,
   * `<id>.<path joined by dots>.jsonl`, one item per line, to which a flush appends what is new instead of
   * writing the whole list again; the value's file holds the rest.
   */
  lists?: readonly AppendOnlyList[];
  /** @default 1000 */
  flushIntervalMs?: number;
  /**
   * How long a flush writes, or the folder's names are listed, before the event loop is let run (the files are
   * read and written with synchronous calls); a store loading the values in the background reads as long.
   * @default 2
   */
  sliceMs?: number;
  /**
   * How many flushes of a value append it to `<id>.state.jsonl` before `<id>.json` is written whole again (and the
   * log removed). 0 writes the file whole at every flush.
   * @default 16
   */
  checkpointEvery?: number;
  /** Told of files that could not be read or written (the process goes on). */
  onProblem?: (problem: SnapshotProblem) => void;
}

/**
 * What a snapshot could not read or write, or had to mend: `load` a value set aside (its files renamed
 * `.invalid`), `skip` list lines left out of a value that was kept (`file`, `lines`), `repair` a value mended on
 * load, `write`/`remove` a file not written (retried at the next flush).
 */
export interface SnapshotProblem {
  id: string;
  action: 'load' | 'skip' | 'repair' | 'write' | 'remove';
  reason: string;
  /** The file a `skip` read, and the line numbers (from 1) it left out. */
  file?: string;
  lines?: number[];
}

const SUFFIX = '.json';
/** Beside the folder: its ids in order, written by a clean close, read (and removed) by the next start. */
const INDEX_SUFFIX = '.ids';
const LIST_SUFFIX = '.jsonl';
const LOG_SUFFIX = '.state.jsonl';

/**
 * What this process last wrote to a list's file: its last item (the item itself, or its key for a list with one)
 * and the file's line count.
 */
interface WrittenList {
  last: unknown;
  lines: number;
}

/**
 * Keeps a memory store's values in a folder, one JSON file per id, so that a restart finds them again. Changes
 * are collected and written at most once per `flushIntervalMs` (and on `close`). A value's file is written whole
 * to a temporary name and renamed over the old one (a reader never sees a torn file) at its first flush in a
 * process and every `checkpointEvery` flushes; the flushes between append the value as one line to
 * `<id>.state.jsonl`, whose last whole line is the newest state (a kill in the middle of an append tears only that
 * line, and the one before it is read). A process killed at any moment leaves every value either as it was or as
 * it became. Files are not fsynced: a kill loses at most the last interval's changes, a power cut may lose what
 * the operating system had not yet written. The files are
 * written with synchronous calls, in slices of at most `sliceMs` between which the event loop runs: through
 * `fs/promises` a session's files cost ~4× the CPU (430 µs against ~100 µs measured here, the promise and
 * thread-pool hops of each call), paid on every post by a session that posts less than once a second.
 *
 * An {@link AppendOnlyList} of the value lives in a file of its own to which each flush appends the items added
 * since the last one (a session's 500-point timeline is 97 % of its bytes; appending its new points instead of
 * rewriting them cut the disk writes of a busy session from 118 KB to ~3 KB a second). The lists are written
 * first, then the value's own file: a kill between the two leaves lists ahead of the value, which its `parse`
 * trims back to it on load (issue 29: a timeline one point ahead of its session's state). A list file
 * holds at most twice its limit of lines before it is written anew with the last `limit` items; a torn last line
 * (a kill in the middle of an append) is skipped when read, and the first flush after a start writes every list
 * anew, so what a restart read is what the files then hold. A clean close given the ids writes them in order beside
 * the folder, for the next start to read instead of listing the folder (see {@link StateSnapshot.readIndex}).
 */
export class StateSnapshot<T> {
  readonly directory: string;
  readonly #parse: StateSnapshotOptions<T>['parse'];
  readonly #lists: readonly AppendOnlyList[];
  readonly #intervalMs: number;
  /** How long one slice of writing, listing or loading holds the event loop (see the option). */
  readonly sliceMs: number;
  readonly #checkpointEvery: number;
  readonly #onProblem: NonNullable<StateSnapshotOptions<T>['onProblem']>;
  /** id → the value to write, or null to remove the file. */
  #pending = new Map<string, T | null>();
  /** id → per list, what this process last wrote to its file (none: the next flush writes it anew). */
  readonly #written = new Map<string, Array<WrittenList | undefined>>();
  /** id → states appended to its log since this process last wrote its file whole (none: the next flush does). */
  readonly #logged = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  /** List lines skipped while loading (not JSON, or not an item of their list), over every value. */
  skippedLines = 0;
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(options: StateSnapshotOptions<T>) {
    this.directory = options.directory;
    this.#parse = options.parse;
    this.#lists = options.lists ?? [];
    this.#intervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
    this.#checkpointEvery = options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
    this.#onProblem = options.onProblem ?? (() => {});
  }

  /** Every value in the folder that reads back and passes `parse`; others are reported and set aside. */
  async load(): Promise<Map<string, T>> {
    const values = new Map<string, T>();
    const indexed = this.readIndex();
    for await (const ids of indexed ? [indexed] : this.ids()) {
      for (const id of ids) {
        const value = this.loadOne(id);
        if (value !== undefined) values.set(id, value);
      }
    }
    return values;
  }

  /**
   * The ids the folder holds values of (their files' names; no file opened): what {@link loadOne} can read, each
   * once, in the folder's order. A value has its file, and often a log of newer states beside it; a log alone is a
   * value killed before its first file was renamed into place. The folder is read a slice of at most `sliceMs` at
   * a time, the event loop running between slices: 100,000 values are ~300,000 names, which one `readdir` turned
   * into one 330 ms turn here. The folder is created and opened at the first slice (an unreadable one fails there).
   */
  async *ids(): AsyncGenerator<string[]> {
    mkdirSync(this.directory, { recursive: true, mode: OWNER_ONLY_FOLDER_MODE });
    const directory = opendirSync(this.directory, { bufferSize: DIRECTORY_BUFFER });
    try {
      const seen = new Set<string>();
      for (;;) {
        const began = performance.now();
        const ids: string[] = [];
        let entry = directory.readSync();
        for (; entry !== null; entry = directory.readSync()) {
          const name = entry.name;
          const id = name.endsWith(SUFFIX)
            ? name.slice(0, -SUFFIX.length)
            : name.endsWith(LOG_SUFFIX)
              ? name.slice(0, -LOG_SUFFIX.length)
              : undefined;
          if (id !== undefined && !seen.has(id)) {
            seen.add(id);
            ids.push(id);
          }
          if (performance.now() - began >= this.sliceMs) break;
        }
        yield ids;
        if (entry === null) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      directory.closeSync();
    }
  }

  /**
   * The ids of every value in the folder in code-unit order, as the last clean {@link close} wrote them beside it
   * (`<directory>.ids`), when the folder's entries have not changed since: its modification time (changed by every
   * file created, renamed or removed in it, in nanoseconds) is the one the index recorded. Undefined otherwise (no
   * index, a folder changed since: a process killed, or a build that knows no index). The index is removed as it is
   * read: a process killed from now on leaves none, and the next start lists the folder. Reading 100,000 ids here
   * takes a few ms, where listing the folder's ~300,000 names took 0.35–0.8 s in 5 ms slices.
   */
  readIndex(): string[] | undefined {
    const path = this.#indexFile();
    let text: string | undefined;
    let modified: string;
    try {
      text = readIfThere(path);
      if (text === undefined) return undefined;
      unlinkSync(path);
      modified = String(statSync(this.directory, { bigint: true }).mtimeNs);
    } catch {
      // Unreadable, not removed, or no folder: the folder is listed (and its reading reports what is wrong).
      return undefined;
    }
    const ids = text.split('\n');
    // The first line the folder's modification time, the last one empty (each id ends with a newline).
    if (ids.shift() !== modified || ids.pop() !== '') return undefined;
    for (let index = 1; index < ids.length; index++) {
      if (!((ids[index - 1] as string) < (ids[index] as string))) return undefined;
    }
    return ids;
  }

  #indexFile(): string {
    return `${resolve(this.directory)}${INDEX_SUFFIX}`;
  }

  /**
   * One value from its files, checked by `parse`; undefined (reported, its files set aside as `.invalid`) when it
   * does not read back. A list line that is not JSON or not an item of the list is skipped, and reported with its
   * file and line: the value is kept. Read with synchronous calls, as the files are written: through
   * `fs/promises` a value's three files cost ~4× the CPU (each read an open, a stat, a read and a close, each a
   * hop to the thread pool and back), and a caller that must not hold the event loop long reads a slice of values
   * at a time (a value is ~0.1–0.3 ms).
   */
  loadOne(id: string): T | undefined {
    const path = join(this.directory, `${id}${SUFFIX}`);
    const logPath = join(this.directory, `${id}${LOG_SUFFIX}`);
    let reason: string;
    try {
      let value: unknown = lastStateIn(logPath) ?? JSON.parse(readFileSync(path, 'utf8'));
      for (const list of this.#lists) {
        const items = this.#readList(id, list);
        // A file written before its lists had files of their own keeps them inside.
        if (items !== undefined) value = withPath(value, list.path, items);
      }
      const parsed = this.#parse(value);
      if (parsed.ok && isId(id)) {
        if (parsed.repaired !== undefined) this.#onProblem({ id, action: 'repair', reason: parsed.repaired });
        return parsed.value;
      }
      reason = parsed.ok ? 'the file name is not a valid id' : parsed.reason;
    } catch (error) {
      reason = (error as Error).message;
    }
    this.#onProblem({ id, action: 'load', reason });
    for (const file of [path, logPath]) {
      try {
        renameSync(file, `${file}.invalid`);
      } catch {
        // Not there (a value with no log, or no file yet): nothing to set aside.
      }
    }
    return undefined;
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

  /**
   * Writes what is pending and stops the timer. Given `ids` (every value's id, in code-unit order, as the caller
   * holds them), it writes them beside the folder for the next start's {@link readIndex}, once every write went
   * through (a write that failed leaves no index, and the next start lists the folder).
   */
  async close(ids?: readonly string[]): Promise<void> {
    this.#closed = true;
    // Changes made during a flush wait for the next one, and no timer runs once closed: two more flushes take
    // them. Not more: a write that keeps failing is queued again each time (and reported), not retried forever.
    for (let round = 0; round < 3 && (round === 0 || this.#pending.size > 0); round++) await this.flush();
    if (ids === undefined || this.#pending.size > 0) return;
    try {
      mkdirSync(this.directory, { recursive: true, mode: OWNER_ONLY_FOLDER_MODE });
      const modified = statSync(this.directory, { bigint: true }).mtimeNs;
      let text = `${modified}\n`;
      for (const id of ids) text += `${id}\n`;
      writeWhole(this.#indexFile(), text);
    } catch (error) {
      this.#onProblem({ id: '*', action: 'write', reason: (error as Error).message });
    }
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

  #listFile(id: string, list: AppendOnlyList): string {
    return join(this.directory, `${id}.${list.path.join('.')}${LIST_SUFFIX}`);
  }

  /**
   * A list's items from its file, the last `limit` whole lines; undefined when there is no file. A line that is
   * not JSON, or that the list's `isItem` refuses, is skipped and reported (file and line); a torn last line (a
   * kill in the middle of an append) is skipped silently.
   */
  #readList(id: string, list: AppendOnlyList): unknown[] | undefined {
    const file = this.#listFile(id, list);
    const text = readIfThere(file);
    if (text === undefined) return undefined;
    const items: unknown[] = [];
    const skipped: number[] = [];
    const lines = text.split('\n');
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index]!;
      if (line === '') continue;
      let item: unknown;
      try {
        item = JSON.parse(line);
      } catch {
        // Only the last line can be torn (a kill during an append); any other is damage worth a word.
        if (index < lines.length - 1) skipped.push(index + 1);
        continue;
      }
      if (list.isItem && !list.isItem(item)) skipped.push(index + 1);
      else items.push(item);
    }
    if (skipped.length > 0) {
      this.skippedLines += skipped.length;
      this.#onProblem({
        id,
        action: 'skip',
        reason: `${skipped.length} line${skipped.length === 1 ? '' : 's'} of ${file} skipped (not a valid ${list.path.join('.')} item): line ${skipped.join(', ')}`,
        file,
        lines: skipped,
      });
      // The file is written anew at the next flush, without them.
      this.#written.delete(id);
    }
    return items.slice(-list.limit);
  }

  async #write(batch: Map<string, T | null>): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: OWNER_ONLY_FOLDER_MODE });
    let sliceStart = performance.now();
    for (const [id, value] of batch) {
      if (performance.now() - sliceStart >= this.sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      // A newer value came while this flush waited (its folder, a slice's pause): the next flush writes that one.
      // The value replaced is not read: a column timeline lets only the version before its newest be read.
      if (this.#pending.has(id)) continue;
      const path = join(this.directory, `${id}${SUFFIX}`);
      try {
        if (value === null) {
          this.#written.delete(id);
          this.#logged.delete(id);
          const files = [path, this.#logFile(id), ...this.#lists.map((list) => this.#listFile(id, list))];
          for (const file of files) {
            await unlink(file).catch((error: NodeJS.ErrnoException) => {
              if (error.code !== 'ENOENT') throw error;
            });
          }
        } else {
          let bare: unknown = value;
          for (const list of this.#lists) bare = withPath(bare, list.path, []);
          // The lists first, then the value: a kill between the two leaves lists ahead of the value, which the
          // value's `parse` trims back to it on load (a timeline never ends before its session's generation).
          for (let index = 0; index < this.#lists.length; index++) this.#writeList(id, index, value);
          this.#writeState(id, path, JSON.stringify(bare));
        }
      } catch (error) {
        this.#onProblem({
          id,
          action: value === null ? 'remove' : 'write',
          reason: (error as Error).message,
        });
        // The lists' files and the state log are in doubt: the next write of this id writes them anew.
        this.#written.delete(id);
        this.#logged.delete(id);
        // Kept for the next flush rather than lost, unless a newer change replaced it meanwhile.
        if (!this.#pending.has(id)) this.#pending.set(id, value);
        this.#schedule();
      }
    }
  }

  #logFile(id: string): string {
    return join(this.directory, `${id}${LOG_SUFFIX}`);
  }

  /**
   * The value's JSON appended to its state log, or, at its first write in this process and every
   * `checkpointEvery` appends, written whole to its file. Whole, it goes to the log first and the log is removed
   * once the file is renamed into place: a kill before the rename leaves it as the log's last line, a kill after
   * it leaves a log whose last line is the file's value, so the log's last whole line is always the newest state.
   * An append costs a few µs here; a file written whole and renamed ~60 µs and, on ext4, a write-out of its data.
   */
  #writeState(id: string, path: string, text: string): void {
    const logged = this.#logged.get(id);
    const log = this.#logFile(id);
    if (logged !== undefined && logged < this.#checkpointEvery) {
      appendFileSync(log, `${text}\n`, OWNER_ONLY);
      this.#logged.set(id, logged + 1);
      return;
    }
    // Unknown (first write in this process) or a log of states: the new state goes to it before the file is replaced.
    if (logged !== 0) appendFileSync(log, `${text}\n`, OWNER_ONLY);
    writeWhole(path, text);
    if (logged !== 0) {
      try {
        unlinkSync(log);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    this.#logged.set(id, 0);
  }

  /** Appends a list's new items to its file, or writes the file anew (first write, too long, or items lost track of). */
  #writeList(id: string, index: number, value: unknown): void {
    const list = this.#lists[index]!;
    const linesAfter = listLines(value, list);
    const written = this.#written.get(id) ?? [];
    this.#written.set(id, written);
    const known = written[index];
    if (known) {
      // The items after the last one written, found by identity (the list is appended to in place or copied
      // with the same items) or by the list's key (its items are made anew when read). Not found (more came than
      // the list keeps): written anew.
      const fresh = linesAfter(known.last);
      if (fresh && known.lines + fresh.count <= 2 * list.limit) {
        if (fresh.count === 0) return;
        appendFileSync(this.#listFile(id, list), fresh.text, OWNER_ONLY);
        written[index] = { last: fresh.last, lines: known.lines + fresh.count };
        return;
      }
    }
    const all = linesAfter(undefined) as JsonLines;
    writeWhole(this.#listFile(id, list), all.text);
    written[index] = { last: all.last, lines: all.count };
  }
}

/** Some items' JSON lines (one item a line, each ended by a newline), how many, and the last one's key. */
interface JsonLines {
  text: string;
  count: number;
  last: unknown;
}

/**
 * A list's JSON lines after the item last written (all of them for undefined; undefined when that item is no
 * longer kept): the items from the value holding the list when it keeps its own, or from the list's array.
 */
function listLines(value: unknown, list: AppendOnlyList): (last: unknown) => JsonLines | undefined {
  const fromArray = (last: unknown): JsonLines | undefined => {
    const array = atPath(value, list.path);
    const items = Array.isArray(array) ? (array as unknown[]).slice(-list.limit) : [];
    let from = 0;
    if (last !== undefined) {
      const at = lastIndexOf(items, last, list.key);
      if (at < 0) return undefined;
      from = at + 1;
    }
    return linesOf(from === 0 ? items : items.slice(from), list.key, last);
  };
  const holder = atPath(value, list.path.slice(0, -1));
  if (list.key === undefined || !keepsOwnList(holder)) return fromArray;
  const name = list.path[list.path.length - 1] as string;
  return (last) => {
    const own = holder.itemsAfter(name, last);
    if (own === null) return fromArray(last);
    return own === undefined ? undefined : linesOf(own, list.key, last);
  };
}

function linesOf(items: readonly unknown[], key: string | undefined, last: unknown): JsonLines {
  return { text: lines(items), count: items.length, last: items.length ? lastOf(items, key) : last };
}

/** The last item, or its key; undefined for an empty list. */
function lastOf(items: readonly unknown[], key: string | undefined): unknown {
  const last = items[items.length - 1];
  return key === undefined || last === undefined ? last : (last as Record<string, unknown>)[key];
}

/** Where the item (or the item with that key) is, searched from the end; -1 when it is not there. */
function lastIndexOf(items: readonly unknown[], last: unknown, key: string | undefined): number {
  if (key === undefined) return items.lastIndexOf(last);
  for (let index = items.length - 1; index >= 0; index--) {
    if ((items[index] as Record<string, unknown>)[key] === last) return index;
  }
  return -1;
}

function lines(items: readonly unknown[]): string {
  let text = '';
  for (const item of items) text += `${JSON.stringify(item)}\n`;
  return text;
}

/**
 * The last whole line of a state log, parsed: undefined when there is no log or no line of it reads (a kill in the
 * middle of an append tears only the last line).
 */
function lastStateIn(path: string): unknown {
  // Most values have no log (written whole at their last flush): asking first costs ~5 µs here, where the read's
  // ENOENT error cost ~22 µs (a quarter of a value's load).
  if (!existsSync(path)) return undefined;
  const text = readIfThere(path);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index] as string;
    if (line === '') continue;
    try {
      return JSON.parse(line);
    } catch {
      // Torn: the line before it is the newest whole state.
    }
  }
  return undefined;
}

/** A file's text; undefined when there is no such file. */
function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes a file whole under a temporary name, then renames it over the old one. */
function writeWhole(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, OWNER_ONLY);
  renameSync(temporary, path);
}
