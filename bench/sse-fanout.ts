import { type ChildProcess, fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { httpLoad, type LoadFigures } from './http-load.js';
import { median, USAGE_BODY, type UsageServer } from './usage-http.js';

const SUBSCRIBERS = fileURLToPath(new URL('./sse-subscribers.ts', import.meta.url));

interface Closed {
  connected: number;
  refused: number;
  failed: number;
  stillOpen: number;
  bytes: number;
  bytesSinceReady: number;
}

/** Event-stream subscribers in a child process, connected and answered, until `close()`. */
async function subscribe(
  url: string,
  count: number,
  lifetimeMs: number,
): Promise<{ child: ChildProcess; close: () => Promise<Closed> }> {
  const child = fork(SUBSCRIBERS, [url, String(count), String(lifetimeMs)], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  try {
    const ready = await new Promise<{ connected: number; refused: number; failed: number }>(
      (resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`subscribers not connected within 30 s`)), 30_000);
        child.on(
          'message',
          (message: { type: string; connected: number; refused: number; failed: number }) => {
            if (message.type !== 'ready') return;
            clearTimeout(timer);
            resolve(message);
          },
        );
        child.once('exit', (code) => reject(new Error(`subscribers exited with ${code}`)));
      },
    );
    if (ready.connected !== count)
      throw new Error(
        `${ready.connected} of ${count} subscribers connected (${ready.refused} refused, ${ready.failed} failed)`,
      );
  } catch (error) {
    await kill();
    throw error;
  }
  const close = async () => {
    try {
      const closed = await new Promise<Closed>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('subscribers did not report within 10 s')), 10_000);
        child.on('message', (message: Closed & { type: string }) => {
          if (message.type !== 'closed') return;
          clearTimeout(timer);
          resolve(message);
        });
        child.send('close');
      });
      return closed;
    } finally {
      await kill();
    }
  };
  return { child, close };
}

export interface FanOutFigures {
  medianWithout: number;
  medianWith: number;
  medianRatio: number;
  subscribers: number;
  /** Streams still open when each round ended, the fewest over the rounds. */
  fewestStillOpen: number;
  /** Bytes the subscribers received while the load ran, over every round with subscribers. */
  bytesDuringLoad: number;
  /** Bytes of the first answers (the snapshot each stream starts with) in the last round, all streams together. */
  bytesAtConnect: number;
  /** Seconds of load with subscribers, over every round. */
  loadedSeconds: number;
  socketErrors: number;
}

/**
 * `POST /api/v1/sessions/:id/usage` throughput with `subscribers` event-stream clients reading `streamPath`,
 * against the same server with none, in alternating rounds; the median of the per-round ratios is the figure.
 * The subscribers connect afresh for each round (in a child process of their own) and are closed after it.
 */
export async function benchUsageFanOut(
  server: UsageServer,
  streamPath: string,
  subscribers = 500,
  seconds = 3,
  rounds = 5,
): Promise<FanOutFigures> {
  const { port, usagePaths } = server;
  const without: number[] = [];
  const withSubscribers: number[] = [];
  const ratios: number[] = [];
  let fewestStillOpen = subscribers;
  let bytesDuringLoad = 0;
  let bytesAtConnect = 0;
  let socketErrors = 0;
  const load = () => httpLoad({ port, paths: usagePaths, body: USAGE_BODY, seconds, connections: 50 });
  const loaded = async () => {
    const { close } = await subscribe(
      `http://127.0.0.1:${port}${streamPath}`,
      subscribers,
      (seconds + 60) * 1000,
    );
    let figures: LoadFigures | undefined;
    try {
      figures = await load();
    } finally {
      const closed = await close();
      fewestStillOpen = Math.min(fewestStillOpen, closed.stillOpen);
      bytesDuringLoad += closed.bytesSinceReady;
      bytesAtConnect = closed.bytes - closed.bytesSinceReady;
    }
    // The server sees the sockets close a moment later; the next round without subscribers must not pay for them.
    await sleep(300);
    return figures;
  };
  for (let round = 1; round <= rounds; round++) {
    const first = round % 2 === 1;
    const a = first ? await load() : await loaded();
    const b = first ? await loaded() : await load();
    const [bare, loadedFigures] = first ? [a, b] : [b, a];
    if (bare.non2xx || loadedFigures.non2xx)
      throw new Error(`non-2xx answers: without ${bare.non2xx}, with subscribers ${loadedFigures.non2xx}`);
    socketErrors += bare.socketErrors + loadedFigures.socketErrors;
    without.push(bare.rps);
    withSubscribers.push(loadedFigures.rps);
    ratios.push(loadedFigures.rps / bare.rps);
    process.stderr.write(
      `  round ${round}: without ${Math.round(bare.rps)} req/s, with ${subscribers} subscribers ${Math.round(loadedFigures.rps)} req/s, ratio ${(loadedFigures.rps / bare.rps).toFixed(3)}\n`,
    );
  }
  return {
    medianWithout: median(without),
    medianWith: median(withSubscribers),
    medianRatio: median(ratios),
    subscribers,
    fewestStillOpen,
    bytesDuringLoad,
    bytesAtConnect,
    loadedSeconds: rounds * seconds,
    socketErrors,
  };
}
