import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemoryPoolStore } from '../pools/memory-pool-store.js';
import type { PoolStore } from '../pools/pool-store.js';
import { RedisPoolStore } from '../pools/redis-pool-store.js';
import {
  type RedisServer,
  redisMissing,
  skipWithoutRedis,
  startRedisServer,
} from '../test-helpers/redis-server.js';
import { buildApp } from './app.js';
import type { ServerOptions } from './options.js';

const T0 = Date.UTC(2030, 0, 1);
const apps: FastifyInstance[] = [];
const dataDirs: string[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function makeApp(pools?: PoolStore, options: ServerOptions = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'barometer-pools-'));
  dataDirs.push(dataDir);
  let now = T0;
  const app = await buildApp(
    {
      logLevel: 'silent',
      rateLimitPerMinute: 0,
      ingestRateLimitPerMinute: 0,
      dataDir,
      dashboard: false,
      ...options,
    },
    { now: () => now, pools: pools ?? new MemoryPoolStore({ now: () => now }) },
  );
  apps.push(app);
  const advance = (ms: number) => {
    now += ms;
  };
  return { app, advance };
}

const post = (app: FastifyInstance, url: string, payload: unknown) =>
  app.inject({ method: 'POST', url, payload: payload as object });

describe('/api/v1/pools (app.inject)', () => {
  it('creates a pool, reserves, refuses with 429 { retryAfterSeconds, reason }, settles once, and shows the figures', async () => {
    const { app } = await makeApp();
    const created = await post(app, '/api/v1/pools', { id: 'team', tokenBudget: 10_000 });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ id: 'team', used: 0, reserved: 0, left: 10_000, level: 'LOW' });

    const granted = await post(app, '/api/v1/pools/team/reservations', {
      agentId: 'a1',
      tokens: 6000,
      priority: 'normal',
    });
    expect(granted.statusCode).toBe(201);
    const { reservationId, expiresAt } = granted.json();
    expect(expiresAt).toBe(new Date(T0 + 120_000).toISOString());

    const refused = await post(app, '/api/v1/pools/team/reservations', {
      agentId: 'a2',
      tokens: 2000,
      priority: 'normal',
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('120');
    expect(refused.json()).toMatchObject({
      code: 'BR_ERR_POOL_EXHAUSTED',
      reason: 'budget_reserved',
      retryAfterSeconds: 120,
      limit: 7000,
      current: 6000,
      requested: 2000,
    });
    // Urgent work keeps its share.
    expect(
      (
        await post(app, '/api/v1/pools/team/reservations', {
          agentId: 'a2',
          tokens: 2000,
          priority: 'urgent',
        })
      ).statusCode,
    ).toBe(201);

    const url = `/api/v1/pools/team/reservations/${reservationId}/settle`;
    const settled = await post(app, url, { actualTokens: 6500 });
    expect(settled.statusCode).toBe(200);
    expect(settled.json()).toMatchObject({ reservedTokens: 6000, actualTokens: 6500, alreadySettled: false });
    expect((await post(app, url, { actualTokens: 1 })).json()).toMatchObject({
      actualTokens: 6500,
      alreadySettled: true,
    });

    const view = (await app.inject({ url: '/api/v1/pools/team' })).json();
    expect(view).toMatchObject({
      used: 6500,
      reserved: 2000,
      left: 1500,
      reservations: 1,
      level: 'CRITICAL',
      usedFraction: 0.85,
    });

    // Settled usage leaves 500 under normal's 7,000: waiting cannot help, and the 429 still carries both fields.
    const spent = await post(app, '/api/v1/pools/team/reservations', { agentId: 'a3', tokens: 600 });
    expect(spent.statusCode).toBe(429);
    expect(spent.headers['retry-after']).toBeUndefined();
    expect(spent.json()).toMatchObject({ reason: 'budget_exhausted', retryAfterSeconds: null });
  });

  it('releases an expired reservation (a crashed agent frees its share) and lists and deletes pools', async () => {
    const { app, advance } = await makeApp();
    await post(app, '/api/v1/pools', { id: 'p1', tokenBudget: 1000 });
    await post(app, '/api/v1/pools', { id: 'p0', tokensPerMinute: 1000 });
    const { reservationId } = (
      await post(app, '/api/v1/pools/p1/reservations', { agentId: 'a', tokens: 700, ttlSeconds: 5 })
    ).json();
    expect((await app.inject({ url: '/api/v1/pools/p1' })).json().reserved).toBe(700);
    advance(5000);
    expect((await app.inject({ url: '/api/v1/pools/p1' })).json()).toMatchObject({
      reserved: 0,
      reservations: 0,
    });
    const released = await app.inject({
      method: 'DELETE',
      url: `/api/v1/pools/p1/reservations/${reservationId}`,
    });
    expect(released.json()).toMatchObject({ state: 'expired', released: false });
    const list = (await app.inject({ url: '/api/v1/pools' })).json();
    expect(list.pools.map((pool: { id: string }) => pool.id)).toEqual(['p0', 'p1']);
    expect(list.pools[0]).toMatchObject({
      tokenBudget: null,
      left: null,
      lastMinute: { tokens: 0, requests: 0 },
    });
    expect((await app.inject({ method: 'DELETE', url: '/api/v1/pools/p1' })).statusCode).toBe(204);
    const gone = await app.inject({ method: 'DELETE', url: '/api/v1/pools/p1' });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('BR_ERR_POOL_NOT_FOUND');
  });

  it('answers bad input with 400 naming the field, 404/409 with catalogued codes, and writes nothing', async () => {
    const { app } = await makeApp();
    await post(app, '/api/v1/pools', { id: 'team', tokenBudget: 1000 });
    const bad = await post(app, '/api/v1/pools/team/reservations', {
      agentId: 'a',
      tokens: -5,
      priority: 'asap',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues.map((issue: { field: string }) => issue.field)).toEqual(['tokens', 'priority']);
    expect(bad.json().example).toContain('/reservations');
    const ceilings = await post(app, '/api/v1/pools', {
      id: 'x',
      tokenBudget: 1000,
      priorityCeilings: { high: 0.6 },
    });
    expect(ceilings.json().issues[0]).toMatchObject({ field: 'priorityCeilings.high' });
    expect((await post(app, '/api/v1/pools', { id: 'team', tokenBudget: 5 })).json().code).toBe(
      'BR_ERR_POOL_EXISTS',
    );
    expect((await app.inject({ url: '/api/v1/pools/nope' })).json().code).toBe('BR_ERR_POOL_NOT_FOUND');
    const unknown = await post(app, `/api/v1/pools/team/reservations/rsv_${'a'.repeat(32)}/settle`, {
      actualTokens: 5,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('BR_ERR_RESERVATION_NOT_FOUND');
    const badRid = await post(app, '/api/v1/pools/team/reservations/r1/settle', { actualTokens: 5 });
    expect(badRid.json().issues[0].field).toBe('rid');
    expect((await app.inject({ url: '/api/v1/pools/team' })).json()).toMatchObject({ used: 0, reserved: 0 });
    expect((await app.inject({ url: '/api/v1/pools' })).json().pools).toHaveLength(1);
  });

  it('needs the admin scope to create or delete a pool and write to reserve and settle', async () => {
    const admin = 'admin-key-0123456789';
    const writer = 'write-key-0123456789';
    const { app } = await makeApp(undefined, {
      apiKeys: [
        { key: admin, scopes: ['admin'] },
        { key: writer, scopes: ['write'] },
      ],
    });
    const as = (key: string, method: 'POST' | 'GET' | 'DELETE', url: string, payload?: object) =>
      app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${key}` },
        ...(payload ? { payload } : {}),
      });
    expect((await as(writer, 'POST', '/api/v1/pools', { id: 'p', tokenBudget: 100 })).json()).toMatchObject({
      code: 'BR_ERR_FORBIDDEN',
      scope: 'admin',
    });
    expect((await as(admin, 'POST', '/api/v1/pools', { id: 'p', tokenBudget: 100 })).statusCode).toBe(201);
    expect(
      (await as(writer, 'POST', '/api/v1/pools/p/reservations', { agentId: 'a', tokens: 10 })).statusCode,
    ).toBe(201);
    expect((await as(writer, 'GET', '/api/v1/pools/p')).statusCode).toBe(200);
    expect((await as(writer, 'DELETE', '/api/v1/pools/p')).statusCode).toBe(403);
  });

  it('exposes pool gauges and refusals by reason on /metrics', async () => {
    const { app } = await makeApp();
    await post(app, '/api/v1/pools', { id: 'team', tokenBudget: 1000 });
    await post(app, '/api/v1/pools/team/reservations', { agentId: 'a', tokens: 700 });
    await post(app, '/api/v1/pools/team/reservations', { agentId: 'a', tokens: 1 });
    const text = (await app.inject({ url: '/metrics' })).body;
    expect(text).toContain('barometer_pool_tokens{pool="team",kind="reserved"} 700');
    expect(text).toContain('barometer_pool_tokens{pool="team",kind="budget"} 1000');
    expect(text).toContain('barometer_pool_refusals_total{pool="team",reason="budget_reserved"} 1');
    expect(text).toContain('barometer_pool_reservations_total{outcome="admitted"} 1');
  });

  it('works over a real socket on 127.0.0.1', async () => {
    const { app } = await makeApp();
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${address}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return {
        status: response.status,
        headers: response.headers,
        body: (await response.json()) as Record<string, unknown>,
      };
    };
    expect((await call('POST', '/api/v1/pools', { id: 'net', tokenBudget: 100 })).status).toBe(201);
    const granted = await call('POST', '/api/v1/pools/net/reservations', { agentId: 'a', tokens: 70 });
    expect(granted.status).toBe(201);
    const refused = await call('POST', '/api/v1/pools/net/reservations', { agentId: 'a', tokens: 1 });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('120');
    expect(refused.body).toMatchObject({ reason: 'budget_reserved', retryAfterSeconds: 120 });
    const settled = await call(
      'POST',
      `/api/v1/pools/net/reservations/${granted.body.reservationId}/settle`,
      { actualTokens: 50 },
    );
    expect(settled.body).toMatchObject({ actualTokens: 50 });
    expect((await call('GET', '/api/v1/pools/net')).body).toMatchObject({ used: 50, reserved: 0, left: 50 });
  });
});

const missing = redisMissing();
describe.skipIf(skipWithoutRedis('pools on one Redis behind two service instances'))(
  'pools on one Redis behind two service instances',
  () => {
    let server: RedisServer;
    const clients: Redis[] = [];

    beforeAll(async () => {
      if (missing) throw new Error(`${missing}; CI is set, so the Redis suite fails instead of skipping`);
      server = await startRedisServer();
      clients.push(new Redis(server.url), new Redis(server.url));
    });

    afterAll(async () => {
      for (const client of clients) await client.quit();
      await server?.stop();
    });

    /** Two apps, each with its own client and RedisPoolStore on the same Redis, listening on 127.0.0.1. */
    async function twoInstances(prefix: string) {
      const urls: string[] = [];
      for (const client of clients) {
        const { app } = await makeApp(new RedisPoolStore(client, { keyPrefix: prefix }));
        urls.push(await app.listen({ host: '127.0.0.1', port: 0 }));
      }
      return urls;
    }

    async function reserveEverywhere(
      urls: string[],
      poolId: string,
      count: number,
      tokens: number,
      priority: string,
    ) {
      return Promise.all(
        Array.from({ length: count }, async (_, index) => {
          const response = await fetch(`${urls[index % urls.length]}/api/v1/pools/${poolId}/reservations`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ agentId: `agent-${index}`, tokens, priority }),
          });
          return response.status;
        }),
      );
    }

    it('admits exactly budget × ceiling out of 200 concurrent reservations split over both instances', async () => {
      const urls = await twoInstances('two-apps:');
      const created = await fetch(`${urls[0]}/api/v1/pools`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'shared', tokenBudget: 100_000 }),
      });
      expect(created.status).toBe(201);
      // Demand 200 × 1,000 = 200,000 against normal's 70,000.
      const statuses = await reserveEverywhere(urls, 'shared', 200, 1000, 'normal');
      expect(statuses.filter((status) => status === 201)).toHaveLength(70);
      expect(statuses.filter((status) => status === 429)).toHaveLength(130);
      const views = await Promise.all(
        urls.map(async (url) => (await fetch(`${url}/api/v1/pools/shared`)).json()),
      );
      for (const view of views)
        expect(view).toMatchObject({ reserved: 70_000, reservations: 70, level: 'HIGH' });
    });

    it('never over-commits with uneven sizes and mixed priorities through two ioredis clients', async () => {
      const pools = new RedisPoolStore(clients[0]!, { keyPrefix: 'mixed:' });
      await pools.create({ id: 'mixed', tokenBudget: 50_000 });
      const decisions = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          new RedisPoolStore(clients[index % 2]!, { keyPrefix: 'mixed:' }).reserve('mixed', {
            agentId: `agent-${index}`,
            tokens: 137 + ((index * 7919) % 1500),
            priority: (['low', 'normal', 'high', 'urgent'] as const)[index % 4],
          }),
        ),
      );
      const admitted = decisions.flatMap((decision) => (decision.ok ? [decision.reservation.tokens] : []));
      const total = admitted.reduce((sum, tokens) => sum + tokens, 0);
      expect(total).toBeLessThanOrEqual(50_000);
      expect((await pools.view('mixed')).reserved).toBe(total);
    });
  },
);
