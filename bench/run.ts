/**
 * `npm run bench`: every benchmark, each printed with its baseline measured in the same run.
 * `npm run bench -- pressure` (or http, …) runs one.
 */
import { benchHttp } from './http.js';
import { benchPressureEvaluation } from './pressure-eval.js';

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
