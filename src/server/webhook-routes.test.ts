import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';

let app: FastifyInstance | undefined;
let receiverServer: Server | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await app?.close();
  receiverServer?.closeAllConnections();
  receiverServer?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  app = undefined;
  receiverServer = undefined;
  dataDir = undefined;
});

async function receiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  receiverServer = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiverServer?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(receiverServer.address() as AddressInfo).port}/barometer`, received };
}

async function makeApp(allowPrivateWebhooks: boolean) {
  dataDir = mkdtempSync(join(tmpdir(), 'barometer-webhook-routes-'));
  app = await buildApp({
    logLevel: 'silent',
    dataDir,
    dashboard: false,
    allowPrivateWebhooks,
    webhookRetryDelaysMs: [50, 100],
  });
  return app;
}

const waitFor = async (check: () => boolean) => {
  const until = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting for deliveries');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('webhooks over HTTP', () => {
  it('refuses a loopback target unless private webhooks are allowed, naming the url', async () => {
    const server = await makeApp(false);
    const refused = await server.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: 'http://127.0.0.1:9/x', events: ['compaction'] },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'BR_ERR_INVALID_PARAM', issues: [{ field: 'url' }] });
    const metadata = await server.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: 'http://169.254.169.254/latest/meta-data/', events: ['compaction'] },
    });
    expect(metadata.statusCode).toBe(400);
  });

  it("signs and delivers the session's events: pressure_critical with seed 000's payload, verdict_changed, new_round_due, compaction", async () => {
    const target = await receiver();
    const server = await makeApp(true);
    const created = await server.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: {
        url: target.url,
        events: ['pressure_critical', 'verdict_changed', 'new_round_due', 'compaction'],
      },
    });
    expect(created.statusCode).toBe(201);
    const { id, secret } = created.json() as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect((await server.inject({ url: '/api/v1/webhooks' })).json().webhooks[0]).not.toHaveProperty(
      'secret',
    );

    await server.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: { id: 'hot', model: 'custom', contextWindow: 200_000 },
    });
    for (let call = 0; call < 5; call++) {
      await server.inject({
        method: 'POST',
        url: '/api/v1/sessions/hot/usage',
        payload: { promptTokens: 195_000 },
      });
    }
    await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/hot/compactions',
      payload: { before: 195_000, after: 40_000, trigger: 'auto' },
    });
    await waitFor(
      () =>
        target.received.length >= 4 &&
        (server.barometerWebhooks.deliveries(id) ?? []).every((delivery) => delivery.status === 'delivered'),
    );
    const bodies = target.received.map((request) => {
      // Every delivery verifies with the Standard Webhooks library and the secret shown at registration.
      return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<
        string,
        unknown
      >;
    });
    const events = bodies.map((body) => body.event);
    expect(events).toEqual(
      expect.arrayContaining(['pressure_critical', 'verdict_changed', 'new_round_due', 'compaction']),
    );
    const critical = bodies.find((body) => body.event === 'pressure_critical');
    expect(critical).toMatchObject({
      event: 'pressure_critical',
      sessionId: 'hot',
      pressure: { level: expect.any(String), sessionViability: expect.any(Number) },
      health: 'critical',
      suggestedAction: 'compress',
    });
    expect(Object.keys(critical?.pressure as object).sort()).toEqual([
      'estimatedMinutesRemaining',
      'level',
      'sessionViability',
    ]);
    expect(bodies.filter((body) => body.event === 'new_round_due')).toHaveLength(1);
    expect(bodies.find((body) => body.event === 'compaction')).toMatchObject({
      before: 195_000,
      after: 40_000,
      trigger: 'auto',
    });

    const log = await server.inject({ url: `/api/v1/webhooks/${id}/deliveries` });
    expect(log.statusCode).toBe(200);
    expect(
      log.json().deliveries.every((delivery: { status: string }) => delivery.status === 'delivered'),
    ).toBe(true);
    expect((await server.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}` })).statusCode).toBe(204);
    expect((await server.inject({ url: `/api/v1/webhooks/${id}/deliveries` })).statusCode).toBe(404);
  });

  it('sends window_threshold once per window period: when the 5-hour window starts to bind, then at 90% used', async () => {
    const target = await receiver();
    dataDir = mkdtempSync(join(tmpdir(), 'barometer-webhook-routes-'));
    const T0 = Date.parse('2026-12-03T09:00:00Z');
    let clock = T0;
    const server = await buildApp(
      {
        logLevel: 'silent',
        dataDir,
        dashboard: false,
        allowPrivateWebhooks: true,
        webhookRetryDelaysMs: [50],
      },
      { now: () => clock },
    );
    app = server;
    const created = await server.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: target.url, events: ['window_threshold'] },
    });
    const { secret } = created.json() as { secret: string };
    await server.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: { id: 'w', model: 'claude-sonnet-4-5' },
    });
    // The window resets at 12:30. 20% at 09:00, 35% at 09:30 (30%/h: 65% lasts 130 min, the reset is 180 min away,
    // so it binds), 92% at 09:40 (90% used), 93% at 09:50 (nothing new in this period).
    for (const [minute, fraction] of [
      [0, '0.2'],
      [30, '0.35'],
      [40, '0.92'],
      [50, '0.93'],
    ] as const) {
      clock = T0 + minute * 60_000;
      await server.inject({
        method: 'POST',
        url: '/api/v1/sessions/w/usage',
        payload: {
          promptTokens: 1000,
          completionTokens: 50,
          headers: {
            'anthropic-ratelimit-unified-5h-utilization': fraction,
            'anthropic-ratelimit-unified-5h-reset': String((T0 + 210 * 60_000) / 1000),
          },
        },
      });
    }
    await waitFor(() => target.received.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const bodies = target.received.map(
      (request) =>
        new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<
          string,
          unknown
        >,
    );
    expect(bodies.map((body) => [body.threshold, body.usedPercent])).toEqual([
      ['binds', 35],
      ['used_90_percent', 92],
    ]);
    expect(bodies[0]).toMatchObject({
      event: 'window_threshold',
      sessionId: 'w',
      window: '5h',
      resetsAt: '2026-12-03T12:30:00.000Z',
      runsOutAt: '2026-12-03T11:40:00.000Z',
      suggestedAction: 'wait',
      windowWait: { window: 'five_hour', seconds: 3000, until: '2026-12-03T10:20:00.000Z' },
    });
  });

  it('sends pool_exhausted once when a pool refuses reservations, however often it refuses within a minute', async () => {
    const target = await receiver();
    const server = await makeApp(true);
    const created = await server.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: target.url, events: ['pool_exhausted'] },
    });
    const { secret } = created.json() as { secret: string };
    await server.inject({ method: 'POST', url: '/api/v1/pools', payload: { id: 'team', tokenBudget: 1000 } });
    // Low work may hold 0.5 of the budget: 500 tokens. 800 is refused, twice.
    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await server.inject({
        method: 'POST',
        url: '/api/v1/pools/team/reservations',
        payload: { agentId: 'a1', tokens: 800, priority: 'low' },
      });
      expect(refused.statusCode).toBe(429);
    }
    await waitFor(() => target.received.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(target.received).toHaveLength(1);
    const body = new Webhook(secret).verify(
      target.received[0]!.body,
      target.received[0]!.headers as Record<string, string>,
    ) as Record<string, unknown>;
    expect(body).toMatchObject({
      event: 'pool_exhausted',
      poolId: 'team',
      priority: 'low',
      agentId: 'a1',
      limit: 500,
      current: 0,
      requested: 800,
    });
  });
});
