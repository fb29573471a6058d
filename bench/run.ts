/**
 * `npm run bench`: every benchmark, each printed with its baseline measured in the same run.
 * `npm run bench -- pressure` (or http, tokens, eviction, whatif, pools, install, …) runs one; several names run
 * several.
 */

import { loadavg } from 'node:os';
import { startRedisServer } from '../src/test-helpers/redis-server.js';
import { benchDurability } from './durability.js';
import { benchEviction } from './eviction.js';
import { benchHttp } from './http.js';
import { benchInstall } from './install.js';
import { benchPools } from './pools.js';
import { benchPressureEvaluation } from './pressure-eval.js';
import { benchProxy } from './proxy.js';
import { benchReplay, benchSessionMemory } from './replay.js';
import { benchReport } from './report.js';
import { benchScale, type ListingWithProbe } from './scale.js';
import type { ProbeFigures } from './scale-client.js';
import { benchUsageFanOut } from './sse-fanout.js';
import { benchStatusline } from './statusline.js';
import { benchTokens } from './tokens.js';
import { benchUsageHttp, benchUsageStores, startBareServer, startUsageServer } from './usage-http.js';
import { benchWhatIf } from './whatif.js';

const argv = process.argv.slice(2);
// `--report-mb <n>`: the size of the report benchmark's folder (default 1,000 MB; smaller for a quick run).
const reportMbAt = argv.indexOf('--report-mb');
const reportMegabytes = reportMbAt === -1 ? 1000 : Number(argv[reportMbAt + 1]);
if (reportMbAt !== -1) argv.splice(reportMbAt, 2);
const selected = new Set(argv);
const wants = (name: string) => selected.size === 0 || selected.has(name);
const format = (value: number) => Math.round(value).toLocaleString('en-US');

if (wants('pressure')) {
  console.log('# evaluatePressure (one core)');
  const { evalsPerSecond, baselinePerSecond } = benchPressureEvaluation();
  console.log(`evaluatePressure: ${format(evalsPerSecond)} evaluations/s (goal ≥ 5,000,000)`);
  console.log(`baseline (the viability equation alone): ${format(baselinePerSecond)} /s`);
  console.log(`ratio: ${(evalsPerSecond / baselinePerSecond).toFixed(3)}× the bare equation`);
}

if (wants('replay')) {
  console.log('\n# barometer replay of the 3 MB Claude Code log (read + replay, best of 10)');
  const { bytes, replayMs, parseMs, calls } = benchReplay();
  console.log(
    `replay: ${replayMs.toFixed(1)} ms for ${(bytes / 1e6).toFixed(2)} MB, ${calls} calls (goal: well under 1 s)`,
  );
  console.log(`baseline (JSON.parse of every line): ${parseMs.toFixed(1)} ms`);
  console.log(`ratio: ${(replayMs / parseMs).toFixed(2)}× the baseline's time`);
  if ((globalThis as { gc?: unknown }).gc) {
    const memory = benchSessionMemory(1000, 1000);
    console.log(
      `session memory after 1,000 updates: ${Math.round(memory.bytesPerSession)} bytes (goal ≤ 4096), baseline empty object ${Math.round(memory.baselineBytes)} bytes`,
    );
  }
}

if (selected.has('scale')) {
  // Not in the default run: it creates 100,000 sessions in the database.
  const count = Number(process.env.BAROMETER_SCALE_SESSIONS ?? 100_000);
  console.log(`\n# ${format(count)} sessions on one instance: created, listed in pages, restarted`);
  const figures = await benchScale(count);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
  console.log(
    `heap per idle session: live ${kb(figures.liveBytesPerSession)}, restored ${kb(figures.restoredBytesPerSession)} (goal ≤ 5 KB)`,
  );
  const probed = (other: ProbeFigures) =>
    `worst ${other.maxMs.toFixed(1)} ms, ${other.over50} of ${other.count} over 50 ms`;
  const listing = (what: string, listed: ListingWithProbe) =>
    console.log(
      `GET /api/v1/sessions?limit=100 ${what}: ${listed.pages} pages, ${format(listed.sessions)} sessions, the first ${listed.firstPageMs.toFixed(1)} ms, the others p50 ${listed.pageP50Ms.toFixed(1)} ms, worst ${listed.pageMaxMs.toFixed(1)} ms (goal ≤ 100 ms; the service's own time for its worst page ${listed.servicePageMaxMs.toFixed(1)} ms); /healthz every 10 ms meanwhile: ${probed(listed.other)} (goal: none over 50 ms)`,
    );
  listing('once created live', figures.live);
  console.log(
    `the service's event loop meanwhile (a 2 ms timer): longest turn ${figures.turnsWhileListingLive.maxMs.toFixed(1)} ms, ${figures.turnsWhileListingLive.over50} over 50 ms`,
  );
  listing('right after a restart', figures.loading);
  console.log(
    `/healthz every 10 ms from listening until the listing after the restart ended: ${probed(figures.otherWhileLoading)} (goal: none over 50 ms)`,
  );
  console.log(
    `the service's event loop meanwhile (a 2 ms timer): longest turn ${figures.turnsWhileLoading.maxMs.toFixed(1)} ms, ${figures.turnsWhileLoading.over50} over 50 ms`,
  );
  console.log(`baseline (/healthz for 5 s on the service with no session): ${probed(figures.otherIdle)}`);
  console.log(
    `baseline (the whole list built and serialized in one turn): ${figures.wholeListMs.toFixed(0)} ms`,
  );
  console.log(
    `listening after start with ${format(figures.sessions)} sessions in the database: ${figures.listenMs.toFixed(0)} ms (goal ≤ 2,000 ms; nothing is loaded: the listing after it ended at ${figures.fullyLoadedMs.toFixed(0)} ms)`,
  );
  console.log(`baseline (the same start on an empty data dir): ${figures.emptyListenMs.toFixed(0)} ms`);
  console.log(
    `load average after the run: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(', ')}`,
  );
}

if (selected.has('durability')) {
  // Not in the default run: two serve processes killed under load. BENCH_DURABILITY_SECONDS to change the load's length.
  const seconds = Number(process.env.BENCH_DURABILITY_SECONDS ?? 8);
  console.log(
    `\n# kill -9 under sustained load (barometer serve in a child process, keep-alive writers posting usage for ${seconds} s, then SIGKILL, then a restart on the same data dir)`,
  );
  for (const [sessions, writers] of [
    [10, 8],
    [200, 4],
  ] as const) {
    const figures = await benchDurability(sessions, writers, seconds);
    console.log(
      `${sessions} sessions, ${writers} writers: ${format(figures.acknowledged)} updates acknowledged (${format(figures.postsPerSecond)}/s); after the restart ${format(figures.lost)} lost (goal 0), ${figures.sessionsLost} sessions lost (goal 0), oldest lost acknowledgement ${figures.oldestLostMs.toFixed(0)} ms before the kill, ${figures.inconsistent} timelines not ending at their generation (goal 0); listening after the restart in ${figures.restartListenMs.toFixed(0)} ms (a process start included)`,
    );
  }
  console.log(
    `load average after the run: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(', ')}`,
  );
}

if (wants('report')) {
  console.log(
    `\n# barometer report on ~${reportMegabytes} MB of Claude Code logs (the recorded sessions repeated under new ids)`,
  );
  const figures = await benchReport(reportMegabytes);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const cpu = (ms: number | null) => (ms === null ? '' : ` (CPU ${seconds(ms)})`);
  console.log(
    `folder: ${(figures.bytes / 1e6).toFixed(0)} MB in ${figures.files} files; barometer total $${figures.costUsd.toFixed(2)}` +
      (figures.ccusageCostUsd === null ? '' : `, ccusage total $${figures.ccusageCostUsd.toFixed(2)}`),
  );
  console.log(
    `report cold (no cache, what-if included, as a user runs it): ${seconds(figures.coldMs)}${cpu(figures.coldCpuMs)} (goal ≤ ccusage's time)`,
  );
  console.log(
    `report warm (every file from the cache), median of ${figures.warmRunsMs.length}: ${seconds(figures.warmMs)}${cpu(figures.warmCpuMs)} (goal ≤ 1 s; runs ${figures.warmRunsMs.map(seconds).join(', ')})`,
  );
  console.log(
    `report warm after one file changed (that file read again): ${seconds(figures.oneChangedMs)}${cpu(figures.oneChangedCpuMs)}`,
  );
  console.log(
    `report cold --no-what-if (the reading alone): ${seconds(figures.noWhatIfColdMs)}${cpu(figures.noWhatIfColdCpuMs)}`,
  );
  console.log(
    `baseline (node -e 0, the start of Node itself): ${seconds(figures.nodeMs)}${cpu(figures.nodeCpuMs)}`,
  );
  console.log(
    figures.ccusageMs === null
      ? 'baseline: ccusage 18 is not installed (npx ccusage@18 once to compare)'
      : `baseline (ccusage ${figures.ccusageVersion} daily --json --offline, same folder): ${seconds(figures.ccusageMs)}${cpu(figures.ccusageCpuMs)}; cold ratio ${(figures.coldMs / figures.ccusageMs).toFixed(2)}× its wall time` +
          (figures.coldCpuMs === null || figures.ccusageCpuMs === null
            ? ''
            : `, ${(figures.coldCpuMs / figures.ccusageCpuMs).toFixed(2)}× its CPU time`),
  );
  console.log(
    `load average after the run: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(', ')}`,
  );
}

if (wants('whatif')) {
  console.log('\n# barometer replay <corpus> --what-if: every recorded session, archived and checked');
  const { directory, rows, aggregate, bytes, whatIfMs, replayMs } = await benchWhatIf();
  for (const row of rows)
    console.log(
      row.skipped === null
        ? `${row.file}: ${row.calls} calls, tokens −${row.savedPercent}%, cost −${row.costSavedPercent ?? '—'}%, peak ${row.realPeakPromptTokens} → ${row.policyPeakPromptTokens} (compaction point ${row.compactionPoint}), re-reads ${row.rereads}, archive ${row.archiveVerified ? 'verified' : 'NOT verified'}`
        : `${row.file}: skipped (${row.skipped.slice(0, 100)})`,
    );
  console.log(
    `corpus ${directory}: ${aggregate.sessions} sessions (${aggregate.skipped} skipped), ${(bytes / 1e6).toFixed(1)} MB in ${(whatIfMs / 1000).toFixed(1)} s (goal ≤ 10 s)`,
  );
  console.log(
    `aggregate: ${aggregate.savedPercent}% fewer prompt tokens (goal ≥ 35%), ${aggregate.costSavedPercent ?? '—'}% lower cost (goal ≥ 25%), worst session's cost change ${aggregate.worstCostChangePercent ?? '—'}% (goal ≤ +1%), peaks above the compaction point ${aggregate.aboveCompactionPoint}, archives ${aggregate.archiveVerified ? 'verified' : 'NOT verified'}`,
  );
  console.log(`baseline (the plain replay of the same logs): ${(replayMs / 1000).toFixed(2)} s`);
  console.log(`ratio: ${(whatIfMs / replayMs).toFixed(1)}× the plain replay's time`);
}

if (wants('http')) {
  console.log('\n# POST /api/v1/pressure, 50 connections on 127.0.0.1 (bench/http-load.ts)');
  const { bare, barometer, medianRatio, medianCpuRatio } = await benchHttp();
  console.log(
    `bare node:http (best round): ${format(bare.requestsPerSecond)} req/s, p50 ${bare.p50Ms.toFixed(2)} ms, p99 ${bare.p99Ms.toFixed(2)} ms`,
  );
  console.log(
    `barometer (fastify, best round): ${format(barometer.requestsPerSecond)} req/s, p50 ${barometer.p50Ms.toFixed(2)} ms, p99 ${barometer.p99Ms.toFixed(2)} ms` +
      (barometer.non2xx ? ` (${barometer.non2xx} non-2xx!)` : ''),
  );
  console.log(
    `ratio: ${medianRatio.toFixed(3)}× bare throughput, median of rounds (goal ≥ 0.85); p99 ${barometer.p99Ms.toFixed(2)} ms (goal ≤ 5 ms)`,
  );
  console.log(
    `CPU efficiency: ${medianCpuRatio.toFixed(3)}× bare (bare's server CPU per request ÷ barometer's, median of rounds)`,
  );
}

if (wants('tokens')) {
  console.log('\n# token counting: incremental vs full recount of a 200,000-token history (o200k_base)');
  const figures = await benchTokens();
  console.log(
    `history: ${figures.messages} messages, ${format(figures.historyTokens)} tokens, ${(figures.historyBytes / 1e6).toFixed(2)} MB of JSON`,
  );
  console.log(
    `full recount (countMessages, warm merge cache, median): ${figures.fullRecountMs.toFixed(1)} ms`,
  );
  console.log(
    `one-message update (IncrementalCounter, median; the new message ≈ ${format(figures.newMessageTokens)} tokens): ${figures.incrementalMs.toFixed(2)} ms`,
  );
  console.log(
    `ratio: ${(figures.incrementalMs / figures.fullRecountMs).toFixed(4)}× a full recount (goal ≤ 0.01)`,
  );
  console.log(
    `(full recount with the tokenizer's merge cache emptied first: ${figures.coldRecountMs.toFixed(1)} ms, ratio ${(figures.incrementalMs / figures.coldRecountMs).toFixed(4)}×)`,
  );
  console.log(
    `one-message update back to back (no pause between turns, median): ${figures.incrementalWarmMs.toFixed(2)} ms, ratio ${(figures.incrementalWarmMs / figures.fullRecountMs).toFixed(4)}× a full recount`,
  );
  const megabytes = figures.textBytes / 1e6;
  console.log(
    `counter.count(text): ${(megabytes / figures.ourSeconds).toFixed(2)} MB/s, ${format(figures.textTokens / figures.ourSeconds)} tokens/s (best of 30 passes, ${megabytes.toFixed(2)} MB in ${figures.messages} texts)`,
  );
  console.log(
    `baseline (raw gpt-tokenizer countTokens): ${(megabytes / figures.rawSeconds).toFixed(2)} MB/s, ${format(figures.textTokens / figures.rawSeconds)} tokens/s`,
  );
  console.log(`ratio: ${(figures.rawSeconds / figures.ourSeconds).toFixed(3)}× raw throughput (goal ≥ 0.9)`);
}

if (wants('eviction')) {
  console.log('\n# evictTask of one task from a 5,000-message, 1,000,000-token history (no fsync)');
  const figures = await benchEviction();
  console.log(
    `history: ${format(figures.items)} items, ${format(figures.tokens)} tokens, ${figures.tasks} tasks; each eviction tombstones ≈ ${figures.evictedItems.toFixed(1)} items, archives ≈ ${(figures.archivedBytes / 1e3).toFixed(0)} kB`,
  );
  console.log(
    `evictTask with the session's index: median ${figures.medianMs.toFixed(2)} ms, p90 ${figures.p90Ms.toFixed(2)} ms over ${figures.runs} tasks (goal ≤ 20 ms); without an index: median ${figures.noIndexMedianMs.toFixed(2)} ms`,
  );
  console.log(
    `baseline (history.slice() + await fs.promises.appendFile of the task's content as JSON): median ${figures.baselineMedianMs.toFixed(2)} ms, p90 ${figures.baselineP90Ms.toFixed(2)} ms`,
  );
  console.log(
    `ratio: ${(figures.medianMs / figures.baselineMedianMs).toFixed(2)}× the baseline's time (medians)`,
  );
}

if (wants('statusline')) {
  console.log(
    '\n# barometer statusline (built CLI, a new process per run, as Claude Code runs it) against node -e 0',
  );
  const figures = benchStatusline();
  console.log(`output: ${figures.output}`);
  console.log(
    `statusline: median ${figures.statuslineMedianMs.toFixed(0)} ms (p90 ${figures.statuslineP90Ms.toFixed(0)}, min ${figures.statuslineMinMs.toFixed(0)}) over ${figures.runs} runs (goal ≤ 110 ms, and ≤ ccusage statusline)`,
  );
  if ('missing' in figures.ccusage)
    console.log(`ccusage statusline: not measured (${figures.ccusage.missing})`);
  else
    console.log(
      `ccusage statusline --offline on the same input: median ${figures.ccusage.medianMs.toFixed(0)} ms (p90 ${figures.ccusage.p90Ms.toFixed(0)}, min ${figures.ccusage.minMs.toFixed(0)}); ours / theirs ${(figures.statuslineMedianMs / figures.ccusage.medianMs).toFixed(2)}× (output: ${figures.ccusage.output})`,
    );
  console.log(
    `statusline reading the 3 MB transcript's tail instead of context_window: median ${figures.transcriptMedianMs.toFixed(0)} ms`,
  );
  console.log(
    `baseline (node -e 0): median ${figures.baselineMedianMs.toFixed(0)} ms (min ${figures.baselineMinMs.toFixed(0)})`,
  );
  console.log(
    `ratio: ${(figures.statuslineMedianMs / figures.baselineMedianMs).toFixed(2)}× node -e 0, medians (goal ≈ 2×)`,
  );
}

if (wants('usage')) {
  const rounds = Number(process.env.BENCH_USAGE_ROUNDS ?? 3);
  const seconds = Number(process.env.BENCH_USAGE_SECONDS ?? 3);
  console.log(
    `\n# what users feel: POST /api/v1/sessions/:id/usage (over 50 sessions) and POST /api/v1/pressure, one server in the default configuration with its rate limits off, against a baseline loaded in the same rounds (node:http alone doing the pressure route's work); keep-alive connections, each sending its next request on the previous answer (bench/http-load.ts); median of ${rounds} rounds of ${seconds} s (range in brackets)`,
  );
  {
    const server = await startUsageServer();
    const bare = await startBareServer();
    try {
      const result = await benchUsageHttp(server, bare, { rounds, seconds });
      const milliseconds = (value: number) => (value < 1 ? value.toFixed(2) : value.toFixed(1));
      const goal = (met: boolean, text: string) => ` (goal ${text}: ${met ? 'met' : 'NOT MET'})`;
      for (const route of ['usage', 'pressure', 'bare'] as const) {
        for (const figures of result.figures[route]) {
          const { connections } = figures;
          const throughputGoal =
            route === 'usage' && connections >= 50 ? goal(figures.rps >= 5000, '≥ 5,000 posts/s') : '';
          const p99Goal =
            route === 'bare'
              ? ''
              : connections === 50
                ? goal(figures.p99Ms <= 20, '≤ 20 ms')
                : connections === 200
                  ? goal(figures.p99Ms <= 100, '≤ 100 ms')
                  : '';
          console.log(
            `${route === 'bare' ? 'baseline (node:http alone doing the pressure work)' : route}, ${connections} connection${connections === 1 ? '' : 's'}: ` +
              `${format(figures.rps)} req/s [${format(figures.rpsRange[0])}–${format(figures.rpsRange[1])}]${throughputGoal}; ` +
              `server CPU ${figures.cpuMicrosPerRequest.toFixed(1)} µs/request [${figures.cpuRange[0].toFixed(1)}–${figures.cpuRange[1].toFixed(1)}]; ` +
              `p50 ${milliseconds(figures.p50Ms)} ms; p99 ${milliseconds(figures.p99Ms)} ms [${milliseconds(figures.p99Range[0])}–${milliseconds(figures.p99Range[1])}]${p99Goal}; ` +
              `max ${milliseconds(figures.maxMs)} ms; server's longest event-loop delay ${milliseconds(figures.loopDelayMaxMs)} ms; ` +
              `opening ${milliseconds(figures.openingMs)} ms [${milliseconds(figures.openingRange[0])}–${milliseconds(figures.openingRange[1])}]`,
          );
        }
      }
      console.log(`answers: usage ${result.usageBytes} bytes, pressure ${result.pressureBytes} bytes`);
      console.log(
        "(latencies: every request sent in the measured window once all the connections were open, as measured, uncorrected; opening: every connection opened at once, until the last had its first answer — Node accepts one new connection per event-loop turn, so it grows with the connections squared times the CPU per request, for the baseline too; a p99 far above the server's longest event-loop delay was spent outside its event loop; each figure is the median of the rounds)",
      );
      const at50 = (route: 'usage' | 'pressure') =>
        result.figures[route].find((figures) => figures.connections === 50);
      const usage50 = at50('usage');
      const pressure50 = at50('pressure');
      if (usage50 && pressure50)
        console.log(
          `(for information, not a goal: usage ÷ pressure at 50 connections, throughput ${(usage50.rps / pressure50.rps).toFixed(3)}×, server CPU per request ${(usage50.cpuMicrosPerRequest / pressure50.cpuMicrosPerRequest).toFixed(2)}×)`,
        );
      for (const [stream, what] of [
        ['/api/v1/events', 'all sessions'],
        ['/api/v1/sessions/bench-1/events', 'one session'],
      ] as const) {
        console.log(
          `\n# the same usage load with 500 event-stream subscribers on GET ${stream} (${what}) against none, same server`,
        );
        const fanOut = await benchUsageFanOut(server, stream);
        console.log(
          `usage without subscribers: ${format(fanOut.medianWithout)} req/s (median); with ${fanOut.subscribers}: ${format(fanOut.medianWith)} req/s (median)`,
        );
        console.log(
          `subscribers: ${fanOut.subscribers} connected each round, fewest still open at a round's end ${fanOut.fewestStillOpen}; received ${(fanOut.bytesAtConnect / 1e6).toFixed(1)} MB on connecting (the first answers), ${(fanOut.bytesDuringLoad / 1e6).toFixed(0)} MB during the loaded rounds (${(fanOut.bytesDuringLoad / 1e6 / fanOut.loadedSeconds).toFixed(1)} MB/s)` +
            (fanOut.socketErrors ? `; socket errors ${fanOut.socketErrors}` : ''),
        );
        console.log(
          `ratio: ${fanOut.medianRatio.toFixed(3)}× with ${fanOut.subscribers} subscribers / without (goal: no collapse)`,
        );
      }
    } finally {
      await server.close();
      await bare.close();
    }
  }
}

if (wants('redis')) {
  console.log(
    '\n# POST /api/v1/sessions/:id/usage with the sessions in Redis against the memory store, two servers, 50 connections over 50 sessions',
  );
  {
    const redisServer = await startRedisServer();
    const memory = await startUsageServer();
    const shared = await startUsageServer({ redisUrl: redisServer.url });
    try {
      const figures = await benchUsageStores(memory, shared);
      console.log(
        `usage on Redis: ${format(figures.medianRedis)} req/s (median); on the memory store: ${format(figures.medianMemory)} req/s (median)`,
      );
      console.log(`ratio: ${figures.medianRatio.toFixed(3)}× the memory store (goal ≥ 0.3×)`);
    } finally {
      await shared.close();
      await memory.close();
      await redisServer.stop();
    }
  }
}

if (wants('pools')) {
  console.log(
    '\n# pool reservations on Redis (RedisPoolStore.reserve, one atomic Redis function) against a raw EVAL of `return 1`',
  );
  const { redisMissing } = await import('../src/test-helpers/redis-server.js');
  const missing = redisMissing();
  if (missing) console.log(`skipped: ${missing}`);
  else {
    const figures = await benchPools();
    console.log(
      `reserve (budget pool): ${format(figures.reservePerSecond)} reservations/s (median of ${figures.rounds} rounds of ${format(figures.operations)}, ${figures.inFlight} in flight, one client)`,
    );
    console.log(
      `reserve (budget + tokens/min + requests/min, the sliding window kept): ${format(figures.windowedReservePerSecond)} reservations/s`,
    );
    console.log(
      `baseline (raw EVAL 'return 1' 0): ${format(figures.evalPerSecond)} /s; EVALSHA of it: ${format(figures.evalshaPerSecond)} /s`,
    );
    console.log(
      `the least an atomic admission does (EVAL of HINCRBY, compare, undo on refusal; no expiry, no clock): ${format(figures.minimalPerSecond)} /s`,
    );
    console.log(
      `Redis server time per call (last round): reserve function ${figures.reserveServerMicros.toFixed(2)} µs, EVAL 'return 1' ${figures.evalServerMicros.toFixed(2)} µs`,
    );
    console.log(`ratio: ${figures.ratio.toFixed(3)}× raw EVAL (goal ≥ 0.5)`);
  }
}

if (wants('install')) {
  console.log(
    '\n# npm install of the packed package into an empty project (npm init -y), against its dependencies alone',
  );
  const figures = await benchInstall();
  const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);
  console.log(
    `tarball: ${megabytes(figures.tarballBytes)} MB packed, ${megabytes(figures.unpackedBytes)} MB unpacked, ${figures.files} files`,
  );
  console.log(
    `installed: ${figures.packages} packages, ${megabytes(figures.diskBytes)} MB on disk in node_modules (goal ≤ 50 MB), in ${figures.installSeconds.toFixed(0)} s`,
  );
  console.log(
    `heaviest: ${figures.heaviest.map((item) => `${item.name} ${megabytes(item.bytes)} MB`).join(', ')}`,
  );
  console.log(
    `baseline (the runtime dependencies alone): ${figures.dependenciesPackages} packages, ${megabytes(figures.dependenciesDiskBytes)} MB on disk`,
  );
  console.log(
    `ratio: ${(figures.diskBytes / figures.dependenciesDiskBytes).toFixed(2)}× the dependencies alone (barometer itself adds ${megabytes(figures.diskBytes - figures.dependenciesDiskBytes)} MB)`,
  );
  console.log(
    figures.warnings.length ? `npm warnings:\n${figures.warnings.join('\n')}` : 'npm warnings: none',
  );
}

if (wants('proxy')) {
  console.log(
    '\n# barometer proxy: what it adds before a request goes upstream and before a streamed event reaches the agent',
  );
  const figures = await benchProxy();
  const ms = (value: number) => value.toFixed(2);
  console.log(
    `${(figures.requestBytes / 1e3).toFixed(0)} KB request, provider has all of it after: direct p50 ${ms(figures.directP50Ms)} ms, p99 ${ms(figures.directP99Ms)} ms (baseline)`,
  );
  console.log(
    `  through the proxy, forwarded as received: p50 ${ms(figures.passedP50Ms)} ms, p99 ${ms(figures.passedP99Ms)} ms; added p50 ${ms(figures.passedP50Ms - figures.directP50Ms)} ms, p99 ${ms(figures.passedP99Ms - figures.directP99Ms)} ms (goal ≤ 2 ms, ≤ 10 ms)`,
  );
  console.log(
    `  through the proxy, tombstones applied: p50 ${ms(figures.editedP50Ms)} ms, p99 ${ms(figures.editedP99Ms)} ms; added p50 ${ms(figures.editedP50Ms - figures.directP50Ms)} ms, p99 ${ms(figures.editedP99Ms - figures.directP99Ms)} ms`,
  );
  console.log(
    `  back to back, streamed (each request of an edited session sent as its previous answer ends): p50 ${ms(figures.backToBackP50Ms)} ms, p99 ${ms(figures.backToBackP99Ms)} ms; added p50 ${ms(figures.backToBackP50Ms - figures.directP50Ms)} ms, p99 ${ms(figures.backToBackP99Ms - figures.directP99Ms)} ms (goal ≤ 2 ms p50, ≤ 10 ms p99); ${figures.backToBackEdited} of ${figures.backToBackRequests} went edited; to the end of the streamed answer (5 ms long) p50 ${ms(figures.backToBackAnsweredP50Ms)} ms against ${ms(figures.directAnsweredP50Ms)} ms direct`,
  );
  console.log(
    `streamed answer, first event written → read by the client: direct p50 ${ms(figures.firstTokenDirectP50Ms)} ms, p99 ${ms(figures.firstTokenDirectP99Ms)} ms (baseline); through the proxy p50 ${ms(figures.firstTokenP50Ms)} ms, p99 ${ms(figures.firstTokenP99Ms)} ms (goal: within 5 ms)`,
  );
}
