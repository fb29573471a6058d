import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BarometerError } from '../errors/barometer-error.js';
import { startServer } from '../server/serve.js';
import { SessionMonitor, type SessionRecord } from '../session/session-monitor.js';
import { SqliteStateStore } from '../store/sqlite-state-store.js';
import type { StateStore } from '../store/state-store.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { okMessage } from './test-helpers/fake-anthropic.js';
import { scriptedHistory, tombstones } from './test-helpers/scripted-history.js';

type Json = Record<string, unknown>;

/** The value of one sample `name{labels} value` of a Prometheus text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(',');
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{${wanted}} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

/** An in-process store whose next `failures` updates are refused, as a shared store that is away refuses them. */
class FlakyStore implements StateStore<SessionRecord> {
  failures = 0;
  readonly #inner = new SqliteStateStore<SessionRecord>();
  get = (id: string) => this.#inner.get(id);
  values = () => this.#inner.values();
  page = (after: string | null, limit: number) => this.#inner.page(after, limit);
  create = (id: string, value: SessionRecord) => this.#inner.create(id, value);
  delete = (id: string) => this.#inner.delete(id);
  size = () => this.#inner.size();
  close = () => this.#inner.close();
  update(id: string, change: (current: SessionRecord) => SessionRecord) {
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(new BarometerError('BR_ERR_STORE_UNAVAILABLE', 'the test store is away'));
    }
    return this.#inner.update(id, change);
  }
}

let root: string;
let fake: CassetteServer;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'barometer-proxy-gate-'));
  fake = await startCassetteServer(okMessage);
});
afterAll(async () => {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

/** Sends one request of the session; answers the bytes sent and the bytes the provider received. */
async function send(url: string, session: string, body: Json): Promise<{ sent: Buffer; received: Buffer }> {
  const sent = Buffer.from(JSON.stringify(body), 'utf8');
  const seen = fake.requests.length;
  const answer = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'test', 'x-barometer-session': session },
    body: sent,
  });
  expect(answer.status).toBe(200);
  await answer.text();
  expect(fake.requests.length).toBe(seen + 1);
  return { sent, received: fake.requests.at(-1)!.raw };
}

const metricsOf = async (url: string) => (await fetch(`${url}/metrics`)).text();

describe('an acting proxy whose session cannot be created', () => {
  it('sends the agent’s bytes as they came until the session is created, then acts again', async () => {
    const server = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'limit'),
      // One session at most: the store is full once another session holds it (BR_ERR_SESSION_LIMIT).
      maxSessions: 1,
      proxy: { anthropicUpstream: fake.url },
    });
    try {
      const filler = await fetch(`${server.url}/api/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'filler', model: 'claude-sonnet-4-5' }),
      });
      expect(filler.status).toBe(201);
      // The sub-task ends (a commit) in the first request: an acting proxy would evict its reads from the second on.
      for (const reads of [6, 7]) {
        const { sent, received } = await send(server.url, 'limited', scriptedHistory(reads));
        expect(received.equals(sent), `request of ${reads} reads`).toBe(true);
      }
      await vi.waitFor(async () => {
        const metrics = await metricsOf(server.url);
        expect(sample(metrics, 'barometer_proxy_failures_total', { stage: 'session' })).toBe(2);
        expect(sample(metrics, 'barometer_proxy_pauses_total', { stage: 'session' })).toBe(1);
        expect(sample(metrics, 'barometer_proxy_sessions', { state: 'paused' })).toBe(1);
        expect(sample(metrics, 'barometer_proxy_sessions', { state: 'acting' })).toBe(0);
      });
      expect((await fetch(`${server.url}/api/v1/sessions/limited`)).status).toBe(404);

      expect((await fetch(`${server.url}/api/v1/sessions/filler`, { method: 'DELETE' })).status).toBe(204);
      // Still paused when it goes: this request is the one whose session is created, and it goes as it came.
      const created = await send(server.url, 'limited', scriptedHistory(8));
      expect(created.received.equals(created.sent)).toBe(true);
      // Recorded now: the policy read that request, and the next one carries its tombstones.
      const acted = await send(server.url, 'limited', scriptedHistory(9));
      const received = JSON.parse(acted.received.toString('utf8')) as Json;
      expect([...tombstones(received).keys()].sort()).toEqual(['toolu_0', 'toolu_1', 'toolu_2']);

      await vi.waitFor(async () => {
        const view = (await (await fetch(`${server.url}/api/v1/sessions/limited`)).json()) as Json;
        expect(view.generations).toBe(2);
        expect(view.proxy).toEqual({
          mode: 'act',
          acting: true,
          pause: {
            stage: 'session',
            code: 'BR_ERR_SESSION_LIMIT',
            message: expect.stringContaining('maximum of 1 sessions'),
            since: expect.any(String),
            until: expect.any(String),
          },
        });
      });
      const metrics = await metricsOf(server.url);
      expect(sample(metrics, 'barometer_proxy_sessions', { state: 'acting' })).toBe(1);
      expect(sample(metrics, 'barometer_proxy_sessions', { state: 'paused' })).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('an acting proxy whose answer cannot be recorded', () => {
  it('makes no new edit from then on, keeps the ones made before, and acts again once a record succeeds', async () => {
    const store = new FlakyStore();
    const monitor = new SessionMonitor({ store });
    const server = await startServer(
      {
        port: 0,
        logLevel: 'silent',
        dashboard: false,
        dataDir: join(root, 'flaky'),
        proxy: { anthropicUpstream: fake.url },
      },
      { monitor },
    );
    // Two sub-tasks: reads 0-2 end with the commit at 3, reads 4-6 with the commit at 7.
    const history = (reads: number) => scriptedHistory(reads, [3, 7]);
    const view = async () => (await (await fetch(`${server.url}/api/v1/sessions/flaky`)).json()) as Json;
    try {
      await send(server.url, 'flaky', history(6));
      const second = JSON.parse((await send(server.url, 'flaky', history(7))).received.toString()) as Json;
      expect([...tombstones(second).keys()].sort()).toEqual(['toolu_0', 'toolu_1', 'toolu_2']);
      // Both answers recorded (and nothing else of the session left to write) before the store goes away once.
      await vi.waitFor(async () => expect((await view()).generations).toBe(2));

      store.failures = 1;
      // The second sub-task ends in this request; its answer's usage is refused.
      await send(server.url, 'flaky', history(8));
      await vi.waitFor(async () =>
        expect((await view()).proxy).toEqual({
          mode: 'act',
          acting: false,
          pause: {
            stage: 'record',
            code: 'BR_ERR_STORE_UNAVAILABLE',
            message: 'the test store is away',
            since: expect.any(String),
            until: null,
          },
        }),
      );
      const metrics = await metricsOf(server.url);
      expect(sample(metrics, 'barometer_proxy_failures_total', { stage: 'record' })).toBe(1);
      expect(sample(metrics, 'barometer_proxy_pauses_total', { stage: 'record' })).toBe(1);
      expect(sample(metrics, 'barometer_proxy_sessions', { state: 'paused' })).toBe(1);

      // The edits made before the failure stay (the provider cached the prefix with them); none is added.
      const paused = await send(server.url, 'flaky', history(9));
      const pausedBody = history(9);
      for (const message of pausedBody.messages as Json[])
        for (const block of Array.isArray(message.content) ? (message.content as Json[]) : [])
          if (
            block.type === 'tool_result' &&
            ['toolu_0', 'toolu_1', 'toolu_2'].includes(block.tool_use_id as string)
          )
            block.content = tombstones(second).get(block.tool_use_id as string);
      // The proxy's own cache breakpoint on the batch's last tombstone (the request has none of the agent's after it).
      for (const message of pausedBody.messages as Json[])
        for (const block of Array.isArray(message.content) ? (message.content as Json[]) : [])
          if (block.type === 'tool_result' && block.tool_use_id === 'toolu_2')
            block.cache_control = { type: 'ephemeral' };
      expect(paused.received.toString('utf8')).toBe(JSON.stringify(pausedBody));

      // That answer was recorded: the policy read its request, and the next one carries the second sub-task's too.
      const resumed = JSON.parse((await send(server.url, 'flaky', history(10))).received.toString()) as Json;
      expect([...tombstones(resumed).keys()].sort()).toEqual([
        'toolu_0',
        'toolu_1',
        'toolu_2',
        'toolu_4',
        'toolu_5',
        'toolu_6',
      ]);
      const after = await view();
      expect(after.proxy).toMatchObject({ mode: 'act', acting: true, pause: { stage: 'record' } });
      expect((after.proxy as { pause: { until: unknown } }).pause.until).toEqual(expect.any(String));
    } finally {
      await server.close();
      await monitor.close();
    }
  });
});
