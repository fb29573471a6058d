/**
 * The clients of `npm run bench -- scale`, in a worker thread of their own: a client sharing the service's event
 * loop (and heap) adds its own turns and collections to every latency it measures — parsing a 160 KB page of
 * sessions, undici's work for each request — where a real client runs in another process.
 * Tasks: `probe` asks /healthz every 10 ms until told to stop; `list` reads every page of the sessions, 100 a page,
 * following the cursor. A listing's probe runs in a worker of its own: in the lister's thread, the wait for each
 * /healthz answer would include the parsing of the page read meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';

/** The latencies of a /healthz asked every 10 ms: the worst, and how many of how many took over 50 ms. */
export interface ProbeFigures {
  maxMs: number;
  over50: number;
  count: number;
}

/** The latency of each page of one listing of every session. */
export interface ListingFigures {
  pages: number;
  /** The first page (after a restart, it waits for the folder's listing). */
  firstPageMs: number;
  /** The median and the worst of the others. */
  pageP50Ms: number;
  pageMaxMs: number;
}

export interface ClientTask {
  task: 'probe' | 'list';
  url: string;
}

/** Asks /healthz every 10 ms until stopped. */
function probe(url: string): () => Promise<ProbeFigures> {
  let probing = true;
  const figures: ProbeFigures = { maxMs: 0, over50: 0, count: 0 };
  const done = (async () => {
    while (probing) {
      const began = performance.now();
      await (await fetch(`${url}/healthz`)).text();
      const ms = performance.now() - began;
      figures.maxMs = Math.max(figures.maxMs, ms);
      figures.count++;
      if (ms > 50) figures.over50++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return async () => {
    probing = false;
    await done;
    return figures;
  };
}

/** Every session listed over HTTP, 100 a page, following the cursor. */
async function listEveryPage(url: string): Promise<ListingFigures> {
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
  const firstPageMs = pageTimes.shift() ?? 0;
  pageTimes.sort((a, b) => a - b);
  return {
    pages: pageTimes.length + 1,
    firstPageMs,
    pageP50Ms: pageTimes[Math.floor(pageTimes.length / 2)] ?? 0,
    pageMaxMs: pageTimes[pageTimes.length - 1] ?? 0,
  };
}

if (parentPort) {
  const port = parentPort;
  const { task, url } = workerData as ClientTask;
  // Not counted: the first request of a fresh thread compiles undici's code and opens its connection (~100 ms here).
  await (await fetch(`${url}/healthz`)).text();
  if (task === 'list') port.postMessage(await listEveryPage(url));
  else {
    const stop = probe(url);
    port.once('message', async () => port.postMessage(await stop()));
  }
}
