import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpLoad, type LoadFigures } from './http-load.js';

const SERVERS = fileURLToPath(new URL('./http-servers.ts', import.meta.url));
const SESSIONS = 50;
export const USAGE_BODY = '{"promptTokens":120000,"completionTokens":800,"cachedReadTokens":110000}';
export const PRESSURE_BODY =
  '{"memoryUsedPercent":72,"tokenBurnRatePerMin":55,"contextDriftPercent":68,"tokenBudgetTotal":100000,"tokenBudgetUsed":62000}';

export interface ServerProbe {
  cpuMicros: number;
  loopDelayMaxMs: number;
}

/** One barometer server in a child process with `SESSIONS` sessions (`bench-0` … `bench-49`) created. */
export interface UsageServer {
  port: number;
  pid: number | undefined;
  /** `/api/v1/sessions/bench-N/usage` of every session. */
  usagePaths: string[];
  /**
   * The server process's CPU time so far (user + system, microseconds), as `process.cpuUsage()` reads it there,
   * and its longest event-loop delay since the last call (milliseconds).
   */
  probe(): Promise<ServerProbe>;
  /** Kills the server and removes its data dir. */
  close(): Promise<void>;
}

/**
 * `redisUrl`: the sessions in that Redis (a fresh key prefix per server) instead of the memory store. The server
 * runs the default configuration with its rate limits off (`service` in http-servers.ts).
 */
export async function startUsageServer(options: { redisUrl?: string } = {}): Promise<UsageServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'barometer-bench-usage-'));
  const child: ChildProcess = fork(SERVERS, ['service'], {
    // BENCH_CHILD_ARGS: more node flags for the server, e.g. to profile it ("--cpu-prof --cpu-prof-dir=…").
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CHILD_ARGS ? process.env.BENCH_CHILD_ARGS.split(' ') : []),
    ],
    stdio: 'inherit',
    env: {
      ...process.env,
      BENCH_DATA_DIR: dataDir,
      BENCH_LOG_LEVEL: 'silent',
      ...(options.redisUrl === undefined
        ? {}
        : { BENCH_REDIS_URL: options.redisUrl, BENCH_REDIS_PREFIX: `bench${process.pid}x${Date.now()}:` }),
    },
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message: { port: number }) => resolve(message.port));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const usagePaths: string[] = [];
    for (let index = 0; index < SESSIONS; index++) {
      const id = `bench-${index}`;
      const created = await fetch(`http://127.0.0.1:${port}/api/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id, model: 'claude-opus-4-6', agent: 'claude-code', tpmLimit: 2_000_000 }),
      });
      if (created.status !== 201)
        throw new Error(`creating ${id}: ${created.status} ${await created.text()}`);
      usagePaths.push(`/api/v1/sessions/${id}/usage`);
    }
    return { port, pid: child.pid, usagePaths, probe: () => probeOf(child), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The baseline: node:http alone doing the pressure route's work (read the body, JSON.parse, evaluate,
 * JSON.stringify; `bare` in http-servers.ts), in a child process of its own, loaded in the same rounds. Its p99 is
 * what this machine and the load generator give any Node server at that many connections.
 */
export async function startBareServer(): Promise<Pick<UsageServer, 'port' | 'probe' | 'close'>> {
  const child: ChildProcess = fork(SERVERS, ['bare'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { port, probe: () => probeOf(child), close };
}

/**
 * Asks the server process for its own CPU time and longest event-loop delay (an IPC message, not an HTTP route:
 * nothing the load sees).
 */
function probeOf(child: ChildProcess): Promise<ServerProbe> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Partial<ServerProbe>) => {
      if (typeof message?.cpuMicros !== 'number') return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve({ cpuMicros: message.cpuMicros, loopDelayMaxMs: message.loopDelayMaxMs ?? Number.NaN });
    };
    const onExit = (code: number | null) => reject(new Error(`server exited with ${code}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send('cpu');
  });
}

export const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

/** What a route gave at one connection count: the median of its rounds, and the range. */
export interface RouteFigures {
  connections: number;
  rps: number;
  rpsRange: [number, number];
  /** The server process's CPU time (user + system) over the run ÷ the requests answered. */
  cpuMicrosPerRequest: number;
  cpuRange: [number, number];
  p50Ms: number;
  p99Ms: number;
  p99Range: [number, number];
  /** The longest answer of any round. */
  maxMs: number;
  /** The opening (every connection opened at once, until the last had its first answer): median and range. */
  openingMs: number;
  openingRange: [number, number];
  /**
   * The server's longest event-loop delay over every round: the longest any request waited on the server itself.
   * A p99 above it was spent outside the server (the kernel's queues, the load generator, other work on the machine).
   */
  loopDelayMaxMs: number;
}

const range = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];

/** `bare`: the baseline (`startBareServer`), not a barometer route. */
export type RouteName = 'usage' | 'pressure' | 'bare';

/**
 * What a user of the service feels, for `POST /api/v1/sessions/:id/usage` (over 50 sessions) and
 * `POST /api/v1/pressure`: throughput, p50/p99 latency, and the server's CPU time per request, at each number of
 * connections. Every (connections, route) run is repeated `rounds` times, the routes alternating, and each figure
 * is the median of its rounds (this machine's speed varies from one minute to the next).
 */
export async function benchUsageHttp(
  server: UsageServer,
  bare: Pick<UsageServer, 'port' | 'probe'>,
  options: { seconds?: number; rounds?: number; connections?: number[] } = {},
): Promise<{
  usageBytes: number;
  pressureBytes: number;
  figures: Record<RouteName, RouteFigures[]>;
}> {
  const seconds = options.seconds ?? 3;
  const rounds = options.rounds ?? 3;
  const connectionCounts = options.connections ?? [1, 50, 200];
  const { port, usagePaths } = server;
  const load = (paths: string[], body: string, duration: number, connections: number, to = port) =>
    httpLoad({ port: to, paths, body, seconds: duration, connections });
  const routes: Record<
    RouteName,
    { paths: string[]; body: string; target: Pick<UsageServer, 'port' | 'probe'> }
  > = {
    usage: { paths: usagePaths, body: USAGE_BODY, target: server },
    pressure: { paths: ['/api/v1/pressure'], body: PRESSURE_BODY, target: server },
    bare: { paths: ['/'], body: PRESSURE_BODY, target: bare },
  };
  const sizeOf = async (path: string, body: string) =>
    (
      await (
        await fetch(`http://127.0.0.1:${port}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
      ).arrayBuffer()
    ).byteLength;
  const usageBytes = await sizeOf(usagePaths[0]!, USAGE_BODY);
  const pressureBytes = await sizeOf('/api/v1/pressure', PRESSURE_BODY);
  // Warm-up: JIT, and the timelines reach their 500-point cap as a long-lived session's would.
  await load(usagePaths, USAGE_BODY, 2, 50);
  await load(['/api/v1/pressure'], PRESSURE_BODY, 2, 50);
  await load(['/'], PRESSURE_BODY, 2, 50, bare.port);
  const figures: Record<RouteName, RouteFigures[]> = { usage: [], pressure: [], bare: [] };
  for (const connections of connectionCounts) {
    const runs: Record<
      RouteName,
      Array<LoadFigures & { cpuMicrosPerRequest: number; loopDelayMaxMs: number }>
    > = {
      usage: [],
      pressure: [],
      bare: [],
    };
    for (let round = 1; round <= rounds; round++) {
      const order: RouteName[] =
        round % 2 === 1 ? ['usage', 'pressure', 'bare'] : ['bare', 'pressure', 'usage'];
      for (const name of order) {
        const { paths, body, target } = routes[name];
        const before = await target.probe();
        const run = await load(paths, body, seconds, connections, target.port);
        const after = await target.probe();
        const cpuMicrosPerRequest = (after.cpuMicros - before.cpuMicros) / run.answered;
        const loopDelayMaxMs = after.loopDelayMaxMs;
        if (run.non2xx)
          throw new Error(`${name}: ${run.non2xx} non-2xx answers at ${connections} connections`);
        runs[name].push({ ...run, cpuMicrosPerRequest, loopDelayMaxMs });
        process.stderr.write(
          `  ${connections} connection${connections === 1 ? '' : 's'}, round ${round}, ${name}: ${Math.round(run.rps)} req/s, ` +
            `${cpuMicrosPerRequest.toFixed(1)} µs server CPU/req, p50 ${run.p50Ms.toFixed(2)} ms, p99 ${run.p99Ms.toFixed(2)} ms, max ${run.maxMs.toFixed(1)} ms, ` +
            `opening ${run.openingMs.toFixed(0)} ms, ` +
            `server's longest event-loop delay ${loopDelayMaxMs.toFixed(1)} ms` +
            (run.socketErrors ? `, ${run.socketErrors} socket errors` : '') +
            '\n',
        );
      }
    }
    for (const name of ['usage', 'pressure', 'bare'] as const) {
      const measured = runs[name];
      const of = (pick: (run: (typeof measured)[number]) => number) => measured.map(pick);
      figures[name].push({
        connections,
        rps: median(of((run) => run.rps)),
        rpsRange: range(of((run) => run.rps)),
        cpuMicrosPerRequest: median(of((run) => run.cpuMicrosPerRequest)),
        cpuRange: range(of((run) => run.cpuMicrosPerRequest)),
        p50Ms: median(of((run) => run.p50Ms)),
        p99Ms: median(of((run) => run.p99Ms)),
        p99Range: range(of((run) => run.p99Ms)),
        maxMs: Math.max(...of((run) => run.maxMs)),
        openingMs: median(of((run) => run.openingMs)),
        openingRange: range(of((run) => run.openingMs)),
        loopDelayMaxMs: Math.max(...of((run) => run.loopDelayMaxMs)),
      });
    }
  }
  return { usageBytes, pressureBytes, figures };
}

/**
 * `POST /usage` on a server whose sessions are in Redis against the same route on a server with the memory
 * store, in alternating rounds of the same run (50 connections over 50 sessions each); the median ratio is the
 * figure.
 */
export async function benchUsageStores(memory: UsageServer, redis: UsageServer, seconds = 3, rounds = 5) {
  const load = (server: UsageServer, duration: number) =>
    httpLoad({
      port: server.port,
      paths: server.usagePaths,
      body: USAGE_BODY,
      seconds: duration,
      connections: 50,
    });
  await load(memory, 2);
  await load(redis, 2);
  const ratios: number[] = [];
  const onMemory: number[] = [];
  const onRedis: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const redisFirst = round % 2 === 0;
    const first = redisFirst ? await load(redis, seconds) : await load(memory, seconds);
    const second = redisFirst ? await load(memory, seconds) : await load(redis, seconds);
    const [r, m] = redisFirst ? [first, second] : [second, first];
    if (r.non2xx || m.non2xx) throw new Error(`non-2xx answers: redis ${r.non2xx}, memory ${m.non2xx}`);
    onRedis.push(r.rps);
    onMemory.push(m.rps);
    ratios.push(r.rps / m.rps);
    process.stderr.write(
      `  round ${round}: redis ${Math.round(r.rps)} req/s, memory ${Math.round(m.rps)} req/s, ratio ${(r.rps / m.rps).toFixed(3)}\n`,
    );
  }
  return { medianRedis: median(onRedis), medianMemory: median(onMemory), medianRatio: median(ratios) };
}
