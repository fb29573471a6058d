import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { StateDatabase } from '../store/state-database.js';
import { buildApp } from './app.js';

const NOW = Date.parse('2026-11-26T09:00:00Z');
const dirs: string[] = [];
const apps: FastifyInstance[] = [];

async function app(dataDir?: string, clockSkewSeconds?: number): Promise<FastifyInstance> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'barometer-clock-')));
  if (!dataDir) dirs.push(dir);
  const built = await buildApp(
    {
      logLevel: 'silent',
      dataDir: dir,
      dashboard: false,
      ...(clockSkewSeconds === undefined ? {} : { clockSkewSeconds }),
    },
    { now: () => NOW },
  );
  apps.push(built);
  return built;
}

afterEach(async () => {
  for (const each of apps.splice(0)) await each.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A session with a 10,000 tokens-per-minute quota: a minute window that never drains shows in every verdict. */
async function createSession(service: FastifyInstance, id: string) {
  const created = await service.inject({
    method: 'POST',
    url: '/api/v1/sessions',
    payload: { id, model: 'claude-opus-4-6', tpmLimit: 10_000 },
  });
  expect(created.statusCode).toBe(201);
}

function post(service: FastifyInstance, id: string, body: Record<string, unknown>) {
  return service.inject({ method: 'POST', url: `/api/v1/sessions/${id}/usage`, payload: body });
}

describe('a live usage time ahead of the clock (F4)', () => {
  it('refuses 9999-12-31 with 400 naming the field, and the session goes on at the real time', async () => {
    const service = await app();
    await createSession(service, 'far');
    const refused = await post(service, 'far', {
      promptTokens: 9000,
      completionTokens: 500,
      timestamp: '9999-12-31T23:59:59Z',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'BR_ERR_INVALID_PARAM',
      issues: [{ field: 'timestamp', value: '9999-12-31T23:59:59Z' }],
    });
    expect(refused.json().issues[0].message).toContain('--clock-skew');
    // Nothing was applied: the next update is the session's first, placed now, and its quota is intact.
    const next = await post(service, 'far', { promptTokens: 1000, completionTokens: 100 });
    expect(next.statusCode).toBe(200);
    expect(next.json()).toMatchObject({ generation: 1, at: new Date(NOW).toISOString() });
    expect(next.json().verdict.waitSeconds).toBeNull();
  });

  it('takes its tolerance from clockSkewSeconds, and checks compaction times too', async () => {
    const service = await app(undefined, 60);
    await createSession(service, 'near');
    const ahead = await post(service, 'near', {
      promptTokens: 10,
      completionTokens: 1,
      timestamp: NOW + 61_000,
    });
    expect(ahead.statusCode).toBe(400);
    expect(ahead.json().issues[0].field).toBe('timestamp');
    const within = await post(service, 'near', {
      promptTokens: 10,
      completionTokens: 1,
      timestamp: NOW + 59_000,
    });
    expect(within.statusCode).toBe(200);
    const compaction = await service.inject({
      method: 'POST',
      url: '/api/v1/sessions/near/compactions',
      payload: { before: 10, after: 5, timestamp: '9999-01-01T00:00:00Z' },
    });
    expect(compaction.statusCode).toBe(400);
    expect(compaction.json().issues[0].field).toBe('timestamp');
  });

  it('lets a replayed log keep its own clock', async () => {
    const service = await app();
    const loaded = await service.inject({ method: 'POST', url: '/api/v1/samples/claude-code-small/load' });
    expect(loaded.statusCode).toBe(201);
    // The sample was recorded before NOW: its points keep their recorded times.
    expect(Date.parse(loaded.json().timeline[0].timestamp)).toBeLessThan(NOW);
  });

  it('repairs on load a session an earlier build left in 9999: its windows emptied, its verdicts no longer wait', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'barometer-clock-poisoned-'));
    dirs.push(dataDir);
    // The earlier build: no clock rule (clockSkewSeconds 86400 cannot reach 9999, so the state is written by hand
    // from a session that took its tokens at the far-future time).
    const first = await app(dataDir);
    await createSession(first, 'poisoned');
    expect((await post(first, 'poisoned', { promptTokens: 9500, completionTokens: 400 })).statusCode).toBe(
      200,
    );
    await first.close();
    apps.splice(apps.indexOf(first), 1);
    const database = StateDatabase.open(join(dataDir, 'barometer.db'));
    const row = database.connection.prepare('SELECT data FROM sessions WHERE id = ?').raw();
    const record = JSON.parse((row.get('poisoned') as [string])[0]);
    const future = Date.parse('9999-12-31T00:00:00Z');
    const shift = (window: { latest: number | null }, bucketMs: number) => {
      window.latest = Math.floor(future / bucketMs);
    };
    record.state.lastAt = future;
    shift(record.state.minute, 2000);
    for (const name of ['requests', 'input', 'output']) shift(record.state.quota[name], 2000);
    shift(record.state.burn, 10_000);
    database.connection
      .prepare('UPDATE sessions SET data = ? WHERE id = ?')
      .run(JSON.stringify(record), 'poisoned');
    database.close();

    const second = await app(dataDir);
    const answer = await post(second, 'poisoned', { promptTokens: 1000, completionTokens: 100 });
    expect(answer.statusCode).toBe(200);
    // Placed at the real time, not after 9999; the quota window holds only this call's 1,100 of 10,000 tokens.
    expect(answer.json().at).toBe(new Date(NOW).toISOString());
    expect(answer.json().verdict.action).not.toBe('wait');
    expect(answer.json().verdict.waitSeconds).toBeNull();
  });
});
