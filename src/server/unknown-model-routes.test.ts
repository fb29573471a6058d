import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type BarometerConfig, parseConfig } from '../models/barometer-config.js';
import { SessionViewSchema } from '../session/session-schemas.js';
import { buildApp } from './app.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
let app: FastifyInstance | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

async function makeApp(config?: BarometerConfig) {
  dataDir = mkdtempSync(join(tmpdir(), 'barometer-unknown-model-'));
  app = await buildApp(
    { logLevel: 'silent', rateLimitPerMinute: 0, dataDir, dashboard: false, eventFlushMs: 5 },
    { now: () => T0, ...(config ? { config } : {}) },
  );
  return app;
}

/** Creates a Claude Code session on `model`, posts one Anthropic answer's usage, and reads the session back. */
async function oneCall(server: FastifyInstance, model: string) {
  const created = await server.inject({
    method: 'POST',
    url: '/api/v1/sessions',
    payload: { id: 's', model, agent: 'claude-code' },
  });
  expect(created.statusCode).toBe(201);
  const usage = await server.inject({
    method: 'POST',
    url: '/api/v1/sessions/s/usage',
    payload: {
      format: 'anthropic',
      response: { model, usage: { input_tokens: 100_000, output_tokens: 2_000 } },
    },
  });
  expect(usage.statusCode).toBe(200);
  const view = await server.inject({ method: 'GET', url: '/api/v1/sessions/s' });
  return SessionViewSchema.parse(view.json());
}

describe('sessions of a model the registry does not list, over HTTP', () => {
  it("measures Claude Code's default claude-opus-5-5 with its family's figures, each marked family-estimate", async () => {
    const view = await oneCall(await makeApp(), 'claude-opus-5-5');
    expect(view.profile).toEqual({
      // claude-opus-4-8's 1M window under Claude Code's rule (200,000 − 33,000).
      contextWindow: 167_000,
      optimalMaxTokens: 100_000,
      criticalMaxTokens: 150_300,
      tpmLimit: null,
      tokenBudget: null,
      source: 'family-estimate',
      windowSource: 'family-estimate',
      priceSource: 'family-estimate',
      estimatedFrom: 'claude-opus-4-8',
      family: 'claude-opus-*',
      unpricedReason: null,
    });
    expect(view.health.level).toBe('healthy');
    // At claude-opus-4-8's $5 / $25 per million: 100,000 × 5 + 2,000 × 25, per million.
    expect(view.signals).toMatchObject({ costUsd: 0.55, costEstimated: true, unpricedCalls: 0 });
  });

  it("lets the user's config entry win over the estimate: its window and price, the cost no longer estimated", async () => {
    const parsed = parseConfig({
      models: { 'claude-opus-5-5': { context_length: 400_000, price: { input: 6, output: 30 } } },
    });
    if (!parsed.ok) throw new Error('bad config');
    const view = await oneCall(await makeApp(parsed.value), 'claude-opus-5-5');
    expect(view.profile).toMatchObject({
      // A configured 400,000 under Claude Code's 200K cap: 167,000.
      contextWindow: 167_000,
      source: 'config',
      windowSource: 'config',
      priceSource: 'config',
      estimatedFrom: 'claude-opus-4-8',
    });
    // 100,000 × 6 + 2,000 × 30, per million.
    expect(view.signals).toMatchObject({ costUsd: 0.66, costEstimated: false });
  });

  it('keeps a model of no known family: health unknown, the call unpriced with the reason', async () => {
    const view = await oneCall(await makeApp(), 'acme-7');
    expect(view.health.level).toBe('unknown');
    expect(view.verdict?.reasons).toContainEqual(
      expect.objectContaining({ model: 'health', reason: 'context health unknown: no window known' }),
    );
    expect(view.signals).toMatchObject({
      costUsd: null,
      costEstimated: false,
      unpricedCalls: 1,
      window: null,
    });
    expect(view.profile).toMatchObject({
      contextWindow: null,
      source: null,
      windowSource: null,
      priceSource: null,
    });
    expect(view.profile.unpricedReason).toBe(
      'no price known for acme-7: the registry does not list it and it is of no known family; give it a price in barometer.config.json (`barometer models acme-7` shows what is known)',
    );
  });
});
