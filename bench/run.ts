/**
 * `npm run bench`: every benchmark, each printed with its baseline measured in the same run.
 * `npm run bench -- pressure` (or http, …) runs one.
 */
import { benchHttp } from './http.js';
import { benchPressureEvaluation } from './pressure-eval.js';
import { benchReplay, benchSessionMemory } from './replay.js';

const selected = new Set(process.argv.slice(2));
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
  console.log('\n# headroom replay of the 3 MB Claude Code log (read + replay, best of 10)');
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

if (wants('http')) {
  console.log('\n# POST /api/v1/pressure, 50 connections, autocannon on 127.0.0.1');
  const { bare, headroom } = await benchHttp();
  console.log(
    `bare node:http: ${format(bare.requestsPerSecond)} req/s, p50 ${bare.p50Ms} ms, p99 ${bare.p99Ms} ms`,
  );
  console.log(
    `headroom (fastify): ${format(headroom.requestsPerSecond)} req/s, p50 ${headroom.p50Ms} ms, p99 ${headroom.p99Ms} ms` +
      (headroom.non2xx ? ` (${headroom.non2xx} non-2xx!)` : ''),
  );
  console.log(
    `ratio: ${(headroom.requestsPerSecond / bare.requestsPerSecond).toFixed(3)}× bare (goal ≥ 0.85), p99 ${headroom.p99Ms} ms (goal ≤ 5 ms)`,
  );
}
