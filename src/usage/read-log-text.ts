import { constants } from 'node:buffer';
import { createReadStream } from 'node:fs';

/**
 * The longest line a session log may hold: 64 MiB. A log line holds one message or one API answer, and no provider
 * takes a request that large (Anthropic's Messages API refuses bodies over 32 MB; barometer's own proxy and service
 * refuse bodies over 64 MiB), so a longer line is not a message the agent could have sent or received.
 */
export const LOG_LINE_LIMIT_BYTES = 64 * 1024 * 1024;

/** A log's text, and the lines left out of it (1-based, with their size): each is an empty line in `text`. */
export interface LogText {
  text: string;
  skipped: Array<{ line: number; bytes: number }>;
}

/**
 * Reads a session log as text, streaming it, leaving out every line over `LOG_LINE_LIMIT_BYTES` (an empty line takes
 * its place, so that the other lines keep their numbers): one huge line no longer makes a whole log unreadable
 * (a 1 GiB line made `replay` fail with V8's "Invalid string length", naming no file).
 * @throws Error naming the file when what is left is still longer than a string can be
 */
export async function readLogText(path: string, limitBytes = LOG_LINE_LIMIT_BYTES): Promise<LogText> {
  const kept: Buffer[] = [];
  const skipped: LogText['skipped'] = [];
  let keptBytes = 0;
  let line = 1;
  let lineBytes = 0;
  let pending: Buffer[] = [];
  const endLine = (newline: boolean) => {
    if (lineBytes > limitBytes) skipped.push({ line, bytes: lineBytes });
    else for (const piece of pending) kept.push(piece);
    if (newline) kept.push(NEWLINE);
    keptBytes += (lineBytes > limitBytes ? 0 : lineBytes) + (newline ? 1 : 0);
    pending = [];
    lineBytes = 0;
    line++;
  };
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let from = 0;
    while (from <= chunk.length) {
      const newline = chunk.indexOf(0x0a, from);
      const end = newline === -1 ? chunk.length : newline;
      lineBytes += end - from;
      // Past the limit, a line's pieces are dropped as they come: it is never held whole.
      if (lineBytes > limitBytes) pending = [];
      else if (end > from) pending.push(chunk.subarray(from, end));
      if (newline === -1) break;
      endLine(true);
      from = newline + 1;
    }
  }
  if (lineBytes > 0 || pending.length > 0) endLine(false);
  if (keptBytes > constants.MAX_STRING_LENGTH) {
    throw new Error(
      `${path}: ${keptBytes} bytes of lines under ${limitBytes} bytes each, more than one string can hold (${constants.MAX_STRING_LENGTH} characters)`,
    );
  }
  return { text: Buffer.concat(kept, keptBytes).toString('utf8'), skipped };
}

const NEWLINE = Buffer.from('\n');

/** What a reader says of the lines `readLogText` left out: `<path>:<line>: … bytes, over the limit`. */
export function skippedLineNotes(path: string, skipped: LogText['skipped']): string[] {
  return skipped.map(
    ({ line, bytes }) =>
      `${path}:${line}: a line of ${bytes} bytes, over the ${LOG_LINE_LIMIT_BYTES} a log line may hold; left out`,
  );
}
