import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyValueTable } from '../store/key-value-table.js';
import { StateDatabase } from '../store/state-database.js';
import { buildApp } from './app.js';
import type { ServerOptions } from './options.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const apps: FastifyInstance[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'barometer-lost-'));
  dirs.push(dir);
  return dir;
}

async function makeApp(options: Partial<ServerOptions> = {}, now: () => number = () => T0) {
  const app = await buildApp(
    {
      logLevel: 'silent',
      rateLimitPerMinute: 0,
      ingestRateLimitPerMinute: 0,
      dashboard: false,
      eventFlushMs: 5,
      dataDir: dataDir(),
      ...options,
    },
    { now },
  );
  apps.push(app);
  return app;
}

const post = (app: FastifyInstance, url: string, payload: unknown) =>
  app.inject({ method: 'POST', url, payload: payload as Record<string, unknown> });

describe('sessions survive a restart', () => {
  it('brings every session back as it was (state, timeline, loop guards) after a graceful close', async () => {
    const dir = dataDir();
    const first = await makeApp({ dataDir: dir });
    await post(first, '/api/v1/sessions', {
      id: 'keep',
      model: 'custom',
      contextWindow: 1_000_000,
      optimalMaxTokens: 900_000,
    });
    expect(
      (await post(first, '/api/v1/sessions/keep/usage', { promptTokens: 210_000 })).json().trigger.fire,
    ).toBe(true);
    await post(first, '/api/v1/sessions/keep/usage', { promptTokens: 120_000 });
    const before = (await first.inject({ url: '/api/v1/sessions/keep' })).json();
    await first.close();
    apps.splice(apps.indexOf(first), 1);
    // The session is a row of the database, its timeline's points rows appended to as they grow; owner-only.
    const files = readdirSync(dir).filter((name) => name.startsWith('barometer.db'));
    expect(files).toContain('barometer.db');
    for (const file of files) expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
    // Folded into the file at the clean close: nothing left in the write-ahead log.
    expect(statSync(join(dir, 'barometer.db-wal'), { throwIfNoEntry: false })?.size ?? 0).toBe(0);
    const database = StateDatabase.open(join(dir, 'barometer.db'));
    const rows = database.connection
      .prepare('SELECT count(*) FROM sessions_items WHERE id = ? AND list = 0')
      .raw();
    expect(rows.get('keep')).toEqual([2]);
    database.close();

    const second = await makeApp({ dataDir: dir });
    const after = (await second.inject({ url: '/api/v1/sessions/keep' })).json();
    expect(after).toEqual(before);
    // The trigger lock fired at 210,000 is still held: the loop guard came back with the session.
    const next = (await post(second, '/api/v1/sessions/keep/usage', { promptTokens: 215_000 })).json();
    expect(next.trigger.fire).toBe(false);
    expect(next.trigger.reasons.join(' ')).toContain('locked');
    expect(next.generation).toBe(3);
  });

  it('imports no damaged session file of an older release, keeps it in the imported folder, and starts', async () => {
    const dir = dataDir();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(dir, 'sessions'), { recursive: true });
    writeFileSync(join(dir, 'sessions', 'torn.json'), '{"state":{"versi');
    const app = await makeApp({ dataDir: dir });
    expect((await app.inject({ url: '/api/v1/sessions' })).json().sessions).toEqual([]);
    expect(readdirSync(join(dir, 'sessions.imported'))).toEqual(['torn.json']);
    expect(readFileSync(join(dir, 'sessions.imported', 'torn.json'), 'utf8')).toBe('{"state":{"versi');
  });
});

describe('a data dir of the release before the database (f817969)', () => {
  it("imports its webhooks and the proxy's edits once, keeping the files beside the database", async () => {
    const dir = dataDir();
    cpSync(fileURLToPath(new URL('../store/fixtures/data-dir-f817969', import.meta.url)), dir, {
      recursive: true,
    });
    const proxy = { anthropicUpstream: 'http://127.0.0.1:9' };
    const app = await makeApp({ dataDir: dir, proxy, allowPrivateWebhooks: true });
    const listed = (await app.inject({ url: '/api/v1/webhooks' })).json().webhooks;
    expect(listed).toMatchObject([{ url: 'http://127.0.0.1:9/hook', events: ['session.critical'] }]);
    await app.close();
    apps.splice(apps.indexOf(app), 1);
    expect(readdirSync(join(dir, 'webhooks'))).toEqual(['webhooks.json.imported']);
    expect(readdirSync(join(dir, 'proxy.imported'))).toEqual(['logged.json']);
    const database = StateDatabase.open(join(dir, 'barometer.db'));
    expect(new KeyValueTable(database, 'proxy-sessions').get('logged')).toBe(
      readFileSync(join(dir, 'proxy.imported', 'logged.json'), 'utf8'),
    );
    database.close();
    // A second start imports nothing more, and still has the webhook.
    const again = await makeApp({ dataDir: dir, proxy, allowPrivateWebhooks: true });
    expect((await again.inject({ url: '/api/v1/webhooks' })).json().webhooks).toHaveLength(1);
  });
});

describe('no silent eviction', () => {
  it('refuses one session more than --max-sessions with 503 BR_ERR_SESSION_LIMIT, keeping every session in use', async () => {
    const app = await makeApp({ maxSessions: 2 });
    for (const id of ['a', 'b'])
      expect((await post(app, '/api/v1/sessions', { id, model: 'gpt-4o' })).statusCode).toBe(201);
    const refused = await post(app, '/api/v1/sessions', { id: 'c', model: 'gpt-4o' });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().code).toBe('BR_ERR_SESSION_LIMIT');
    const ids = (await app.inject({ url: '/api/v1/sessions' }))
      .json()
      .sessions.map((s: { id: string }) => s.id);
    expect(ids.sort()).toEqual(['a', 'b']);
  });

  it('expires sessions idle longer than the TTL, and only those', async () => {
    let clock = T0;
    const app = await makeApp({ sessionTtlSeconds: 60 }, () => clock);
    await post(app, '/api/v1/sessions', { id: 'idle', model: 'gpt-4o' });
    await post(app, '/api/v1/sessions', { id: 'busy', model: 'gpt-4o' });
    clock += 50_000;
    await post(app, '/api/v1/sessions/busy/usage', { promptTokens: 10 });
    clock += 20_000;
    expect(await app.barometerMonitor.sweep()).toEqual(['idle']);
    expect((await app.inject({ url: '/api/v1/sessions/idle' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/api/v1/sessions/busy' })).statusCode).toBe(200);
  });
});

describe('bad values never poison state', () => {
  it('answers 400 for a timestamp a date cannot hold, applies nothing, and keeps the list readable', async () => {
    const app = await makeApp();
    await post(app, '/api/v1/sessions', { id: 's', model: 'gpt-4o' });
    const response = await post(app, '/api/v1/sessions/s/usage', {
      promptTokens: 10,
      timestamp: 8640000000000001,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().issues[0].field).toBe('timestamp');
    expect((await app.inject({ url: '/api/v1/sessions/s' })).json().generations).toBe(0);
    expect((await app.inject({ url: '/api/v1/sessions' })).statusCode).toBe(200);
  });

  it('refuses a raw response whose own timestamp a date cannot hold, applying nothing (the library path)', async () => {
    const app = await makeApp();
    await post(app, '/api/v1/sessions', { id: 's', model: 'gpt-4o' });
    await expect(
      app.barometerMonitor.postUsage('s', {
        usage: {
          available: true,
          source: 'manual',
          promptTokens: 1,
          completionTokens: 0,
          totalTokens: 1,
          cachedReadTokens: 0,
          cachedWriteTokens: 0,
          reasoningTokens: 0,
          timestamp: '+275760-09-13T00:00:00.001Z',
        },
      }),
    ).rejects.toThrow(/timestamp/);
    expect((await app.inject({ url: '/api/v1/sessions/s' })).json().generations).toBe(0);
  });

  it('names inconsistent limits: optimal above critical, critical above the window, after above before', async () => {
    const app = await makeApp();
    const optimal = await post(app, '/api/v1/sessions', {
      model: 'x',
      contextWindow: 100_000,
      optimalMaxTokens: 95_000,
      criticalMaxTokens: 90_000,
    });
    expect(optimal.statusCode).toBe(400);
    expect(optimal.json().issues.map((issue: { field: string }) => issue.field)).toEqual([
      'optimalMaxTokens',
    ]);
    const critical = await post(app, '/api/v1/sessions', {
      model: 'x',
      contextWindow: 100_000,
      criticalMaxTokens: 120_000,
    });
    expect(critical.json().issues[0].field).toBe('criticalMaxTokens');
    await post(app, '/api/v1/sessions', { id: 'c', model: 'gpt-4o' });
    const compaction = await post(app, '/api/v1/sessions/c/compactions', { before: 1000, after: 5000 });
    expect(compaction.statusCode).toBe(400);
    expect(compaction.json().issues[0].field).toBe('after');
  });

  it('names a __proto__ key as an unknown field, not as invalid JSON', async () => {
    const app = await makeApp();
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: '{"model":"gpt-4o","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'BR_ERR_INVALID_PARAM',
      issues: [{ field: '__proto__', message: 'unknown parameter' }],
    });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('ids', () => {
  it('uses an id of 128 characters on every route (regression: 101-128 were created, then answered 414)', async () => {
    const app = await makeApp();
    const id = `a${'b'.repeat(127)}`;
    expect((await post(app, '/api/v1/sessions', { id, model: 'gpt-4o' })).statusCode).toBe(201);
    expect((await post(app, `/api/v1/sessions/${id}/usage`, { promptTokens: 10 })).statusCode).toBe(200);
    expect((await post(app, `/api/v1/sessions/${id}/compactions`, { after: 5 })).statusCode).toBe(201);
    expect((await app.inject({ url: `/api/v1/sessions/${id}` })).statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: `/api/v1/sessions/${id}` })).statusCode).toBe(204);
    expect(
      (await post(app, '/api/v1/sessions', { id: `${id}c`, model: 'gpt-4o' })).json().issues[0].field,
    ).toBe('id');
  });
});

describe('the hot path', () => {
  it('answers a usage post in at most 4 KB whatever the session age, without the session view', async () => {
    const app = await makeApp();
    await post(app, '/api/v1/sessions', {
      id: 'old',
      model: 'claude-opus-4-6',
      agent: 'claude-code',
      tpmLimit: 400_000,
    });
    let response = await post(app, '/api/v1/sessions/old/usage', { promptTokens: 100 });
    for (let call = 1; call <= 600; call++) {
      response = await post(app, '/api/v1/sessions/old/usage', {
        promptTokens: 100 + call * 250,
        completionTokens: 300,
      });
    }
    expect(response.statusCode).toBe(200);
    expect(Buffer.byteLength(response.body)).toBeLessThanOrEqual(4096);
    expect(Object.keys(response.json()).sort()).toEqual(
      [
        'at',
        'costUsd',
        'events',
        'generation',
        'health',
        'regulator',
        'sessionId',
        'signals',
        'trigger',
        'verdict',
      ].sort(),
    );
  });
});

describe('hostile clients', () => {
  it('answers 408 and closes a request whose body does not arrive in time, holding no concurrency slot', async () => {
    const app = await makeApp({ requestTimeoutMs: 300, maxConcurrentPerAgent: 1 });
    await post(app, '/api/v1/sessions', { id: 's', model: 'gpt-4o' });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const port = Number(new URL(address).port);
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      'POST /api/v1/sessions/s/usage HTTP/1.1\r\nhost: localhost\r\nx-agent-id: a1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"promptTo',
    );
    // While that body dribbles, the same agent still gets its one slot.
    const other = await fetch(`${address}/api/v1/sessions/s/usage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-id': 'a1' },
      body: '{"promptTokens":5}',
    });
    expect(other.status).toBe(200);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('refuses event streams past the cap with 503 BR_ERR_TOO_MANY_STREAMS', async () => {
    const app = await makeApp({ maxEventStreams: 2 });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const controller = new AbortController();
    const open = () => fetch(`${address}/api/v1/events`, { signal: controller.signal });
    const first = await open();
    const second = await open();
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await fetch(`${address}/api/v1/events`);
    expect(third.status).toBe(503);
    expect(((await third.json()) as { code: string }).code).toBe('BR_ERR_TOO_MANY_STREAMS');
    controller.abort();
  });

  it('disconnects an event-stream client that stops reading and releases it', async () => {
    const app = await makeApp({ maxEventBufferBytes: 1024, eventFlushMs: 0 });
    await post(app, '/api/v1/sessions', { id: 's', model: 'gpt-4o' });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const socket = connect(Number(new URL(address).port), '127.0.0.1');
    // The client asks for the stream and never reads a byte of it.
    socket.pause();
    socket.write('GET /api/v1/sessions/s/events HTTP/1.1\r\nhost: localhost\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(app.barometerEvents.clients).toBe(1);
    // Each update is a few KB on the stream; the kernel's socket buffers fill, then the server's.
    for (let call = 0; call < 20_000 && app.barometerEvents.clients > 0; call++) {
      await post(app, '/api/v1/sessions/s/usage', { promptTokens: 1000 + call });
      if (call % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(app.barometerEvents.clients).toBe(0);
    socket.destroy();
  });
});
