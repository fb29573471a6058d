import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVERS = fileURLToPath(new URL('./http-servers.ts', import.meta.url));
const SESSIONS = 50;
export const USAGE_BODY = '{"promptTokens":120000,"completionTokens":800,"cachedReadTokens":110000}';
const PRESSURE_BODY =
  '{"memoryUsedPercent":72,"tokenBurnRatePerMin":55,"contextDriftPercent":68,"tokenBudgetTotal":100000,"tokenBudgetUsed":62000}';

/** One barometer server in a child process with `SESSIONS` sessions (`bench-0` … `bench-49`) created. */
export interface UsageServer {
  port: number;
  pid: number | undefined;
  /** `/api/v1/sessions/bench-N/usage` of every session. */
  usagePaths: string[];
  /** Kills the server and removes its data dir. */
  close(): Promise<void>;
}

/** `redisUrl`: the sessions in that Redis (a fresh key prefix per server) instead of the memory store. */
export async function startUsageServer(options: { redisUrl?: string } = {}): Promise<UsageServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'barometer-bench-usage-'));
  const child: ChildProcess = fork(SERVERS, ['barometer'], {
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
    return { port, pid: child.pid, usagePaths, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export interface WrkFigures {
  rps: number;
  non2xx: number;
  /** Connect, read, write and timeout errors that wrk counted. */
  socketErrors: number;
}

/** wrk with a Lua script: POST `body` to `paths`, one after the other (50 connections, one thread). */
export function wrk(port: number, paths: string[], body: string, seconds: number): WrkFigures {
  const folder = mkdtempSync(join(tmpdir(), 'barometer-wrk-'));
  const script = join(folder, 'post.lua');
  writeFileSync(
    script,
    [
      'wrk.method = "POST"',
      'wrk.headers["Content-Type"] = "application/json"',
      `wrk.body = '${body}'`,
      `local paths = { ${paths.map((path) => `"${path}"`).join(', ')} }`,
      'local i = 0',
      'request = function()',
      '  i = i + 1',
      '  return wrk.format(nil, paths[(i % #paths) + 1])',
      'end',
    ].join('\n'),
  );
  try {
    const output = execFileSync(
      'wrk',
      ['-t1', '-c50', `-d${seconds}s`, '-s', script, `http://127.0.0.1:${port}`],
      { encoding: 'utf8', timeout: (seconds + 30) * 1000 },
    );
    const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
    return {
      rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? Number.NaN),
      non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
      socketErrors: errors ? errors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

export const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

/**
 * `POST /api/v1/sessions/:id/usage` against `POST /api/v1/pressure` on the same server in the same run, in
 * alternating rounds (50 connections spread over 50 sessions); the median of the per-round ratios is the figure.
 */
export async function benchUsageHttp(server: UsageServer, seconds = 3, rounds = 5) {
  const { port, usagePaths: paths } = server;
  const base = `http://127.0.0.1:${port}`;
  const sizeOf = async (path: string, body: string) =>
    (
      await (
        await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
      ).arrayBuffer()
    ).byteLength;
  const usageBytes = await sizeOf(paths[0]!, USAGE_BODY);
  const pressureBytes = await sizeOf('/api/v1/pressure', PRESSURE_BODY);
  // Warm-up: JIT, and the timelines reach their 500-point cap as a long-lived session's would.
  wrk(port, paths, USAGE_BODY, 2);
  wrk(port, ['/api/v1/pressure'], PRESSURE_BODY, 2);
  const ratios: number[] = [];
  const usage: number[] = [];
  const pressure: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const first = round % 2 === 1;
    const a = first
      ? wrk(port, paths, USAGE_BODY, seconds)
      : wrk(port, ['/api/v1/pressure'], PRESSURE_BODY, seconds);
    const b = first
      ? wrk(port, ['/api/v1/pressure'], PRESSURE_BODY, seconds)
      : wrk(port, paths, USAGE_BODY, seconds);
    const [u, p] = first ? [a, b] : [b, a];
    if (u.non2xx || p.non2xx) throw new Error(`non-2xx answers: usage ${u.non2xx}, pressure ${p.non2xx}`);
    usage.push(u.rps);
    pressure.push(p.rps);
    ratios.push(u.rps / p.rps);
    process.stderr.write(
      `  round ${round}: usage ${Math.round(u.rps)} req/s, pressure ${Math.round(p.rps)} req/s, ratio ${(u.rps / p.rps).toFixed(3)}\n`,
    );
  }
  return {
    usageBytes,
    pressureBytes,
    medianUsage: median(usage),
    medianPressure: median(pressure),
    medianRatio: median(ratios),
  };
}

/**
 * `POST /usage` on a server whose sessions are in Redis against the same route on a server with the memory
 * store, in alternating rounds of the same run (50 connections over 50 sessions each); the median ratio is the
 * figure.
 */
export function benchUsageStores(memory: UsageServer, redis: UsageServer, seconds = 3, rounds = 5) {
  wrk(memory.port, memory.usagePaths, USAGE_BODY, 2);
  wrk(redis.port, redis.usagePaths, USAGE_BODY, 2);
  const ratios: number[] = [];
  const onMemory: number[] = [];
  const onRedis: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const redisFirst = round % 2 === 0;
    const first = redisFirst
      ? wrk(redis.port, redis.usagePaths, USAGE_BODY, seconds)
      : wrk(memory.port, memory.usagePaths, USAGE_BODY, seconds);
    const second = redisFirst
      ? wrk(memory.port, memory.usagePaths, USAGE_BODY, seconds)
      : wrk(redis.port, redis.usagePaths, USAGE_BODY, seconds);
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
