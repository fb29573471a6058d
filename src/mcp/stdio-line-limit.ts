import { Transform, type TransformCallback } from 'node:stream';

/** The MCP SDK's own limit on a stdio message (its `ReadBuffer`'s default `maxBufferSize`): 10 MiB. */
export const STDIO_MESSAGE_LIMIT_BYTES = 10 * 1024 * 1024;

/** What is kept of each end of a message over the limit, to find its JSON-RPC id. */
const EDGE_BYTES = 512;

const ID = '(-?\\d+|"(?:[^"\\\\]|\\\\.)*")';
/** `{"jsonrpc":"2.0","id":…` at a message's start, or `…"id":…}` at its end (the SDK's client writes it last). */
const ID_AT_START = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID}`);
const ID_AT_END = new RegExp(`"id"\\s*:\\s*${ID}\\s*\\}\\s*$`);

/** The JSON-RPC id of a message from its first and last bytes; null when neither shows one. */
export function idOfEdges(head: string, tail: string): string | number | null {
  const found = ID_AT_END.exec(tail) ?? ID_AT_START.exec(head);
  if (!found?.[1]) return null;
  try {
    return JSON.parse(found[1]) as string | number;
  } catch {
    return null;
  }
}

/**
 * Passes newline-delimited messages through, and drops every line over `limitBytes` as it streams, keeping only its
 * edges: `onOversize` gets its JSON-RPC id (null if none shows) and size, once the line has ended. The MCP SDK's
 * stdio transport closes itself on a message over its buffer's limit, and `barometer mcp` then exited with code 0
 * (issue 40): the agent lost its tools for the session. Behind this stream the SDK never sees such a line.
 */
export class StdioLineLimit extends Transform {
  readonly #limit: number;
  readonly #onOversize: (id: string | number | null, bytes: number) => void;
  #lineBytes = 0;
  #dropping = false;
  #head = '';
  #tail = Buffer.alloc(0);
  #pending: Buffer[] = [];

  constructor(limitBytes: number, onOversize: (id: string | number | null, bytes: number) => void) {
    super();
    this.#limit = limitBytes;
    this.#onOversize = onOversize;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(0x0a, from);
      const end = newline === -1 ? chunk.length : newline;
      this.#take(chunk.subarray(from, end));
      if (newline === -1) break;
      this.#endLine();
      from = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.#dropping || this.#pending.length > 0) this.#endLine(false);
    done();
  }

  /** A piece of the current line. */
  #take(piece: Buffer): void {
    this.#lineBytes += piece.length;
    if (!this.#dropping && this.#lineBytes > this.#limit) {
      this.#dropping = true;
      const kept = Buffer.concat(this.#pending);
      this.#head = kept.subarray(0, EDGE_BYTES).toString('utf8');
      this.#pending = [];
      this.#tail = kept.subarray(Math.max(0, kept.length - EDGE_BYTES));
    }
    if (this.#dropping) {
      const joined = Buffer.concat([this.#tail, piece]);
      this.#tail = joined.subarray(Math.max(0, joined.length - EDGE_BYTES));
    } else if (piece.length > 0) this.#pending.push(piece);
  }

  #endLine(newline = true): void {
    if (this.#dropping) this.#onOversize(idOfEdges(this.#head, this.#tail.toString('utf8')), this.#lineBytes);
    else {
      for (const piece of this.#pending) this.push(piece);
      if (newline) this.push(Buffer.from('\n'));
    }
    this.#pending = [];
    this.#lineBytes = 0;
    this.#dropping = false;
    this.#head = '';
    this.#tail = Buffer.alloc(0);
  }
}

/** The JSON-RPC error answer to a message over the limit (-32600, Invalid Request), with barometer's code. */
export function oversizeAnswer(id: string | number | null, bytes: number, limitBytes: number): string {
  return `${JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      code: -32600,
      message: `message of ${bytes} bytes is over the limit of ${limitBytes} bytes of barometer mcp on stdio; it was not read`,
      data: { code: 'BR_ERR_BODY_TOO_LARGE', limit: limitBytes },
    },
  })}\n`;
}
