import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageAnswerSchema } from '../session/session-schemas.js';
import { loadCassette, readTrace } from '../usage/test-helpers/traces.js';
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

async function makeApp() {
  dataDir = mkdtempSync(join(tmpdir(), 'barometer-sessions-'));
  app = await buildApp(
    { logLevel: 'silent', rateLimitPerMinute: 0, dataDir, dashboard: false, eventFlushMs: 5 },
    { now: () => T0 },
  );
  return app;
}

async function create(server: FastifyInstance, body: Record<string, unknown>) {
  return server.inject({ method: 'POST', url: '/api/v1/sessions', payload: body });
}

describe('POST /api/v1/sessions', () => {
  it('creates a session with the agent effective window and answers 201 with its view', async () => {
    const server = await makeApp();
    const response = await create(server, { id: 'cc-1', model: 'claude-opus-4-6', agent: 'claude-code' });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      id: 'cc-1',
      model: 'claude-opus-4-6',
      profile: { contextWindow: 167_000, optimalMaxTokens: 100_000, criticalMaxTokens: 150_300 },
      health: { level: 'unknown' },
      generations: 0,
    });
  });

  it('generates an id when none is given', async () => {
    const server = await makeApp();
    const response = await create(server, { model: 'gpt-5' });
    expect(response.json().id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('creates a session for a model nobody knows, its figures marked unknown; refuses a duplicate id (409)', async () => {
    const server = await makeApp();
    const unknown = await create(server, { model: 'my-private-llm' });
    expect(unknown.statusCode).toBe(201);
    expect(unknown.json().profile).toMatchObject({
      contextWindow: null,
      source: null,
      windowSource: null,
      priceSource: null,
      estimatedFrom: null,
      unpricedReason: expect.stringContaining('no price known for my-private-llm'),
    });
    expect(
      (await create(server, { id: 'a', model: 'my-private-llm', contextWindow: 32000 })).statusCode,
    ).toBe(201);
    const duplicate = await create(server, { id: 'a', model: 'gpt-5' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().code).toBe('BR_ERR_SESSION_EXISTS');
  });

  it.each([
    [{}, 'model'],
    [{ model: 5 }, 'model'],
    [{ model: 'gpt-5', contextWindow: -1 }, 'contextWindow'],
    [{ model: 'gpt-5', contextWindow: 'big' }, 'contextWindow'],
    [{ model: 'gpt-5', tokenBudget: 1.5 }, 'tokenBudget'],
    [{ model: 'gpt-5', agent: 'cursor' }, 'agent'],
    [{ model: 'gpt-5', colour: 'red' }, 'colour'],
    [{ model: 'gpt-5', id: '../../etc/passwd' }, 'id'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const server = await makeApp();
    const response = await create(server, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().issues).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('answers 400 for malformed JSON and 415 for a wrong content type', async () => {
    const server = await makeApp();
    const malformed = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: '{"model":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    const text = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: 'model=gpt-5',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().issues[0].field).toBe('content-type');
  });
});

describe('POST /api/v1/sessions/:id/usage', () => {
  it('takes rateLimits at creation and the provider response headers with a usage post', async () => {
    const server = await makeApp();
    const created = await create(server, {
      id: 'quota',
      model: 'claude-sonnet-4-5',
      rateLimits: { inputTokensPerMinute: 30_000, outputTokensPerMinute: 8_000 },
    });
    expect(created.statusCode).toBe(201);
    const answer = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/quota/usage',
      payload: {
        format: 'anthropic',
        response: {
          model: 'claude-sonnet-4-5',
          usage: {
            input_tokens: 2000,
            cache_read_input_tokens: 50_000,
            cache_creation_input_tokens: 0,
            output_tokens: 100,
          },
        },
        headers: {
          'anthropic-ratelimit-input-tokens-limit': '30000',
          'anthropic-ratelimit-input-tokens-remaining': '28000',
          'anthropic-ratelimit-input-tokens-reset': new Date(T0 + 4000).toISOString(),
        },
      },
    });
    expect(answer.statusCode).toBe(200);
    const body = answer.json();
    expect(body.signals.quotas).toEqual([
      {
        dimension: 'input',
        limit: 30_000,
        used: 2000,
        left: 28_000,
        need: 2000,
        source: 'headers',
        waitSeconds: 0,
      },
      {
        dimension: 'output',
        limit: 8000,
        used: 100,
        left: 7900,
        need: 100,
        source: 'estimate',
        waitSeconds: 0,
      },
    ]);
    expect(body.verdict).toMatchObject({ waitSeconds: null, thinking: null, newRoundDue: false });
    const bad = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/quota/usage',
      payload: { promptTokens: 10, headers: { 'x-ratelimit-remaining-tokens': { nested: true } } },
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('headers');
  });

  it('walks healthy → caution → critical and answers the verdict with every model reason', async () => {
    const server = await makeApp();
    await create(server, { id: 's', model: 'custom', contextWindow: 200_000 });
    const post = (promptTokens: number) =>
      server.inject({
        method: 'POST',
        url: '/api/v1/sessions/s/usage',
        payload: { promptTokens, completionTokens: 100 },
      });
    const healthy = (await post(50_000)).json();
    expect(healthy.verdict.action).toBe('continue');
    expect(healthy.health.level).toBe('healthy');
    expect(healthy.verdict.reasons.map((reason: { model: string }) => reason.model)).toEqual([
      'health',
      'regulator',
      'triggers',
    ]);
    const caution = (await post(120_000)).json();
    expect(caution.health.level).toBe('caution');
    expect(caution.verdict).toMatchObject({ action: 'compress', priority: 'normal' });
    expect(caution.health.reminder.id).toBe('context_health');
    const critical = (await post(190_000)).json();
    expect(critical.health).toMatchObject({ level: 'critical', countdown: 4 });
    expect(critical.verdict.priority).toBe('urgent');
    expect(critical.generation).toBe(3);
    expect((await server.inject({ url: '/api/v1/sessions/s' })).json().timeline).toHaveLength(3);
  });

  it('normalizes a raw provider response (an OpenAI chat stream whose usage is in the last chunk)', async () => {
    const server = await makeApp();
    await create(server, { id: 'oa', model: 'gpt-4o' });
    const [recorded] = loadCassette('test_run_stream_sync_streams_real_model.yaml');
    const response = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/oa/usage',
      payload: { format: 'openai-chat', response: recorded!.body },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.health.level).toBe('healthy');
    expect(body.signals.lastPromptTokens).toBeGreaterThan(0);
  });

  it('answers JSON with every key of the usage answer schema, and nothing the schema does not name', async () => {
    const server = await makeApp();
    await create(server, { id: 'keys', model: 'claude-opus-4-6', agent: 'claude-code', tpmLimit: 200_000 });
    const response = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/keys/usage',
      payload: { promptTokens: 150_000, completionTokens: 800, cachedReadTokens: 110_000 },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(Object.keys(UsageAnswerSchema.shape).sort());
    expect(UsageAnswerSchema.parse(body)).toEqual(body);
  });

  it('says unknown, not zeros, for a response without usage', async () => {
    const server = await makeApp();
    await create(server, { id: 'n', model: 'gpt-4o' });
    const response = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/n/usage',
      payload: { format: 'openai-chat', response: { id: 'x', choices: [] } },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().health.level).toBe('unknown');
    expect(response.json().signals.lastPromptTokens).toBeNull();
  });

  it.each([
    [{ promptTokens: 'many' }, 'promptTokens'],
    [{ promptTokens: -5 }, 'promptTokens'],
    [{ promptTokens: 1.5 }, 'promptTokens'],
    [{ promptTokens: 10, completionTokens: null }, 'completionTokens'],
    [{ promptTokens: 10, timestamp: 'yesterday' }, 'timestamp'],
    [{ promptTokens: 10, driftPercent: 150 }, 'driftPercent'],
    [{ promptTokens: 10, extra: 1 }, 'extra'],
    [{ completionTokens: 10 }, 'promptTokens'],
    [{ format: 'openai-chatt', response: {} }, 'format'],
    [{ format: 'anthropic' }, 'response'],
  ])('answers 400 naming the field for %j', async (payload, field) => {
    const server = await makeApp();
    await create(server, { id: 's', model: 'gpt-4o' });
    const response = await server.inject({ method: 'POST', url: '/api/v1/sessions/s/usage', payload });
    expect(response.statusCode).toBe(400);
    expect(response.json().issues).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    // Nothing was written.
    expect((await server.inject({ url: '/api/v1/sessions/s' })).json().generations).toBe(0);
  });

  it('takes a local engine’s KV cell count (kvCellsUsed) and shows the KV figures it gives', async () => {
    const server = await makeApp();
    await create(server, {
      id: 'local-1',
      model: 'tiny-gguf',
      kv: { nCtx: 2048, nBatch: 64, softLimit: 256 },
    });
    const posted = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/local-1/usage',
      payload: { promptTokens: 300, completionTokens: 32, kvCellsUsed: 2000 },
    });
    expect(posted.statusCode).toBe(200);
    // 2,048 − 2,000 = 48 cells, below the nBatch floor of 64: critical, and the verdict terminates.
    expect(posted.json().signals.kv).toEqual({
      nCtx: 2048,
      cellsUsed: 2000,
      remaining: 48,
      softLimit: 256,
      hardLimit: 64,
      nBatch: 64,
      headroom: -208,
      critical: true,
      percentAvailable: 2,
      unbounded: false,
      source: 'engine',
    });
    expect(posted.json().verdict.action).toBe('terminate');
    const view = await server.inject({ method: 'GET', url: '/api/v1/sessions/local-1' });
    expect(view.json().signals.kv).toMatchObject({ cellsUsed: 2000, source: 'engine' });
    const bad = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/local-1/usage',
      payload: { promptTokens: 300, kvCellsUsed: 1.5 },
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('kvCellsUsed');
  });

  it('answers 404 for an unknown session', async () => {
    const server = await makeApp();
    const response = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/nope/usage',
      payload: { promptTokens: 1 },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe('BR_ERR_SESSION_NOT_FOUND');
  });
});

describe('reading and deleting sessions', () => {
  it('lists, reads and deletes', async () => {
    const server = await makeApp();
    await create(server, { id: 'one', model: 'gpt-4o' });
    await create(server, { id: 'two', model: 'gpt-4o' });
    expect(
      (await server.inject({ url: '/api/v1/sessions' }))
        .json()
        .sessions.map((s: { id: string }) => s.id)
        .sort(),
    ).toEqual(['one', 'two']);
    expect((await server.inject({ url: '/api/v1/sessions/one' })).json().id).toBe('one');
    expect((await server.inject({ method: 'DELETE', url: '/api/v1/sessions/one' })).statusCode).toBe(204);
    expect((await server.inject({ url: '/api/v1/sessions/one' })).statusCode).toBe(404);
    expect((await server.inject({ method: 'DELETE', url: '/api/v1/sessions/one' })).statusCode).toBe(404);
  });
});

describe('server-sent events', () => {
  it('streams the session view and the health events live', async () => {
    const server = await makeApp();
    await server.listen({ host: '127.0.0.1', port: 0 });
    const address = server.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await create(server, { id: 'live', model: 'custom', contextWindow: 200_000 });
    const controller = new AbortController();
    const response = await fetch(`${base}/api/v1/sessions/live/events`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
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
    await fetch(`${base}/api/v1/sessions/live/usage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ promptTokens: 120_000 }),
    });
    await readUntil('event: reminder_added');
    await readUntil('"level":"caution"');
    expect(text).toContain('event: level_changed');
    controller.abort();
  });
});

describe('POST /api/v1/replay', () => {
  it('replays an uploaded Codex rollout exactly as the CLI does', async () => {
    const server = await makeApp();
    const response = await server.inject({
      method: 'POST',
      url: '/api/v1/replay',
      payload: readTrace('codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.format).toBe('codex');
    expect(body.summary).toMatchObject({ calls: 286, compactions: 1, peakPromptTokens: 209_950 });
  });

  it('accepts an OpenHands JSON document labelled application/json', async () => {
    const server = await makeApp();
    const response = await server.inject({
      method: 'POST',
      url: '/api/v1/replay',
      payload: readTrace('openhands/basic_gui_mode.json'),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.json().summary.calls).toBe(4);
  });

  it('answers 400 for something that is not a log, an empty body and a bad query', async () => {
    const server = await makeApp();
    const notLog = await server.inject({
      method: 'POST',
      url: '/api/v1/replay',
      payload: 'hello world',
      headers: { 'content-type': 'text/plain' },
    });
    expect(notLog.statusCode).toBe(400);
    const empty = await server.inject({
      method: 'POST',
      url: '/api/v1/replay',
      payload: '',
      headers: { 'content-type': 'text/plain' },
    });
    expect(empty.statusCode).toBe(400);
    const query = await server.inject({
      method: 'POST',
      url: '/api/v1/replay?contextWindow=lots',
      payload: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(query.json().issues[0].field).toBe('contextWindow');
  });
});

describe('samples', () => {
  it('lists the bundled samples and loads one into a live session', async () => {
    const server = await makeApp();
    const list = (await server.inject({ url: '/api/v1/samples' })).json();
    expect(list.samples.map((sample: { name: string }) => sample.name)).toContain('codex-compaction');
    const loaded = await server.inject({ method: 'POST', url: '/api/v1/samples/codex-compaction/load' });
    expect(loaded.statusCode).toBe(201);
    const view = loaded.json();
    expect(view.generations).toBe(286);
    expect(view.timeline).toHaveLength(286);
    expect(view.markers.filter((marker: { type: string }) => marker.type === 'compaction')).toHaveLength(1);
    expect((await server.inject({ url: '/api/v1/sessions' })).json().sessions).toHaveLength(1);
    expect((await server.inject({ method: 'POST', url: '/api/v1/samples/nope/load' })).statusCode).toBe(404);
  });
});
