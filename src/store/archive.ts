import { createHash } from 'node:crypto';
import { access, type FileHandle, mkdir, open, readFile, realpath } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import {
  ArchiveAddressSchema,
  type ArchiveAppendResult,
  type ArchiveEntry,
  type ArchiveSink,
} from '../compaction/archive-sink.js';
import { BarometerError } from '../errors/barometer-error.js';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { OWNER_ONLY_FILE_MODE, OWNER_ONLY_FOLDER_MODE } from './owner-only.js';

/**
 * Record framing: `HRA1 <payload bytes> <sha256 of payload, hex>\n<payload>\n`. The length finds the record's
 * end, the hash proves it whole. The payload is the JSON of an {@link ArchiveRecord} — `sessionId`, `taskId`,
 * `archivedAt`, `itemId`, `kind`, `field`, then `content`: a JSON string (the text itself), or, for an entry
 * appended with `json: true` whose content is a JSON object or array, that value itself (`"json": true`), so a
 * replaced message is encoded once in the file and its words can be found with `grep`. What `content` holds for
 * each `kind` is listed on {@link ArchiveEntry}.
 *
 * JSON never holds a raw newline, so a header line (`HRA1 … <hash>` then a newline) cannot occur inside a
 * payload: a reader that meets damage can search for the next `HRA1 ` whose length and hash check out and be
 * sure it found a record that was written whole, not a piece of one.
 */
const MAGIC = 'HRA1';
const MAGIC_SPACE = Buffer.from(`${MAGIC} `, 'latin1');
const HEADER = /^HRA1 (\d{1,15}) ([0-9a-f]{64})$/;
const MAX_HEADER_BYTES = MAGIC.length + 1 + 15 + 1 + 64 + 1;
const NEWLINE = 0x0a;

/** One archived entry as read back (`content` always as text: an embedded JSON value comes back as its JSON). */
export interface ArchiveRecord extends ArchiveEntry {
  sessionId: string;
  taskId: string;
  /** ISO 8601 time of the append. */
  archivedAt: string;
}

/** A missing archive, or one whose bytes cannot be trusted. */
export class ArchiveError extends BarometerError {
  declare readonly code: 'BR_ERR_ARCHIVE_NOT_FOUND' | 'BR_ERR_INTEGRITY';
  /** The archive file, for the log and the CLI; the HTTP service never sends it. */
  readonly path: string;
  constructor(code: ArchiveError['code'], path: string, message: string) {
    super(code, message);
    this.name = 'ArchiveError';
    this.path = path;
  }
}

export interface ArchiveStoreOptions {
  /** Directory that holds `<session>/<task>.log`. */
  root: string;
  /** fsync each append (and new directories). Turn off only where losing the last appends is acceptable. @default true */
  durable?: boolean;
  /** Clock for `archivedAt` (ms since the epoch). @default Date.now */
  now?: () => number;
  /**
   * Bytes per write call. By default an append is one write call on a file opened with O_APPEND, which lands
   * whole and unmixed with other processes' appends; crash tests set a few KiB so that a kill lands mid-record
   * and the reader's handling of torn records is exercised for real. Never set it where two processes append to
   * one file: their chunks could interleave.
   */
  writeChunkBytes?: number;
}

/** Bytes a decoder could not read as a whole record (a write cut short, or damage), skipped. */
export interface SkippedRegion {
  /** Byte offset where the skipped bytes start. */
  offset: number;
  /** How many bytes were skipped. */
  bytes: number;
}

/** What {@link decodeArchive} found in a file's bytes. */
export interface DecodedArchive {
  /** Every record whose length and hash check out, in file order. */
  records: ArchiveRecord[];
  /** Bytes up to the end of the last whole record. */
  validBytes: number;
  /** True when bytes after the last whole record were skipped (a write cut short, or one still under way). */
  tornTail: boolean;
  /** Every region skipped, in file order, the torn tail (if any) last. Empty for an undamaged file. */
  skipped: SkippedRegion[];
}

function hash(payload: Uint8Array): string {
  return createHash('sha256').update(payload).digest('hex');
}

/** Whether JSON text is an object or array that `JSON.stringify` writes back to the very same text. */
function embeddable(content: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return false;
  }
  // A primitive would be ambiguous on disk (a string value reads as text); non-canonical text would not read
  // back byte for byte. Both are stored as a string instead.
  return value !== null && typeof value === 'object' && JSON.stringify(value) === content;
}

function payloadOf(record: ArchiveRecord): string {
  if (record.json === true && embeddable(record.content)) {
    const { content, json: _json, ...rest } = record;
    const head = JSON.stringify({ ...rest, json: true });
    // The content is spliced in as it is: parsing and re-serializing it would cost a copy of every message.
    return `${head.slice(0, -1)},"content":${content}}`;
  }
  // JSON.stringify escapes lone surrogates and control characters, so any JS string comes back identical.
  return JSON.stringify(record);
}

export function encodeRecord(record: ArchiveRecord): Buffer {
  const payload = Buffer.from(payloadOf(record), 'utf8');
  return Buffer.concat([
    Buffer.from(`${MAGIC} ${payload.length} ${hash(payload)}\n`, 'latin1'),
    payload,
    Buffer.from('\n', 'latin1'),
  ]);
}

/** A record's payload, or undefined when the bytes (whose hash matched) are not an archive record. */
function recordOf(payload: Uint8Array): ArchiveRecord | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.length).toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  if (typeof record.itemId !== 'string') return undefined;
  if (typeof record.content === 'string') return record as unknown as ArchiveRecord;
  if (record.json === true && record.content !== null && typeof record.content === 'object') {
    return { ...record, content: JSON.stringify(record.content) } as unknown as ArchiveRecord;
  }
  return undefined;
}

/** The whole record whose header starts at `offset`, or undefined if there is none (torn, damaged, not one). */
function recordAt(bytes: Buffer, offset: number): { record: ArchiveRecord; end: number } | undefined {
  const window = bytes.subarray(offset, Math.min(bytes.length, offset + MAX_HEADER_BYTES));
  const newline = window.indexOf(NEWLINE);
  if (newline === -1) return undefined;
  const match = HEADER.exec(window.subarray(0, newline).toString('latin1'));
  if (!match) return undefined;
  const start = offset + newline + 1;
  const length = Number(match[1]);
  const end = start + length + 1;
  if (end > bytes.length || bytes[end - 1] !== NEWLINE) return undefined;
  const payload = bytes.subarray(start, start + length);
  // A record whose hash fails is never returned as data, whatever its JSON says.
  if (hash(payload) !== match[2]) return undefined;
  const record = recordOf(payload);
  return record ? { record, end } : undefined;
}

/** The next whole record at or after `from`: resynchronisation after damage. */
function nextRecord(
  bytes: Buffer,
  from: number,
): { offset: number; record: ArchiveRecord; end: number } | undefined {
  for (let at = bytes.indexOf(MAGIC_SPACE, from); at !== -1; at = bytes.indexOf(MAGIC_SPACE, at + 1)) {
    const found = recordAt(bytes, at);
    if (found) return { offset: at, ...found };
  }
  return undefined;
}

/**
 * Decodes an archive file's bytes: every whole record, in order. Bytes that are not a whole record — a record
 * torn by a kill (at the end, or buried mid-file by a later append from another process), or damage — are
 * skipped up to the next header whose length and hash check out, and reported in `skipped`; they never make
 * the other records unreadable, and a record whose hash fails is never returned.
 * @param _path kept for callers of the earlier signature; decoding no longer throws.
 */
export function decodeArchive(bytes: Buffer, _path = '<archive>'): DecodedArchive {
  const records: ArchiveRecord[] = [];
  const skipped: SkippedRegion[] = [];
  let offset = 0;
  let validBytes = 0;
  while (offset < bytes.length) {
    let found = recordAt(bytes, offset);
    if (!found) {
      const next = nextRecord(bytes, offset + 1);
      skipped.push({ offset, bytes: (next?.offset ?? bytes.length) - offset });
      if (!next) break;
      found = next;
    }
    records.push(found.record);
    offset = found.end;
    validBytes = found.end;
  }
  const last = skipped.at(-1);
  return {
    records,
    validBytes,
    tornTail: last !== undefined && last.offset + last.bytes === bytes.length,
    skipped,
  };
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Reads and decodes one archive file: its records and what was skipped. */
export async function decodeArchiveFile(path: string): Promise<DecodedArchive> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if (isMissing(error)) throw new ArchiveError('BR_ERR_ARCHIVE_NOT_FOUND', path, `no archive at ${path}`);
    throw error;
  }
  return decodeArchive(bytes, path);
}

/**
 * The record of an item (its latest, if it was archived twice) in a decoded archive.
 *
 * An item that is not among the whole records is BR_ERR_ARCHIVE_NOT_FOUND when nothing but a torn tail was
 * skipped — a torn tail is an append cut short or still under way, never one that resolved, so no tombstone
 * points into it — and BR_ERR_INTEGRITY when bytes before the last whole record are damaged: the item may have
 * been there, and "not found" would be a claim the reader cannot make.
 * @throws ArchiveError BR_ERR_ARCHIVE_NOT_FOUND or BR_ERR_INTEGRITY
 */
export function findArchivedItem(decoded: DecodedArchive, itemId: string, path: string): ArchiveRecord {
  const record = decoded.records.findLast((entry) => entry.itemId === itemId);
  if (record) return record;
  const damaged = decoded.skipped.filter((region) => region.offset < decoded.validBytes);
  if (damaged.length === 0) {
    throw new ArchiveError('BR_ERR_ARCHIVE_NOT_FOUND', path, `no record for item ${itemId} in ${path}`);
  }
  const bytes = damaged.reduce((sum, region) => sum + region.bytes, 0);
  throw new ArchiveError(
    'BR_ERR_INTEGRITY',
    path,
    `no whole record for item ${itemId} in ${path}, which has ${bytes} damaged bytes in ${damaged.length} region(s): the item may have been there`,
  );
}

/** Reads one archive file's whole records (torn or damaged bytes skipped; see {@link decodeArchiveFile}). */
export async function readArchiveFile(path: string): Promise<ArchiveRecord[]> {
  return (await decodeArchiveFile(path)).records;
}

/**
 * Append-only archives of what eviction and compaction removed from a history: `<root>/<session>/<task>.log`.
 * Each `append` writes its records with one write on a file opened with O_APPEND and fsyncs before it resolves,
 * so a caller that tombstones after `await append(…)` never points at content that is not on disk. Several
 * stores — in one process or in several (the server and the CLI on one data dir) — may append to one file at
 * once: each append lands whole at the end of the file, and nothing ever rewrites or truncates bytes already
 * there (see `write`).
 *
 * @example
 * const archive = new ArchiveStore({ root: join(defaultStateFolder(), 'archives') });
 * const { path } = await archive.append('s1', 't1', [{ itemId: 'c1:result', kind: 'tool-result', field: 'content', content: 'log…' }]);
 * await archive.readArchive('s1', 't1'); // [{ itemId: 'c1:result', content: 'log…', … }]
 */
export class ArchiveStore implements ArchiveSink {
  readonly root: string;
  private readonly durable: boolean;
  private readonly now: () => number;
  private readonly writeChunkBytes: number;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(options: ArchiveStoreOptions) {
    if (typeof options?.root !== 'string' || options.root.length === 0) {
      throw new BarometerValidationError(
        [{ field: 'root', value: options?.root, message: 'must be a directory path' }],
        'archive options',
      );
    }
    const chunk = options.writeChunkBytes;
    if (chunk !== undefined && (!Number.isInteger(chunk) || chunk < 1)) {
      throw new BarometerValidationError(
        [{ field: 'writeChunkBytes', value: chunk, message: 'must be an integer ≥ 1', allowed: { min: 1 } }],
        'archive options',
      );
    }
    this.root = resolve(options.root);
    this.durable = options.durable ?? true;
    this.now = options.now ?? Date.now;
    this.writeChunkBytes = options.writeChunkBytes ?? Number.POSITIVE_INFINITY;
  }

  /** The file of a session's task; the ids are validated first. */
  pathFor(sessionId: string, taskId: string): string {
    const ids = parseWith(ArchiveAddressSchema, { sessionId, taskId });
    if (!ids.ok) throw new BarometerValidationError(ids.issues, 'archive id');
    return join(this.root, sessionId, `${taskId}.log`);
  }

  /** Appends entries durably and atomically per record; resolves with the file's path once fsynced. */
  async append(
    sessionId: string,
    taskId: string,
    entries: readonly ArchiveEntry[],
  ): Promise<ArchiveAppendResult> {
    const path = this.pathFor(sessionId, taskId);
    const archivedAt = new Date(this.now()).toISOString();
    const bytes = Buffer.concat(
      entries.map((entry) =>
        encodeRecord({
          sessionId,
          taskId,
          archivedAt,
          itemId: entry.itemId,
          kind: entry.kind,
          field: entry.field,
          ...(entry.json === true ? { json: true } : {}),
          content: entry.content,
        }),
      ),
    );
    // In one process appends to a file still go one at a time, so that chunked writes (crash tests) never mix.
    const previous = this.queues.get(path) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.write(path, sessionId, bytes));
    this.queues.set(path, run);
    // Forget the queue once idle, so a long-lived store does not keep one entry per file ever written.
    const forget = () => {
      if (this.queues.get(path) === run) this.queues.delete(path);
    };
    run.then(forget, forget);
    await run;
    return { path, records: entries.length };
  }

  /** Whether the archive of a session's task exists. */
  async has(sessionId: string, taskId: string): Promise<boolean> {
    try {
      await access(this.pathFor(sessionId, taskId));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Creates the (empty) archive of a session's task if it does not exist: true if this call created it. The
   * file is created with O_EXCL, so of any number of stores and processes racing for one name exactly one wins;
   * compaction reserves its `compaction-<n>` this way.
   */
  async reserve(sessionId: string, taskId: string): Promise<boolean> {
    const path = this.pathFor(sessionId, taskId);
    const directory = await this.ensureDirectory(sessionId);
    let handle: FileHandle;
    try {
      handle = await open(path, 'wx', OWNER_ONLY_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException)?.code === 'EEXIST') return false;
      throw error;
    }
    await handle.close();
    if (this.durable) await syncDirectory(directory);
    return true;
  }

  /** The records of a session's task, in the order they were appended. */
  async readArchive(sessionId: string, taskId: string): Promise<ArchiveRecord[]> {
    return (await this.#decodeInside(this.pathFor(sessionId, taskId))).records;
  }

  /** The records of a session's task and the bytes skipped as torn or damaged. */
  async inspectArchive(sessionId: string, taskId: string): Promise<DecodedArchive> {
    return this.#decodeInside(this.pathFor(sessionId, taskId));
  }

  /**
   * An archive file of this store, decoded, read only where it really lies inside the store's folder: a link planted
   * in the folder (the file, or its session folder) that leads out of it reads as no archive, and the file read is
   * the one the check resolved (no later link is followed).
   * @throws ArchiveError BR_ERR_ARCHIVE_NOT_FOUND
   */
  async #decodeInside(path: string): Promise<DecodedArchive> {
    let real: string;
    let root: string;
    try {
      [real, root] = await Promise.all([realpath(path), realpath(this.root)]);
    } catch (error) {
      if (isMissing(error)) throw new ArchiveError('BR_ERR_ARCHIVE_NOT_FOUND', path, `no archive at ${path}`);
      throw error;
    }
    if (!real.startsWith(root + sep)) {
      throw new ArchiveError(
        'BR_ERR_ARCHIVE_NOT_FOUND',
        path,
        `no archive at ${path}: it is a link to ${real}, outside the archive folder ${this.root}`,
      );
    }
    return decodeArchiveFile(real);
  }

  /**
   * The record a tombstone points at (`<path>#<item id>`), read only if the path is this store's file for a
   * valid session and task: a location taken from a history must not open arbitrary files.
   */
  async readLocation(location: string): Promise<ArchiveRecord> {
    const cut = location.indexOf('.log#');
    const path = cut === -1 ? '' : location.slice(0, cut + 4);
    const itemId = location.slice(cut + 5);
    const relative = path.startsWith(this.root + sep) ? path.slice(this.root.length + 1).split(sep) : [];
    const [sessionId, file] = relative;
    if (cut === -1 || relative.length !== 2 || !sessionId || !file) {
      throw new BarometerValidationError(
        [{ field: 'location', value: location, message: `not an archive location under ${this.root}` }],
        'archive location',
      );
    }
    return this.readItem(sessionId, file.slice(0, -'.log'.length), itemId);
  }

  /**
   * One item of a session's task archive. An item evicted twice (never by evictTask, which skips archived
   * items) resolves to its latest record.
   * @throws ArchiveError BR_ERR_ARCHIVE_NOT_FOUND (no archive, or no such item), BR_ERR_INTEGRITY (the item may
   * lie in damaged bytes; see {@link findArchivedItem})
   */
  async readItem(sessionId: string, taskId: string, itemId: string): Promise<ArchiveRecord> {
    const path = this.pathFor(sessionId, taskId);
    return findArchivedItem(await this.#decodeInside(path), itemId, path);
  }

  /** Creates `<root>/<session>` (fsyncing the new directory entries when durable); returns its path. */
  private async ensureDirectory(sessionId: string): Promise<string> {
    const directory = join(this.root, sessionId);
    const created = await mkdir(directory, { recursive: true, mode: OWNER_ONLY_FOLDER_MODE });
    if (created !== undefined && this.durable) {
      await syncDirectory(directory);
      await syncDirectory(resolve(directory, '..'));
    }
    return directory;
  }

  /**
   * Appends with O_APPEND: the kernel places each write at the end of the file at that moment, so writes from
   * other processes never overwrite one another, and a single write() to a local file is not interleaved with
   * another's. A torn record left by a killed writer is not cut off first: another process may be appending
   * right then, and to a trimmer its record in flight looks exactly like a torn one — truncating would destroy
   * a record whose append may already have resolved. Node has no flock, and a lock file left by the SIGKILLed
   * writer (the very case that tears records) would need stale-lock breaking, which cannot be made race-free
   * either. Readers resynchronise past torn bytes instead (decodeArchive), so a buried torn record costs only its
   * bytes, reported in `skipped`.
   */
  private async write(path: string, sessionId: string, bytes: Buffer): Promise<void> {
    const directory = await this.ensureDirectory(sessionId);
    let fresh = false;
    const handle = await open(path, 'a', OWNER_ONLY_FILE_MODE);
    try {
      fresh = (await handle.stat()).size === 0;
      if (this.writeChunkBytes >= bytes.length) {
        const { bytesWritten } = await handle.write(bytes, 0, bytes.length);
        // Finishing a short write with a second call could put another process's record inside this one; fail
        // instead (the partial record is skipped by readers) so that the caller keeps its content.
        if (bytesWritten !== bytes.length) {
          throw new Error(`short write to ${path}: ${bytesWritten} of ${bytes.length} bytes`);
        }
      } else {
        let written = 0;
        while (written < bytes.length) {
          const length = Math.min(bytes.length - written, this.writeChunkBytes);
          const { bytesWritten } = await handle.write(bytes, written, length);
          written += bytesWritten;
        }
      }
      if (this.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    if (fresh && this.durable) await syncDirectory(directory);
  }
}
