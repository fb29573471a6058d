import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import {
  createLineLogReader,
  LINE_LOG_FORMATS,
  type LineLogFormat,
} from '../usage/create-line-log-reader.js';
import { sniffLog } from '../usage/detect-log-format.js';
import type { SessionCall, SessionLog } from '../usage/session-log.js';

/** How much of a log's end is read first, and at most. @default 64 KiB, 8 MiB */
export const DEFAULT_TAIL_BYTES = 64 * 1024;
export const DEFAULT_MAX_TAIL_BYTES = 8 * 1024 * 1024;

export interface LogTailOptions {
  /** The log's format; detected from the tail's records when absent. */
  format?: LineLogFormat;
  /** @default 65536 */
  initialBytes?: number;
  /** The most it reads before giving up on finding a call. @default 8388608 */
  maxBytes?: number;
}

/** What the end of a log says: its last call (the context the agent's last request carried). */
export interface LogTail {
  format: LineLogFormat;
  /** The last call in the part read, or undefined when none was found within `maxBytes`. */
  lastCall: SessionCall | undefined;
  /** The calls and compactions of the part read (not of the whole log unless `wholeFile`). */
  log: SessionLog;
  /** Bytes read from the end, and whether that was the whole file. */
  bytesRead: number;
  wholeFile: boolean;
}

function isLineFormat(format: string | undefined): format is LineLogFormat {
  return (LINE_LOG_FORMATS as readonly string[]).includes(format ?? '');
}

/**
 * Reads the end of an agent's log (Claude Code transcript, Codex rollout, Gemini CLI recording) for its last
 * call, without reading the whole file: 64 KiB first, four times more while no call of the main conversation is
 * in what was read, up to `maxBytes`. A torn line at the cut (or still being written at the end) is skipped.
 * Answers undefined when the file cannot be read or is not a log of those agents.
 */
export function readLogTail(path: string, options: LogTailOptions = {}): LogTail | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_TAIL_BYTES;
    let chunk = Math.min(options.initialBytes ?? DEFAULT_TAIL_BYTES, maxBytes);
    for (;;) {
      const start = Math.max(0, size - chunk);
      const buffer = Buffer.alloc(size - start);
      let read = 0;
      while (read < buffer.length) {
        const count = readSync(fd, buffer, read, buffer.length - read, start + read);
        if (count === 0) break;
        read += count;
      }
      let text = buffer.subarray(0, read).toString('utf8');
      // The first line of a cut is a fragment of a record: drop it.
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
      const format = options.format ?? sniffLog(text).format;
      if (!isLineFormat(format)) {
        if (start === 0 || chunk >= maxBytes) return undefined;
        chunk = Math.min(chunk * 4, maxBytes);
        continue;
      }
      const reader = createLineLogReader(format);
      const lines = text.split('\n');
      for (let index = 0; index < lines.length; index++) {
        const line = lines[index]!;
        if (line.trim() !== '') reader.line(line, index + 1);
      }
      const wholeFile = start === 0;
      // Only the main conversation's calls count while part of the file is unread: a subagent's sidechain calls
      // at the end of a transcript are not the context of the agent the user talks to.
      if (reader.builder.calls.length > 0 || wholeFile || chunk >= maxBytes) {
        const log = reader.build();
        const calls = wholeFile ? log.calls : reader.builder.calls;
        return { format, lastCall: calls.at(-1), log, bytesRead: read, wholeFile };
      }
      chunk = Math.min(chunk * 4, maxBytes);
    }
  } finally {
    closeSync(fd);
  }
}
