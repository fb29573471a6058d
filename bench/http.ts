import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { httpLoad } from './http-load.js';

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
  /** Server CPU time (user + system) per request, in microseconds. */
  cpuMicrosPerRequest?: number;
  requests?: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: { cpuMicros?: number }) => {
      if (typeof message?.cpuMicros !== 'number') return;
      child.off('message', onMessage);
      resolve(message.cpuMicros);
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

async function startServer(kind: 'bare' | 'barometer'): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(SERVERS, [kind], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { child, port };
}

async function load(port: number, seconds: number, connections: number): Promise<HttpFigures> {
  const figures = await httpLoad({ port, paths: ['/api/v1/pressure'], body: BODY, seconds, connections });
  return {
    requests: figures.answered,
    requestsPerSecond: figures.rps,
    p50Ms: figures.p50Ms,
    p99Ms: figures.p99Ms,
    non2xx: figures.non2xx + figures.socketErrors,
  };
}

/**
 * POST /api/v1/pressure on barometer vs a bare node:http server doing the same work, same run. Both servers run
 * side by side in child processes; after a warm-up they are loaded in alternation, `rounds` times (the order
 * swapped every round), and each round gives a throughput ratio and a CPU-per-request ratio. This machine's
 * speed varies by half from one minute to the next, so the medians of the per-round ratios are the figures.
 */
export async function benchHttp(
  seconds = 3,
  connections = 50,
  rounds = 9,
): Promise<{
  bare: HttpFigures;
  barometer: HttpFigures;
  ratios: number[];
  medianRatio: number;
  cpuRatios: number[];
  medianCpuRatio: number;
}> {
  const servers = { bare: await startServer('bare'), barometer: await startServer('barometer') };
  const best: Partial<Record<'bare' | 'barometer', HttpFigures>> = {};
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  try {
    for (const kind of ['bare', 'barometer'] as const) await load(servers[kind].port, 3, connections);
    for (let round = 1; round <= rounds; round++) {
      const measured: Partial<Record<'bare' | 'barometer', HttpFigures>> = {};
      const order = round % 2 ? (['bare', 'barometer'] as const) : (['barometer', 'bare'] as const);
      for (const kind of order) {
        const { child, port } = servers[kind];
        const before = await cpuOf(child);
        const figures = await load(port, seconds, connections);
        figures.cpuMicrosPerRequest = ((await cpuOf(child)) - before) / (figures.requests ?? Number.NaN);
        measured[kind] = figures;
        const previous = best[kind];
        if (!previous || figures.requestsPerSecond > previous.requestsPerSecond) best[kind] = figures;
      }
      const ratio = measured.barometer!.requestsPerSecond / measured.bare!.requestsPerSecond;
      const cpuRatio = measured.bare!.cpuMicrosPerRequest! / measured.barometer!.cpuMicrosPerRequest!;
      ratios.push(ratio);
      cpuRatios.push(cpuRatio);
      process.stderr.write(
        `  round ${round}: bare ${Math.round(measured.bare!.requestsPerSecond)} req/s ` +
          `(${measured.bare!.cpuMicrosPerRequest!.toFixed(1)} µs CPU/req), barometer ` +
          `${Math.round(measured.barometer!.requestsPerSecond)} req/s (${measured.barometer!.cpuMicrosPerRequest!.toFixed(1)} µs), ` +
          `ratio ${ratio.toFixed(3)}, CPU ratio ${cpuRatio.toFixed(3)}\n`,
      );
    }
  } finally {
    servers.bare.child.kill('SIGTERM');
    servers.barometer.child.kill('SIGTERM');
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return {
    bare: best.bare!,
    barometer: best.barometer!,
    ratios,
    medianRatio: median(ratios),
    cpuRatios,
    medianCpuRatio: median(cpuRatios),
  };
}
