/**
 * `npm run bench -- scale`: one instance with many sessions (issue 29, F6–F8). N sessions (100,000 by default,
 * BAROMETER_SCALE_SESSIONS to change it) are created live, each posted one usage, then listed over HTTP a page at a
 * time while another client asks /healthz every 10 ms; then the service is closed and built again on the same data
 * dir (its database: nothing is read at start but the count), and listed again, page by page, right after the
 * restart, the other client still asking /healthz. It reports the heap per idle session, live and after the
 * restart's listing, the latency of each list page, the worst latency of the other requests during the listings,
 * and the time from start to listening with N sessions in the database. Baselines measured in the same run: the whole
 * list built in one turn (what GET /api/v1/sessions did before), and the same service started on an empty data dir.
 * The clients run in processes of their own (scale-client.ts), as real clients do.
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/server/app.js';
import { tuneServiceProcess } from '../src/server/process-tuning.js';

import type { ClientTask, ListingFigures, ProbeFigures } from './scale-client.js';

export interface ScaleFigures {
  sessions: number;
  liveBytesPerSession: number;
  restoredBytesPerSession: number;
  /** Listed once created live (their files still being written). */
  live: ListingWithProbe;
  /** Listed right after a restart (each page read from the database's id index). */
  loading: ListingWithProbe;
  /** /healthz from listening until the listing after the restart ends. */
  otherWhileLoading: ProbeFigures;
  /** The service's side of the same time: its event loop's turns as a 2 ms timer sees them. */
  turnsWhileLoading: { maxMs: number; over50: number };
  /** The same during the listing once created live. */
  turnsWhileListingLive: { maxMs: number; over50: number };
  /** Baseline: /healthz for 5 s on the same service with no session, under the same machine load. */
  otherIdle: ProbeFigures;
  wholeListMs: number;
  listenMs: number;
  emptyListenMs: number;
  fullyLoadedMs: number;
}

function heap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.arrayBuffers;
}

async function start(dataDir: string): Promise<{ app: FastifyInstance; url: string; listenMs: number }> {
  const began = performance.now();
  const app = await buildApp({
    logLevel: 'silent',
    dataDir,
    dashboard: false,
    maxSessions: 1_000_000,
    rateLimitPerMinute: 0,
    ingestRateLimitPerMinute: 0,
    sessionTtlSeconds: 0,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const listenMs = performance.now() - began;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}`, listenMs };
}

/** A client in a process of its own (see scale-client.ts), forked and ready: `begin` starts it on a service. */
interface Client<T> {
  begin: (url: string) => void;
  /** The listing's figures once done, or the probe's once stopped. */
  figures: Promise<T>;
  stop: () => Promise<T>;
}

/**
 * Forks a client process and waits until it is up: a fork is a turn of tens of ms in the process that forks (here
 * the service's), so every client is forked before what it measures begins.
 */
function client<T>(task: ClientTask['task']): Promise<Client<T>> {
  const child = fork(fileURLToPath(new URL('./scale-client.ts', import.meta.url)), [task], {
    execArgv: ['--import', 'tsx'],
  });
  return new Promise((ready, failed) => {
    const figures = new Promise<T>((resolve, reject) => {
      child.on('message', (message) => {
        if (message === 'ready') {
          ready({
            begin: (url) => child.send({ url }),
            figures,
            stop: () => {
              child.send('stop');
              return figures;
            },
          });
          return;
        }
        resolve(message as T);
        child.kill();
      });
      child.once('exit', (code) => {
        const error = new Error(`the ${task} client exited (${code}) before its figures`);
        reject(error);
        failed(error);
      });
    });
    // Seen by whoever awaits the figures; not an unhandled rejection meanwhile.
    figures.catch(() => {});
    child.once('error', failed);
  });
}

/**
 * The event loop's longest turns, as seen by a timer every 2 ms (the time between two of its runs, over 20 ms
 * recorded): what stalls every request, whatever the client, with `--trace-gc` telling which are collections.
 */
function loopTurns(): () => { maxMs: number; over50: number } {
  const turns = { maxMs: 0, over50: 0 };
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    turns.maxMs = Math.max(turns.maxMs, now - last);
    if (now - last > 50) turns.over50++;
    if (process.env.BENCH_TURNS && now - last > 20)
      console.log(`turn ${(now - last).toFixed(1)} ms ending at ${now.toFixed(0)} ms`);
    last = now;
  }, 2);
  return () => {
    clearInterval(timer);
    return turns;
  };
}

/**
 * A listing, a /healthz asked every 10 ms meanwhile, and the worst page as the service timed it (from its request
 * event to the answer's last byte handed to the kernel): what the client's figure adds is the client's own time.
 */
export type ListingWithProbe = ListingFigures & { other: ProbeFigures; servicePageMaxMs: number };

/** Every page listed by one client while another asks /healthz every 10 ms, each in a process of its own. */
async function listEveryPage(
  app: FastifyInstance,
  url: string,
  clients: { lister: Client<ListingFigures>; probe: Client<ProbeFigures> },
): Promise<ListingWithProbe> {
  let servicePageMaxMs = 0;
  const timePage = (request: IncomingMessage, response: ServerResponse) => {
    if (!request.url?.startsWith('/api/v1/sessions?')) return;
    const began = performance.now();
    response.once('finish', () => {
      servicePageMaxMs = Math.max(servicePageMaxMs, performance.now() - began);
    });
  };
  app.server.prependListener('request', timePage);
  try {
    clients.probe.begin(url);
    clients.lister.begin(url);
    const listing = await clients.lister.figures;
    return { ...listing, other: await clients.probe.stop(), servicePageMaxMs };
  } finally {
    app.server.off('request', timePage);
  }
}

/** The clients of one listing, forked. */
async function listingClients(): Promise<{ lister: Client<ListingFigures>; probe: Client<ProbeFigures> }> {
  return { lister: await client<ListingFigures>('list'), probe: await client<ProbeFigures>('probe') };
}

/** N sessions created live (one usage each), then listed a page at a time; the service closed. */
async function createAndList(
  dataDir: string,
  count: number,
): Promise<{
  liveBytes: number;
  live: ListingWithProbe;
  turnsWhileListingLive: { maxMs: number; over50: number };
  wholeListMs: number;
  closed: WeakRef<object>;
}> {
  const { app, url } = await start(dataDir);
  const monitor = app.barometerMonitor;
  const before = heap();
  const usage = {
    usage: {
      available: true as const,
      source: 'manual' as const,
      promptTokens: 42_000,
      completionTokens: 900,
      totalTokens: 42_900,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
    },
  };
  for (let index = 0; index < count; index++) {
    const id = `bench-${String(index).padStart(6, '0')}`;
    await monitor.create({ id, model: 'claude-opus-4-6', agent: 'claude-code' });
    await monitor.postUsage(id, usage);
  }
  const liveBytes = heap() - before;

  // The listing, page by page, while /healthz is asked every 10 ms.
  const clients = await listingClients();
  const stopTurns = loopTurns();
  const live = await listEveryPage(app, url, clients);
  const turnsWhileListingLive = stopTurns();
  const wholeBegan = performance.now();
  JSON.stringify({ sessions: await monitor.list() });
  const wholeListMs = performance.now() - wholeBegan;

  await app.close();
  return { liveBytes, live, turnsWhileListingLive, wholeListMs, closed: new WeakRef(monitor) };
}

export async function benchScale(count = 100_000): Promise<ScaleFigures> {
  // V8 as `barometer serve` sets it (decision 012).
  tuneServiceProcess();
  const dataDir = await mkdtemp(join(tmpdir(), 'barometer-bench-scale-'));
  const emptyDir = await mkdtemp(join(tmpdir(), 'barometer-bench-scale-empty-'));
  try {
    const idleProbe = await client<ProbeFigures>('probe');
    const empty = await start(emptyDir);
    idleProbe.begin(empty.url);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const otherIdle = await idleProbe.stop();
    await empty.app.close();

    // In a function of its own: the live service is unreachable once closed, and collected before the restart.
    const { liveBytes, live, turnsWhileListingLive, wholeListMs, closed } = await createAndList(
      dataDir,
      count,
    );
    // Until the closed service is collected (its sockets linger a few seconds): else it is collected during the
    // restarted service's load, and those collections are counted against it.
    // (A deref keeps its target alive until the end of the task: the collection runs in the next one.)
    for (let waited = 0; closed.deref() !== undefined && waited < 30_000; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      heap();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    if (closed.deref() !== undefined) console.warn('the closed service was still in memory after 30 s');

    const loadProbe = await client<ProbeFigures>('probe');
    const clients = await listingClients();
    const restarted = await start(dataDir);
    const { app, url } = restarted;
    const loadBegan = performance.now();
    const restoredBefore = heap();
    const stopTurns = loopTurns();
    loadProbe.begin(url);
    const loading = await listEveryPage(app, url, clients);
    // Nothing to load: a session is read when asked for. What is left is the listing's own time.
    const fullyLoadedMs = restarted.listenMs + (performance.now() - loadBegan);
    const otherWhileLoading = await loadProbe.stop();
    const turnsWhileLoading = stopTurns();
    const restoredBytes = heap() - restoredBefore;
    await app.close();
    for (const listed of [live, loading]) {
      if (listed.sessions !== count)
        throw new Error(`a listing gave ${listed.sessions} of ${count} sessions`);
    }

    return {
      sessions: count,
      liveBytesPerSession: liveBytes / count,
      restoredBytesPerSession: restoredBytes / count,
      live,
      loading,
      otherWhileLoading,
      turnsWhileLoading,
      turnsWhileListingLive,
      otherIdle,
      wholeListMs,
      listenMs: restarted.listenMs,
      emptyListenMs: empty.listenMs,
      fullyLoadedMs,
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(emptyDir, { recursive: true, force: true });
  }
}
