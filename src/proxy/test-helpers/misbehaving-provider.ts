import { createServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * One step of an answer, written on the raw socket: bytes, a pause, or the end of the connection — a clean end
 * (`end`: FIN after the answer is whole), a close (FIN before it is), a reset (RST), or silence (the connection
 * stays open and nothing more comes).
 */
export type Step =
  | { write: string }
  | { pause: number }
  | { fail: 'reset' | 'close' | 'silence' }
  | { end: true };

/** What the provider did with one request: the request's head, the bytes it answered, when it failed. */
export interface Exchange {
  /** The request's head as received (request line and headers), lower-cased header names. */
  headers: Record<string, string>;
  /** Every byte it wrote on the socket for this answer. */
  written: string;
  /** `performance.now()` when it reset, closed or went silent (after its last write); undefined if none. */
  failedAt?: number;
  /** `performance.now()` when its socket closed (the proxy gave up on it, or after a failure). */
  closedAt?: number;
}

export interface MisbehavingProvider {
  /** `http://127.0.0.1:<port>` */
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

function headEnd(buffer: Buffer): number {
  return buffer.indexOf('\r\n\r\n');
}

function parseHead(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** The length of a whole request at the start of `buffer` (head and body), or undefined until it has all come. */
function requestLength(buffer: Buffer): number | undefined {
  const end = headEnd(buffer);
  if (end < 0) return undefined;
  const headers = parseHead(buffer.subarray(0, end).toString('latin1'));
  const start = end + 4;
  if (headers['transfer-encoding']?.includes('chunked')) {
    const last = buffer.indexOf('0\r\n\r\n', start);
    return last < 0 ? undefined : last + 5;
  }
  const length = start + Number(headers['content-length'] ?? 0);
  return buffer.length >= length ? length : undefined;
}

async function play(socket: Socket, steps: readonly Step[], exchange: Exchange): Promise<boolean> {
  for (const step of steps) {
    if ('write' in step) {
      exchange.written += step.write;
      socket.write(step.write);
      // Each write its own turn (and so, on the loopback, its own segment), as a provider's events come.
      await new Promise((resolve) => setImmediate(resolve));
    } else if ('pause' in step) await new Promise((resolve) => setTimeout(resolve, step.pause));
    else if ('end' in step) return true;
    else {
      exchange.failedAt = performance.now();
      if (step.fail === 'reset') socket.resetAndDestroy();
      else if (step.fail === 'close') socket.end();
      return false;
    }
  }
  return true;
}

/**
 * A provider on raw sockets (127.0.0.1, a free port) that answers each request with the steps `script` gives for
 * it — a well-formed answer, or one that breaks the way real connections break: reset after the headers, closed
 * in the middle of an event or a chunk, shorter than its content-length, silent. Requests on one connection are
 * answered in turn while each answer ends cleanly.
 */
export async function startMisbehavingProvider(
  script: (headers: Record<string, string>) => readonly Step[],
): Promise<MisbehavingProvider> {
  const exchanges: Exchange[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    let received = Buffer.alloc(0);
    let current: Exchange | undefined;
    let busy = false;
    socket.on('close', () => {
      sockets.delete(socket);
      if (current) current.closedAt = performance.now();
    });
    socket.on('error', () => {});
    const next = async (): Promise<void> => {
      const length = busy ? undefined : requestLength(received);
      if (length === undefined) return;
      busy = true;
      const head = received.subarray(0, headEnd(received)).toString('latin1');
      received = received.subarray(length);
      const exchange: Exchange = { headers: parseHead(head), written: '' };
      current = exchange;
      exchanges.push(exchange);
      const whole = await play(socket, script(exchange.headers), exchange);
      if (!whole) return;
      busy = false;
      await next();
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      void next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP/1.1 chunk of `text` (its length in hex, the bytes, CRLF). */
export function chunk(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
}

/** The status line and headers of an answer, ending with the blank line. */
export function head(headers: Record<string, string>, status = '200 OK'): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status}\r\n${lines.join('')}\r\n`;
}
