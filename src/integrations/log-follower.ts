import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** How much a follower reads at once. @default 1 MiB */
export const FOLLOW_CHUNK_BYTES = 1024 * 1024;

/** What one look at a followed file found. */
export interface FollowResult {
  /** Complete lines appended since the last look (without their newline), in order. */
  lines: string[];
  /**
   * The file was replaced (another inode at the path) or truncated (smaller than what was read): the lines are
   * read from its start again, and whatever was built from the old content should start afresh.
   */
  restarted: boolean;
  /** The file is gone (deleted or moved away). */
  gone: boolean;
}

/**
 * Follows one append-only log file as a writer adds to it: each `read()` returns the complete lines added since the
 * previous one, reading only the new bytes (the offset is remembered), keeping a last line that has no newline yet
 * until it is completed, and decoding UTF-8 across reads so that a character split between two writes is never
 * mangled. A file replaced at the same path (rotation) or truncated is read again from its start.
 */
export class LogFollower {
  #offset = 0;
  #inode: number | undefined;
  #partial = '';
  #decoder = new StringDecoder('utf8');

  constructor(readonly path: string) {}

  /** Bytes consumed so far (complete lines and the pending partial line). */
  get offset(): number {
    return this.#offset;
  }

  /** The text after the last newline, waiting for the rest of its line. */
  get partial(): string {
    return this.#partial;
  }

  /** Reads what was appended since the last call. */
  read(): FollowResult {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { lines: [], restarted: false, gone: true };
      throw error;
    }
    try {
      const info = fstatSync(fd);
      let restarted = false;
      if ((this.#inode !== undefined && info.ino !== this.#inode) || info.size < this.#offset) {
        this.#restart();
        restarted = true;
      }
      this.#inode = info.ino;
      const lines: string[] = [];
      const buffer = Buffer.allocUnsafe(Math.min(FOLLOW_CHUNK_BYTES, Math.max(1, info.size - this.#offset)));
      while (this.#offset < info.size) {
        const count = readSync(
          fd,
          buffer,
          0,
          Math.min(buffer.length, info.size - this.#offset),
          this.#offset,
        );
        if (count === 0) break;
        this.#offset += count;
        this.#take(this.#decoder.write(buffer.subarray(0, count)), lines);
      }
      return { lines, restarted, gone: false };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Ends a last line that never got its newline (the writer stopped): it is returned when it parses as JSON, as a
   * whole-file reader would read it; otherwise it stays pending.
   */
  flushPartial(): string | undefined {
    const line = this.#partial.replace(/\r$/, '');
    if (line.trim() === '') return undefined;
    try {
      JSON.parse(line);
    } catch {
      return undefined;
    }
    this.#partial = '';
    return line;
  }

  /** Whether the file at the path has grown, shrunk or been replaced since the last read (cheap: one stat). */
  changed(): boolean {
    try {
      const info = statSync(this.path);
      return info.ino !== this.#inode || info.size !== this.#offset;
    } catch {
      return this.#inode !== undefined;
    }
  }

  #take(text: string, lines: string[]): void {
    if (text === '') return;
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop() ?? '';
    for (const part of parts) lines.push(part.endsWith('\r') ? part.slice(0, -1) : part);
  }

  #restart(): void {
    this.#offset = 0;
    this.#partial = '';
    this.#decoder = new StringDecoder('utf8');
  }
}
