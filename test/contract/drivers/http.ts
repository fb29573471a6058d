import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../../src/server/index.js';
import { CASE_CLOCK_SKEW_SECONDS, REPO_ROOT } from '../fixtures.js';
import type { Driver, Outcome } from './driver.js';

/** A 400's issues as a refusal; any other status that is not the expected one fails the test with the body. */
function outcomeOf<T>(response: LightMyRequestResponse, expected: number): Outcome<T> {
  if (response.statusCode === expected) return { ok: true, value: response.json() as T };
  if (response.statusCode === 400) {
    const body = response.json() as { issues: Array<{ field: string; message: string }> };
    return { ok: false, issues: body.issues.map(({ field, message }) => ({ field, message })) };
  }
  throw new Error(`HTTP ${response.statusCode}: ${response.body}`);
}

function answerOf<T>(response: LightMyRequestResponse, expected: number): T {
  const outcome = outcomeOf<T>(response, expected);
  if (!outcome.ok) throw new Error(`HTTP 400: ${JSON.stringify(outcome.issues)}`);
  return outcome.value;
}

/**
 * The HTTP service in-process (`buildApp` from the `barometer/server` entry, `app.inject`), on a temporary data
 * dir, with the same fixed clock as the library driver. Rate limits are off: the suite sends a few hundred requests
 * in a second, which seed 000's 100 per minute per IP would refuse.
 *
 * It has no route for: the KV snapshot, health thresholds and cadence, the trigger decision and the thinking
 * budget on their own (those models speak over HTTP only inside a session's verdict, which the session
 * fixtures check), prompt regressions (seed 002's metrics), and loading an arbitrary log into a live session
 * (only the bundled samples: POST /api/v1/samples/:name/load; any log can be replayed).
 */
const ONLY_IN_A_VERDICT =
  'no route answers this model on its own: over HTTP it speaks inside a session’s verdict, which the session fixtures check';
/** What the service has no route for, and why. */
const HTTP_LACKS: Driver['lacks'] = {
  loadLog:
    'no route loads an arbitrary log into a live session: only the bundled samples (POST /api/v1/samples/:name/load); any log can be replayed',
  promptRegressions: 'no route reports prompt regressions (the library’s prompt metrics)',
  kvSnapshot: ONLY_IN_A_VERDICT,
  healthThresholds: ONLY_IN_A_VERDICT,
  cautionCadence: ONLY_IN_A_VERDICT,
  evaluateTriggers: ONLY_IN_A_VERDICT,
  thinkingBudget: ONLY_IN_A_VERDICT,
};

export function httpDriver(now: number): Driver {
  let app: FastifyInstance | undefined;
  let dataDir: string | undefined;
  const server = (): FastifyInstance => {
    if (!app) throw new Error('the HTTP driver is not started');
    return app;
  };
  const post = (url: string, payload: Record<string, unknown>) =>
    server().inject({ method: 'POST', url, payload });
  return {
    name: 'http',
    lacks: HTTP_LACKS,
    async start() {
      dataDir = await mkdtemp(join(tmpdir(), 'barometer-contract-'));
      app = await buildApp(
        {
          logLevel: 'silent',
          rateLimitPerMinute: 0,
          dataDir,
          dashboard: false,
          // The clock is fixed; the cases' steps go on a minute each (see the library driver).
          clockSkewSeconds: CASE_CLOCK_SKEW_SECONDS,
        },
        { now: () => now },
      );
    },
    async stop() {
      await app?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },

    async pressure(input) {
      return outcomeOf(await post('/api/v1/pressure', input), 200);
    },
    async replay(file) {
      const response = await server().inject({
        method: 'POST',
        url: '/api/v1/replay',
        headers: { 'content-type': 'application/x-ndjson' },
        payload: await readFile(join(REPO_ROOT, file), 'utf8'),
      });
      return answerOf(response, 200);
    },

    async createSession(options) {
      return outcomeOf(await post('/api/v1/sessions', options), 201);
    },
    async postUsage(id, body) {
      return answerOf(await post(`/api/v1/sessions/${encodeURIComponent(id)}/usage`, body), 200);
    },
    async view(id) {
      return answerOf(
        await server().inject({ method: 'GET', url: `/api/v1/sessions/${encodeURIComponent(id)}` }),
        200,
      );
    },
    async loadSample(name) {
      return answerOf(await post(`/api/v1/samples/${encodeURIComponent(name)}/load`, {}), 201);
    },

    async checkHotState(body) {
      return answerOf(await post('/api/v1/hot-state/check', body), 200);
    },
  };
}
