import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const SERVERS = fileURLToPath(new URL('./http-servers.ts', import.meta.url));
const BODY = JSON.stringify({
  memoryUsedPercent: 72,
  tokenBurnRatePerMin: 55,
  contextDriftPercent: 68,
  sessionAgeSeconds: 2700,
  tokenBudgetTotal: 100000,
  tokenBudgetUsed: 62000,
  systemMode: 'production',
});

export interface HttpFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

async function startServer(kind: 'bare' | 'headroom'): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(SERVERS, [kind], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { child, port };
}

async function load(port: number, seconds: number, connections: number): Promise<HttpFigures> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/api/v1/pressure`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    connections,
    duration: seconds,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors,
  };
}

/** POST /api/v1/pressure on headroom vs a bare node:http server doing the same work, same run. */
export async function benchHttp(
  seconds = 10,
  connections = 50,
): Promise<{ bare: HttpFigures; headroom: HttpFigures }> {
  const figures: Partial<Record<'bare' | 'headroom', HttpFigures>> = {};
  // Alternate and keep the better of two rounds each, since a 2-core machine is noisy.
  for (const round of [1, 2]) {
    for (const kind of ['bare', 'headroom'] as const) {
      const { child, port } = await startServer(kind);
      try {
        await load(port, 2, connections); // warm-up
        const measured = await load(port, seconds, connections);
        process.stderr.write(
          `  round ${round} ${kind}: ${Math.round(measured.requestsPerSecond)} req/s, p99 ${measured.p99Ms} ms\n`,
        );
        const best = figures[kind];
        if (!best || measured.requestsPerSecond > best.requestsPerSecond) figures[kind] = measured;
      } finally {
        child.kill('SIGTERM');
      }
    }
  }
  return { bare: figures.bare!, headroom: figures.headroom! };
}
