import { connect, type Socket } from 'node:net';

/** What one load run measured, on the client's side. */
export interface LoadFigures {
  /** Requests sent in the measured window (each waited for, however late its answer). */
  requests: number;
  /** Every answer of the run, the opening's included: what the server's CPU time over the run is divided by. */
  answered: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  /** Connections that failed (refused, reset, closed by the server, or an answer that could not be read). */
  socketErrors: number;
  /**
   * The opening: every connection opened at the same instant, each sending its first request as soon as it is
   * connected; the time until the last of them had its first answer, and the median first answer.
   */
  openingMs: number;
  firstAnswerP50Ms: number;
}

export interface LoadOptions {
  port: number;
  /** Paths to POST to, taken in turn by each connection. */
  paths: string[];
  body: string;
  connections: number;
  /** The measured window, after every connection had its first answer. */
  seconds: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * A closed-loop HTTP/1.1 load: `connections` keep-alive connections, each sending its next POST as soon as the
 * previous answer is read. It runs in two phases, reported apart because they measure different things:
 *
 * - **the opening**: every connection is opened at once and sends its first request. Node's event loop (libuv ≥
 *   1.45, https://github.com/libuv/libuv/pull/3696) accepts one new connection per loop turn, and each turn also
 *   answers every connection already accepted, so the last of N simultaneous connections waits about
 *   N²/2 × (server CPU per request): a cost of any Node server, which the baseline shows in the same run;
 * - **the measured window**: `seconds` on the connections once they are all open, every request's latency
 *   recorded as it was (no correction), as a fleet of agents holding keep-alive connections feels it.
 *
 * wrk (used here before) corrects its latencies for coordinated omission and opens its connections inside the
 * measured window, so each slow first answer of the opening became dozens of samples: its p99 at 200 connections
 * measured the opening, not the requests.
 */
export async function httpLoad(options: LoadOptions): Promise<LoadFigures> {
  const { port, paths, body, connections, seconds } = options;
  const requests = paths.map((path) =>
    Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    ),
  );
  const start = performance.now();
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  const latencies: number[] = [];
  const firstAnswers: number[] = [];
  let non2xx = 0;
  let answeredTotal = 0;
  let socketErrors = 0;
  let stopping = false;
  const sockets: Socket[] = [];

  let allOpen!: () => void;
  const opened = new Promise<void>((resolve) => {
    allOpen = resolve;
  });
  let closedCount = 0;
  let allClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    allClosed = resolve;
  });

  /** A connection's first answer (or its end without one): the window opens once every connection had it. */
  const firstAnswered = (now: number) => {
    firstAnswers.push(now - start);
    if (firstAnswers.length === connections) {
      windowStart = now;
      windowEnd = now + seconds * 1000;
      allOpen();
    }
  };

  for (let index = 0; index < connections; index++) {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true });
    sockets.push(socket);
    let next = index % requests.length;
    let sentAt = 0;
    let answered = 0;
    let pending: Buffer | undefined;
    const send = () => {
      if (stopping || performance.now() >= windowEnd) {
        socket.end();
        return;
      }
      sentAt = performance.now();
      socket.write(requests[next]!);
      next = (next + 1) % requests.length;
    };
    const onAnswer = (status: number) => {
      const now = performance.now();
      answeredTotal++;
      if (status < 200 || status > 299) non2xx++;
      if (answered++ === 0) firstAnswered(now);
      else if (sentAt >= windowStart && sentAt < windowEnd) {
        latencies.push(now - sentAt);
      }
      send();
    };
    socket.on('connect', send);
    socket.on('data', (chunk: Buffer) => {
      let data = pending ? Buffer.concat([pending, chunk]) : chunk;
      pending = undefined;
      for (;;) {
        const headerEnd = data.indexOf(HEADER_END);
        if (headerEnd < 0) break;
        const head = data.toString('latin1', 0, headerEnd);
        const length = /\r\ncontent-length: *(\d+)/i.exec(head);
        if (!length) {
          socketErrors++;
          socket.destroy();
          return;
        }
        const end = headerEnd + 4 + Number(length[1]);
        if (data.length < end) break;
        onAnswer(Number(head.slice(9, 12)));
        data = data.subarray(end);
      }
      if (data.length > 0) pending = data;
    });
    socket.on('error', () => {
      socketErrors++;
    });
    socket.on('close', () => {
      // Never answered: counted as open so that the run does not wait for it.
      if (answered === 0) firstAnswered(performance.now());
      if (++closedCount === connections) allClosed();
    });
  }
  // A server that never answers some connection: give up after the window plus 30 s.
  const giveUp = setTimeout(
    () => {
      stopping = true;
      for (const socket of sockets) socket.destroy();
    },
    (seconds + 30) * 1000,
  );
  await opened;
  await closed;
  clearTimeout(giveUp);
  latencies.sort((a, b) => a - b);
  firstAnswers.sort((a, b) => a - b);
  const at = (values: number[], share: number) =>
    values.length === 0
      ? Number.NaN
      : values[Math.min(values.length - 1, Math.floor(share * values.length))]!;
  return {
    requests: latencies.length,
    answered: answeredTotal,
    rps: latencies.length / seconds,
    p50Ms: at(latencies, 0.5),
    p99Ms: at(latencies, 0.99),
    maxMs: latencies.at(-1) ?? Number.NaN,
    non2xx,
    socketErrors,
    openingMs: firstAnswers.at(-1) ?? Number.NaN,
    firstAnswerP50Ms: at(firstAnswers, 0.5),
  };
}
