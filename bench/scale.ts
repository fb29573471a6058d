/**
 * `npm run bench -- scale`: one instance with many sessions (issue 29, F6–F8). N sessions (100,000 by default,
 * BAROMETER_SCALE_SESSIONS to change it) are created live, each posted one usage, then listed over HTTP a page at a
 * time while another client asks /healthz every 10 ms; then the service is closed (its files written) and built
 * again on the same data dir. It reports the heap per idle session, live and restored, the latency of each list
 * page, the worst latency of the other requests during the listing, and the time from start to listening with N
 * sessions on disk. Baselines measured in the same run: the whole list built in one turn (what GET
 * /api/v1/sessions did before), and the same service started on an empty data dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/server/app.js';
import type { MemoryStateStore } from '../src/store/memory-state-store.js';

export interface ScaleFigures {
  sessions: number;
  liveBytesPerSession: number;
  restoredBytesPerSession: number;
  pages: number;
  pageP50Ms: number;
  pageMaxMs: number;
  otherRequestMaxMs: number;
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

export async function benchScale(count = 100_000): Promise<ScaleFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'barometer-bench-scale-'));
  const emptyDir = await mkdtemp(join(tmpdir(), 'barometer-bench-scale-empty-'));
  try {
    const empty = await start(emptyDir);
    await empty.app.close();

    let { app, url } = await start(dataDir);
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
      // The snapshot writes in the background: let it, as a live service would between requests.
      if (index % 2000 === 1999) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const liveBytes = heap() - before;

    // The listing, page by page, while /healthz is asked every 10 ms.
    let probing = true;
    let otherMax = 0;
    const probe = (async () => {
      while (probing) {
        const began = performance.now();
        await (await fetch(`${url}/healthz`)).text();
        otherMax = Math.max(otherMax, performance.now() - began);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const pageTimes: number[] = [];
    let cursor: string | null = null;
    do {
      const began = performance.now();
      const response = await fetch(
        `${url}/api/v1/sessions?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      const page = (await response.json()) as { sessions: unknown[]; nextCursor: string | null };
      pageTimes.push(performance.now() - began);
      cursor = page.nextCursor;
    } while (cursor !== null);
    probing = false;
    await probe;
    const wholeBegan = performance.now();
    JSON.stringify({ sessions: await monitor.list() });
    const wholeListMs = performance.now() - wholeBegan;

    await app.close();
    const restarted = await start(dataDir);
    app = restarted.app;
    url = restarted.url;
    const loadBegan = performance.now();
    const restoredBefore = heap();
    await (app.barometerMonitor.store as MemoryStateStore<unknown>).ready();
    const fullyLoadedMs = restarted.listenMs + (performance.now() - loadBegan);
    const restoredBytes = heap() - restoredBefore;
    await app.close();

    pageTimes.sort((a, b) => a - b);
    return {
      sessions: count,
      liveBytesPerSession: liveBytes / count,
      restoredBytesPerSession: restoredBytes / count,
      pages: pageTimes.length,
      pageP50Ms: pageTimes[Math.floor(pageTimes.length / 2)] ?? 0,
      pageMaxMs: pageTimes[pageTimes.length - 1] ?? 0,
      otherRequestMaxMs: otherMax,
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
