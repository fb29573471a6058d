/**
 * The clients of `npm run bench -- scale`, each in a process of its own, as a real client runs: a client sharing the
 * service's event loop adds its own turns and collections to every latency it measures (parsing a 160 KB page of
 * sessions, undici's work for each request), and one in a worker thread still shares V8's pool of GC threads — a
 * client's collection then slowed the service's scavenges from ~10 to 23–45 ms (decision 091).
 * Tasks: `probe` asks /healthz every 10 ms until told to stop; `list` reads every page of the sessions, 100 a page,
 * following the cursor. A listing's probe runs in a process of its own: in the lister's, the wait for each
 * /healthz answer would include the parsing of the page read meanwhile.
 */

import { Agent, get } from 'node:http';

/** The latencies of a /healthz asked every 10 ms: the worst, and how many of how many took over 50 ms. */
export interface ProbeFigures {
  maxMs: number;
  over50: number;
  count: number;
}

/** The latency of each page of one listing of every session. */
export interface ListingFigures {
  pages: number;
  /** Sessions listed, each once (a repeat, or ids out of order, fails the listing). */
  sessions: number;
  /** Pages with fewer than 100 and a cursor: ended by the read budget during a background load (decision 091). */
  shortPages: number;
  /** The first page (after a restart, it waits for the folder's listing). */
  firstPageMs: number;
  /** The median and the worst of the others. */
  pageP50Ms: number;
  pageMaxMs: number;
}

export interface ClientTask {
  task: 'probe' | 'list';
}

/**
 * One /healthz over a kept-alive `node:http` connection: the lightest client Node has, so that what the probe
 * measures is the service's delay rather than its own (fetch builds a WHATWG request, response and stream for each).
 */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function healthz(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    get(`${url}/healthz`, { agent }, (response) => {
      response.once('end', resolve).once('error', reject).resume();
    }).once('error', reject);
  });
}

/** Asks /healthz every 10 ms until stopped. */
function probe(url: string): () => Promise<ProbeFigures> {
  let probing = true;
  const figures: ProbeFigures = { maxMs: 0, over50: 0, count: 0 };
  const done = (async () => {
    while (probing) {
      const began = performance.now();
      await healthz(url);
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
  let sessions = 0;
  let shortPages = 0;
  let last = '';
  do {
    const began = performance.now();
    const response = await fetch(
      `${url}/api/v1/sessions?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    const page = (await response.json()) as { sessions: Array<{ id: string }>; nextCursor: string | null };
    pageTimes.push(performance.now() - began);
    for (const session of page.sessions) {
      if (session.id <= last) throw new Error(`the listing gave ${session.id} after ${last}`);
      last = session.id;
    }
    sessions += page.sessions.length;
    if (page.nextCursor !== null && page.sessions.length < 100) shortPages++;
    cursor = page.nextCursor;
  } while (cursor !== null);
  const firstPageMs = pageTimes.shift() ?? 0;
  pageTimes.sort((a, b) => a - b);
  return {
    pages: pageTimes.length + 1,
    sessions,
    shortPages,
    firstPageMs,
    pageP50Ms: pageTimes[Math.floor(pageTimes.length / 2)] ?? 0,
    pageMaxMs: pageTimes[pageTimes.length - 1] ?? 0,
  };
}

const send = process.send?.bind(process);
if (send) {
  // Forked before it is needed (a fork is a turn of tens of ms in the service's process), told its URL when to begin.
  const task = process.argv[2] as ClientTask['task'];
  let stopped: (() => void) | undefined;
  const stopAsked = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  let begun = false;
  process.on('message', (message: { url?: string } | 'stop') => {
    if (message === 'stop') return stopped?.();
    if (begun || typeof message.url !== 'string') return;
    begun = true;
    const url = message.url;
    void (async () => {
      // Not counted: the first request of a fresh process compiles the client's code and opens its connection
      // (undici's: ~100 ms).
      if (task === 'list') await (await fetch(`${url}/healthz`)).text();
      else await healthz(url);
      if (task === 'list') send(await listEveryPage(url));
      else {
        const stop = probe(url);
        await stopAsked;
        send(await stop());
      }
    })();
  });
  send('ready');
}
