import { createHash } from 'node:crypto';
import { access, type FileHandle, mkdir, open, readFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import {
  ArchiveAddressSchema,
  type ArchiveAppendResult,
  type ArchiveEntry,
  type ArchiveSink,
} from '../compaction/archive-sink.js';
import type { ErrorCode } from '../errors/codes.js';
import { HeadroomValidationError, parseWith } from '../errors/validation.js';

/**
 * Record framing: `HRA1 <payload bytes> <sha256 of payload, hex>\n<payload>\n`. The length finds the record's
 * end, the hash proves it whole: a write cut short by a kill leaves a record whose declared end is past the end
 * of the file (or a header without its newline), which readers skip.
 */
const MAGIC = 'HRA1';
const HEADER = /^HRA1 (\d{1,15}) ([0-9a-f]{64})$/;
const MAX_HEADER_BYTES = MAGIC.length + 1 + 15 + 1 + 64 + 1;
const NEWLINE = 0x0a;

/** One archived entry as read back. */
export interface ArchiveRecord extends ArchiveEntry {
  sessionId: string;
  taskId: string;
  /** ISO 8601 time of the append. */
  archivedAt: string;
}

/** A missing archive, or one whose bytes do not match their hashes (other than a torn last record). */
export class ArchiveError extends Error {
  readonly code: Extract<ErrorCode, 'HR_ERR_ARCHIVE_NOT_FOUND' | 'HR_ERR_INTEGRITY'>;
  readonly path: string;
  constructor(code: ArchiveError['code'], path: string, message: string) {
    super(message);
    this.name = 'ArchiveError';
    this.code = code;
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
   * Bytes per write call. By default an append is one write call, which a kill on Linux rarely cuts; crash
   * tests set a few KiB so that a kill lands mid-record and the torn-tail handling is exercised for real.
   */
  writeChunkBytes?: number;
}

/** What {@link decodeArchive} found in a file's bytes. */
export interface DecodedArchive {
  records: ArchiveRecord[];
  /** Bytes up to the end of the last whole record. */
  validBytes: number;
  /** True when bytes after the last whole record were skipped (a write cut short). */
  tornTail: boolean;
}

function hash(payload: Uint8Array): string {
  return createHash('sha256').update(payload).digest('hex');
}

export function encodeRecord(record: ArchiveRecord): Buffer {
  // JSON.stringify escapes lone surrogates and control characters, so any JS string comes back identical.
  const payload = Buffer.from(JSON.stringify(record), 'utf8');
  return Buffer.concat([
    Buffer.from(`${MAGIC} ${payload.length} ${hash(payload)}\n`, 'latin1'),
    payload,
    Buffer.from('\n', 'latin1'),
  ]);
}

interface Frame {
  /** Offset of the payload, its length and hash; `end` is the offset after the trailing newline. */
  start: number;
  length: number;
  digest: string;
  end: number;
}

/** Reads a header at `offset`: a frame, 'torn' if the bytes end inside it, or 'corrupt'. */
function readFrame(bytes: Uint8Array, offset: number, fileSize: number): Frame | 'torn' | 'corrupt' {
  const window = bytes.subarray(0, Math.min(bytes.length, MAX_HEADER_BYTES));
  const newline = window.indexOf(NEWLINE);
  if (newline === -1) return fileSize - offset < MAX_HEADER_BYTES ? 'torn' : 'corrupt';
  const match = HEADER.exec(Buffer.from(window.subarray(0, newline)).toString('latin1'));
  if (!match) return 'corrupt';
  const length = Number(match[1]);
  const start = offset + newline + 1;
  return { start, length, digest: match[2] as string, end: start + length + 1 };
}

/**
 * Decodes an archive file's bytes. A torn last record (cut short by a crash) is skipped and reported; damage
 * anywhere else is an {@link ArchiveError} `HR_ERR_INTEGRITY`, since it means bytes once written were changed.
 */
export function decodeArchive(bytes: Buffer, path = '<archive>'): DecodedArchive {
  const records: ArchiveRecord[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const frame = readFrame(bytes.subarray(offset), offset, bytes.length);
    if (frame === 'torn') return { records, validBytes: offset, tornTail: true };
    if (frame === 'corrupt')
      throw new ArchiveError('HR_ERR_INTEGRITY', path, `${path}: bad record header at byte ${offset}`);
    if (frame.end > bytes.length) return { records, validBytes: offset, tornTail: true };
    const payload = bytes.subarray(frame.start, frame.start + frame.length);
    if (bytes[frame.end - 1] !== NEWLINE || hash(payload) !== frame.digest) {
      // Garbage in a last record of full length is what a power loss leaves (size updated, data not): torn too.
      if (frame.end === bytes.length) return { records, validBytes: offset, tornTail: true };
      throw new ArchiveError(
        'HR_ERR_INTEGRITY',
        path,
        `${path}: record at byte ${offset} does not match its hash`,
      );
    }
    try {
      records.push(JSON.parse(payload.toString('utf8')) as ArchiveRecord);
    } catch {
      // The hash matched, so these are the bytes once written: not an archive record at all.
      throw new ArchiveError('HR_ERR_INTEGRITY', path, `${path}: record at byte ${offset} is not JSON`);
    }
    offset = frame.end;
  }
  return { records, validBytes: offset, tornTail: false };
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

/** Reads and decodes one archive file (torn last record skipped). */
export async function readArchiveFile(path: string): Promise<ArchiveRecord[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if (isMissing(error)) throw new ArchiveError('HR_ERR_ARCHIVE_NOT_FOUND', path, `no archive at ${path}`);
    throw error;
  }
  return decodeArchive(bytes, path).records;
}

/**
 * Append-only archives of what eviction and compaction removed from a history: `<root>/<session>/<task>.log`.
 * Each `append` writes its records with one write and fsyncs before it resolves, so a caller that tombstones
 * after `await append(…)` never points at content that is not on disk. One store instance per archive root and
 * process: appends to one file are serialized here, not across processes.
 *
 * @example
 * const archive = new ArchiveStore({ root: '.headroom/archives' });
 * const { path } = await archive.append('s1', 't1', [{ itemId: 'c1:result', kind: 'tool-result', field: 'content', content: 'log…' }]);
 * await archive.readArchive('s1', 't1'); // [{ itemId: 'c1:result', content: 'log…', … }]
 */
export class ArchiveStore implements ArchiveSink {
  readonly root: string;
  private readonly durable: boolean;
  private readonly now: () => number;
  private readonly writeChunkBytes: number;
  /** Files whose tail this instance has checked (or written whole): no torn bytes to trim before appending. */
  private readonly clean = new Set<string>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(options: ArchiveStoreOptions) {
    if (typeof options?.root !== 'string' || options.root.length === 0) {
      throw new HeadroomValidationError(
        [{ field: 'root', value: options?.root, message: 'must be a directory path' }],
        'archive options',
      );
    }
    const chunk = options.writeChunkBytes;
    if (chunk !== undefined && (!Number.isInteger(chunk) || chunk < 1)) {
      throw new HeadroomValidationError(
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
    if (!ids.ok) throw new HeadroomValidationError(ids.issues, 'archive id');
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
          content: entry.content,
        }),
      ),
    );
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

  /** The records of a session's task, in the order they were appended. */
  async readArchive(sessionId: string, taskId: string): Promise<ArchiveRecord[]> {
    return readArchiveFile(this.pathFor(sessionId, taskId));
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
      throw new HeadroomValidationError(
        [{ field: 'location', value: location, message: `not an archive location under ${this.root}` }],
        'archive location',
      );
    }
    const records = await this.readArchive(sessionId, file.slice(0, -'.log'.length));
    // An item evicted twice (never by evictTask, which skips archived items) resolves to its latest record.
    const record = records.findLast((entry) => entry.itemId === itemId);
    if (!record)
      throw new ArchiveError('HR_ERR_ARCHIVE_NOT_FOUND', path, `no record for item ${itemId} in ${path}`);
    return record;
  }

  private async write(path: string, sessionId: string, bytes: Buffer): Promise<void> {
    const directory = join(this.root, sessionId);
    const created = await mkdir(directory, { recursive: true });
    if (created !== undefined && this.durable) {
      await syncDirectory(directory);
      await syncDirectory(resolve(directory, '..'));
    }
    let fresh = false;
    const handle = await open(path, 'a+');
    try {
      const { size } = await handle.stat();
      fresh = size === 0;
      if (!this.clean.has(path) && size > 0) await this.trimTornTail(handle, path, size);
      let written = 0;
      while (written < bytes.length) {
        const length = Math.min(bytes.length - written, this.writeChunkBytes);
        const { bytesWritten } = await handle.write(bytes, written, length);
        written += bytesWritten;
      }
      if (this.durable) await handle.sync();
      this.clean.add(path);
    } catch (error) {
      // A failed write may have left part of a record: check the tail again before the next append.
      this.clean.delete(path);
      throw error;
    } finally {
      await handle.close();
    }
    if (fresh && this.durable) await syncDirectory(directory);
  }

  /**
   * A process killed mid-append leaves a torn record at the end; appending after it would bury it mid-file,
   * where it reads as corruption. So before the first append, walk the headers (no payload reads except the
   * last record's hash) and cut the file back to its last whole record.
   */
  private async trimTornTail(handle: FileHandle, path: string, size: number): Promise<void> {
    const header = Buffer.alloc(MAX_HEADER_BYTES);
    let offset = 0;
    let last: Frame | undefined;
    let lastOffset = 0;
    let validEnd = 0;
    while (offset < size) {
      const { bytesRead } = await handle.read(header, 0, MAX_HEADER_BYTES, offset);
      const frame = readFrame(header.subarray(0, bytesRead), offset, size);
      if (frame === 'corrupt')
        throw new ArchiveError('HR_ERR_INTEGRITY', path, `${path}: bad record header at byte ${offset}`);
      if (frame === 'torn' || frame.end > size) break;
      last = frame;
      lastOffset = offset;
      validEnd = frame.end;
      offset = frame.end;
    }
    if (last && validEnd === size) {
      const payload = Buffer.alloc(last.length + 1);
      await handle.read(payload, 0, payload.length, last.start);
      const whole =
        payload[last.length] === NEWLINE && hash(payload.subarray(0, last.length)) === last.digest;
      if (!whole) validEnd = lastOffset;
    }
    if (validEnd < size) {
      await handle.truncate(validEnd);
      if (this.durable) await handle.sync();
    }
  }
}
