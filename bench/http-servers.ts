/**
 * The servers the HTTP benchmarks load, each run in a child process of its own so that the load generator does
 * not share its event loop: `bare` (node:http doing the same work: read the body, JSON.parse, evaluate,
 * JSON.stringify), `barometer` (the real app, every rate limit off, no dashboard, V8 set up as `barometer serve`
 * sets it up) and `service` (the same in the default configuration but for its rate limits, dashboard included:
 * what `npm run bench -- usage` measures).
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { evaluatePressure } from '../src/pressure/index.js';
import { buildApp } from '../src/server/app.js';
import { tuneServiceProcess } from '../src/server/process-tuning.js';

const kind = process.argv[2];
// The parent asks for this process's CPU time around each load, to measure CPU per request (steadier than
// throughput on a shared machine), and for the longest event-loop delay since it last asked: how long this server
// kept every request waiting at worst. A latency the clients measured beyond it was spent outside the server (the
// kernel, the load generator, a machine shared with other work).
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
process.on('message', (message) => {
  if (message === 'cpu') {
    const usage = process.cpuUsage();
    process.send?.({ cpuMicros: usage.user + usage.system, loopDelayMaxMs: loopDelay.max / 1e6 });
    loopDelay.reset();
  }
});
if (kind === 'bare') {
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const report = evaluatePressure(body ? JSON.parse(body) : {}, { now: Date.now() });
      const text = JSON.stringify(report);
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
} else {
  // Set up as `barometer serve` sets itself up (V8 tuned for the service, decision 012).
  tuneServiceProcess();
  const app = await buildApp({
    logLevel: (process.env.BENCH_LOG_LEVEL as 'warn' | undefined) ?? 'warn',
    // Every rate limit off (seed 000's, ingestion's and reads'): the benchmark measures the routes, not a 429.
    rateLimitPerMinute: 0,
    ingestRateLimitPerMinute: 0,
    readRateLimitPerMinute: 0,
    maxConcurrentPerAgent: 0,
    ...(kind === 'service' ? {} : { dashboard: false }),
    // A data dir of its own, removed by the parent: sessions posted by a benchmark are not kept anywhere else.
    dataDir: process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'barometer-bench-')),
    ...(process.env.BENCH_REDIS_URL
      ? { redisUrl: process.env.BENCH_REDIS_URL, redisPrefix: process.env.BENCH_REDIS_PREFIX ?? 'bench:' }
      : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  // Closed on SIGTERM and left by process.exit, so that a `--cpu-prof` in BENCH_CHILD_ARGS writes its profile.
  process.once('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
  const address = app.server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
}
