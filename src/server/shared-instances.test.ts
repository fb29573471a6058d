import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServer,
  redisMissing,
  skipWithoutRedis,
  startRedisServer,
} from '../test-helpers/redis-server.js';
import { exitOf, startServeProcess } from '../test-helpers/spawn-cli.js';
import { buildApp } from './app.js';
import type { ServerOptions } from './options.js';

const missing = redisMissing();

interface View {
  generations: number;
  timeline: Array<{ promptTokens: number; timestamp: string }>;
}

async function getView(url: string): Promise<View> {
  return (await (await fetch(url)).json()) as View;
}

interface Instance {
  app: FastifyInstance;
  base: string;
}

async function post(base: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe.skipIf(skipWithoutRedis('several instances on one Redis'))('several instances on one Redis', () => {
  let server: RedisServer;
  let dataDir: string;
  let prefix = 0;
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the Redis suite fails instead of skipping`);
    server = await startRedisServer();
    dataDir = mkdtempSync(join(tmpdir(), 'barometer-shared-'));
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Two instances of one service: the same Redis and prefix. */
  async function twoInstances(options: ServerOptions = {}): Promise<[Instance, Instance]> {
    prefix += 1;
    const started: Instance[] = [];
    for (let index = 0; index < 2; index += 1) {
      const app = await buildApp({
        logLevel: 'silent',
        dashboard: false,
        dataDir,
        redisUrl: server.url,
        redisPrefix: `t${prefix}:`,
        ...options,
      });
      apps.push(app);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      started.push({
        app,
        base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
      });
    }
    return started as [Instance, Instance];
  }

  it('applies 200 concurrent usage posts for one session split across two instances, once each', async () => {
    const [a, b] = await twoInstances();
    expect((await post(a.base, '/api/v1/sessions', { id: 'shared', model: 'claude-opus-4-6' })).status).toBe(
      201,
    );
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        post(index % 2 === 0 ? a.base : b.base, '/api/v1/sessions/shared/usage', {
          promptTokens: 10_000 + index,
          completionTokens: 100,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(200));
    const generations = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as { generation: number }).generation),
    );
    // Every update got its own generation: 1 to 200, none twice, none lost.
    expect([...generations].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    for (const instance of [a, b]) {
      const view = await getView(`${instance.base}/api/v1/sessions/shared`);
      expect(view.generations).toBe(200);
      expect(view.timeline).toHaveLength(200);
      // Each posted prompt appears once in the timeline.
      const prompts = view.timeline.map((point: { promptTokens: number }) => point.promptTokens);
      expect(new Set(prompts).size).toBe(200);
      // Points are in the order the updates were applied, with non-decreasing times.
      const times = view.timeline.map((point: { timestamp: string }) => Date.parse(point.timestamp));
      expect(times).toEqual([...times].sort((x, y) => x - y));
    }
  });

  it('shows on one instance the session created on the other, and its list and deletion', async () => {
    const [a, b] = await twoInstances();
    await post(a.base, '/api/v1/sessions', { id: 'seen', model: 'gpt-5' });
    expect((await fetch(`${b.base}/api/v1/sessions/seen`)).status).toBe(200);
    const list = (await (await fetch(`${b.base}/api/v1/sessions`)).json()) as {
      sessions: Array<{ id: string }>;
    };
    expect(list.sessions.map((session: { id: string }) => session.id)).toContain('seen');
    expect((await post(b.base, '/api/v1/sessions', { id: 'seen', model: 'gpt-5' })).status).toBe(409);
    expect((await fetch(`${b.base}/api/v1/sessions/seen`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${a.base}/api/v1/sessions/seen`)).status).toBe(404);
  });

  it('streams on one instance the updates posted through the other', async () => {
    const [a, b] = await twoInstances();
    await post(a.base, '/api/v1/sessions', { id: 'live', model: 'custom', contextWindow: 200_000 });
    const controller = new AbortController();
    const response = await fetch(`${b.base}/api/v1/sessions/live/events`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}: ${text}`);
        text += decoder.decode(value);
      }
    };
    await readUntil('event: session');
    expect((await post(a.base, '/api/v1/sessions/live/usage', { promptTokens: 120_000 })).status).toBe(200);
    await readUntil('event: reminder_added');
    await readUntil('"level":"caution"');
    controller.abort();
  });

  it('counts the rate limit over the service: a client cannot double its budget by using both', async () => {
    const [a, b] = await twoInstances({ ingestRateLimitPerMinute: 10 });
    const statuses: number[] = [];
    for (let index = 0; index < 12; index += 1) {
      const response = await post(index % 2 === 0 ? a.base : b.base, '/api/v1/sessions', {
        id: `r${index}`,
        model: 'gpt-5',
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(201));
    expect(statuses.slice(10)).toEqual([429, 429]);
  });

  it('keeps every acknowledged update when an instance is killed with SIGKILL under load', async () => {
    prefix += 1;
    const redisPrefix = `t${prefix}:`;
    const victim = await startServeProcess([
      '--redis',
      server.url,
      '--redis-prefix',
      redisPrefix,
      '--data-dir',
      dataDir,
    ]);
    const [survivor] = await (async () => {
      const app = await buildApp({
        logLevel: 'silent',
        dashboard: false,
        dataDir,
        redisUrl: server.url,
        redisPrefix,
      });
      apps.push(app);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      return [`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`];
    })();
    expect((await post(victim.url, '/api/v1/sessions', { id: 'k', model: 'gpt-5' })).status).toBe(201);
    const acknowledged: number[] = [];
    let stop = false;
    const load = Array.from({ length: 8 }, async (_, worker) => {
      for (let index = 0; !stop; index += 1) {
        const prompt = 1_000_000 + worker * 10_000 + index;
        try {
          const answer = await post(victim.url, '/api/v1/sessions/k/usage', { promptTokens: prompt });
          if (answer.status === 200) acknowledged.push(prompt);
        } catch {
          return; // the instance is gone
        }
      }
    });
    while (acknowledged.length < 100) await new Promise((resolve) => setTimeout(resolve, 10));
    victim.child.kill('SIGKILL');
    expect(await exitOf(victim.child)).toBe('SIGKILL');
    stop = true;
    await Promise.all(load);
    const view = await getView(`${survivor}/api/v1/sessions/k`);
    const kept = new Set(view.timeline.map((point: { promptTokens: number }) => point.promptTokens));
    // Every acknowledged update is there; at most the few in flight at the kill were applied but not answered.
    expect(acknowledged.filter((prompt) => !kept.has(prompt))).toEqual([]);
    expect(view.generations).toBeGreaterThanOrEqual(acknowledged.length);
    expect(view.generations - acknowledged.length).toBeLessThanOrEqual(8);
    // The survivor goes on serving the session.
    expect((await post(survivor, '/api/v1/sessions/k/usage', { promptTokens: 5 })).status).toBe(200);
  });

  it('sends a webhook registered on one instance once for an event produced on the other, and both list it', async () => {
    const received: Array<{ headers: Record<string, string>; body: string }> = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        received.push({ headers: request.headers as Record<string, string>, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const [a, b] = await twoInstances({ allowPrivateWebhooks: true, webhookRetryDelaysMs: [50] });
      const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const created = await post(a.base, '/api/v1/webhooks', { url: target, events: ['verdict_changed'] });
      expect(created.status).toBe(201);
      const { id, secret } = (await created.json()) as { id: string; secret: string };
      // The other instance hears of the registration before it produces the event.
      const listed = async (base: string) =>
        ((await (await fetch(`${base}/api/v1/webhooks`)).json()) as { webhooks: Array<{ id: string }> })
          .webhooks;
      expect((await listed(b.base)).map((webhook) => webhook.id)).toEqual([id]);
      await post(b.base, '/api/v1/sessions', { id: 'hooked', model: 'custom', contextWindow: 200_000 });
      expect((await post(b.base, '/api/v1/sessions/hooked/usage', { promptTokens: 195_000 })).status).toBe(
        200,
      );
      const until = Date.now() + 5000;
      while (received.length === 0 && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Sent once (by the instance where it happened), signed with the secret shown at registration.
      expect(received).toHaveLength(1);
      const body = new Webhook(secret).verify(received[0]!.body, received[0]!.headers) as Record<
        string,
        unknown
      >;
      expect(body).toMatchObject({ event: 'verdict_changed', sessionId: 'hooked' });
      // The delivery log is the service's: the registering instance shows what the other delivered.
      const log = (await (await fetch(`${a.base}/api/v1/webhooks/${id}/deliveries`)).json()) as {
        deliveries: Array<{ id: string; status: string }>;
      };
      expect(log.deliveries.map((delivery) => [delivery.id, delivery.status])).toEqual([
        [received[0]!.headers['webhook-id'], 'delivered'],
      ]);
    } finally {
      receiver.closeAllConnections();
      receiver.close();
    }
  });

  it('shares pools: 200 concurrent reservations across two instances admit exactly budget × ceiling', async () => {
    const [a, b] = await twoInstances();
    expect((await post(a.base, '/api/v1/pools', { id: 'team', tokenBudget: 100_000 })).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        post(index % 2 === 0 ? a.base : b.base, '/api/v1/pools/team/reservations', {
          agentId: `agent-${index}`,
          tokens: 1000,
          priority: 'normal',
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    // Normal work may hold up to 0.7 of the 100,000 budget: 70 reservations of 1,000, no more, no fewer.
    expect(statuses.filter((status) => status === 201)).toHaveLength(70);
    expect(statuses.filter((status) => status === 429)).toHaveLength(130);
    const view = (await (await fetch(`${b.base}/api/v1/pools/team`)).json()) as {
      reserved: number;
      level: string;
    };
    expect(view).toMatchObject({ reserved: 70_000, level: 'HIGH' });
  });

  it("puts a pool's pressure in the verdict of its sessions, whichever instance holds the reservation", async () => {
    const [a, b] = await twoInstances();
    await post(a.base, '/api/v1/pools', { id: 'shared-pool', tokenBudget: 100_000 });
    for (const priority of ['low', 'urgent']) {
      const created = await post(a.base, '/api/v1/sessions', {
        id: `agent-${priority}`,
        model: 'custom',
        contextWindow: 200_000,
        poolId: 'shared-pool',
        poolPriority: priority,
      });
      expect(created.status).toBe(201);
    }
    const reserved = await post(b.base, '/api/v1/pools/shared-pool/reservations', {
      agentId: 'big',
      tokens: 75_000,
      priority: 'urgent',
    });
    expect(reserved.status).toBe(201);
    const verdictOf = async (id: string) =>
      (
        (await (await post(b.base, `/api/v1/sessions/${id}/usage`, { promptTokens: 10_000 })).json()) as {
          verdict: { action: string; reasons: Array<{ model: string; action: string; reason: string }> };
        }
      ).verdict;
    const low = await verdictOf('agent-low');
    const urgent = await verdictOf('agent-urgent');
    expect(low.action).toBe('optimize');
    expect(low.reasons.find((reason) => reason.model === 'pool')?.reason).toContain(
      'pool shared-pool holds 75% of its limits (HIGH), at or over the low ceiling of 50%',
    );
    expect(urgent.action).toBe('continue');
    expect(urgent.reasons.find((reason) => reason.model === 'pool')?.action).toBe('continue');
  });

  it('refuses to start with a clear error when Redis cannot be reached', async () => {
    await expect(
      buildApp({ logLevel: 'silent', dashboard: false, dataDir, redisUrl: 'redis://127.0.0.1:1' }),
    ).rejects.toMatchObject({
      code: 'BR_ERR_STORE_UNAVAILABLE',
      message: expect.stringContaining('Cannot reach Redis at redis://127.0.0.1:1'),
    });
    await expect(buildApp({ redisUrl: 'http://127.0.0.1:6379' })).rejects.toThrow(
      'must be a redis:// or rediss:// URL',
    );
  });
});

describe.skipIf(skipWithoutRedis('the Redis connection'))('the Redis connection', () => {
  it('closes the connection it opened when the app closes', async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the Redis suite fails instead of skipping`);
    const server = await startRedisServer();
    const dataDir = mkdtempSync(join(tmpdir(), 'barometer-shared-'));
    try {
      const app = await buildApp({ logLevel: 'silent', dashboard: false, dataDir, redisUrl: server.url });
      const watcher = new Redis(server.url);
      const before = Number(/connected_clients:(\d+)/.exec(await watcher.info('clients'))?.[1]);
      await app.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const after = Number(/connected_clients:(\d+)/.exec(await watcher.info('clients'))?.[1]);
      // The app had two: its commands and its subscription.
      expect(before - after).toBe(2);
      watcher.disconnect();
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
