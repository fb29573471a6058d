import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { ConcurrencyLimiter } from './concurrency-limiter.js';

const SAMPLE = {
  memoryUsedPercent: 72,
  tokenBurnRatePerMin: 55,
  contextDriftPercent: 68,
  sessionAgeSeconds: 2700,
  tokenBudgetTotal: 100000,
  tokenBudgetUsed: 62000,
  contextWindowMaxBytes: 200000,
  contextWindowUsedBytes: 144000,
  systemMode: 'production',
};
const NOW = Date.UTC(2026, 1, 17, 15, 30, 45);

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function makeApp(options: Parameters<typeof buildApp>[0] = {}, limiter?: ConcurrencyLimiter) {
  // No sessions kept: the default data folder would be the (test run's) state folder.
  app = await buildApp(
    { logLevel: 'silent', persistSessions: false, ...options },
    { now: () => NOW, ...(limiter ? { concurrencyLimiter: limiter } : {}) },
  );
  return app;
}

const query = (input: Record<string, unknown>) =>
  new URLSearchParams(
    Object.entries(input).map(([key, value]): [string, string] => [key, String(value)]),
  ).toString();

describe('GET and POST /api/v1/pressure', () => {
  it('answers the seed sample with viability 36, HIGH, compress on GET', async () => {
    const server = await makeApp();
    const response = await server.inject({ url: `/api/v1/pressure?${query(SAMPLE)}` });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.timestamp).toBe('2026-02-17T15:30:45Z');
    expect(body.pressure).toMatchObject({
      level: 'HIGH',
      sessionViability: 36,
      suggestedAction: 'compress',
      thresholdsExceeded: ['memory_warning', 'elevated_drift'],
    });
    expect(body.metadata).toEqual({ systemMode: 'production', agentProfile: 'balanced' });
  });

  it('gives the same body for the same input on POST as on GET', async () => {
    const server = await makeApp();
    const get = await server.inject({ url: `/api/v1/pressure?${query(SAMPLE)}` });
    const post = await server.inject({ method: 'POST', url: '/api/v1/pressure', payload: SAMPLE });
    expect(post.statusCode).toBe(200);
    expect(post.json()).toEqual(get.json());
    expect(Object.keys(post.json())).toEqual(['timestamp', 'pressure', 'metadata']);
  });

  it('uses the seed defaults for a bare GET and an empty POST', async () => {
    const server = await makeApp();
    const get = await server.inject({ url: '/api/v1/pressure' });
    const post = await server.inject({ method: 'POST', url: '/api/v1/pressure' });
    // defaults: memory 45, burn 35, drift 20 → 22 + 26 + 16 = 64
    expect(get.json().pressure.sessionViability).toBe(64);
    expect(post.statusCode).toBe(200);
    expect(post.json()).toEqual(get.json());
  });
});

describe('bad input gets a 400 naming the field, never a 500', () => {
  const badQueries: Array<[string, string, string]> = [
    ['a non-number', 'memoryUsedPercent=abc', 'memoryUsedPercent'],
    ['an empty number', 'tokenBurnRatePerMin=', 'tokenBurnRatePerMin'],
    ['a number with trailing text', 'contextDriftPercent=12abc', 'contextDriftPercent'],
    ['a value above range', 'memoryUsedPercent=101', 'memoryUsedPercent'],
    ['a negative value', 'sessionAgeSeconds=-1', 'sessionAgeSeconds'],
    ['burn above 200', 'tokenBurnRatePerMin=201', 'tokenBurnRatePerMin'],
    ['a budget below 1000', 'tokenBudgetTotal=999', 'tokenBudgetTotal'],
    ['used above total', 'tokenBudgetTotal=50000&tokenBudgetUsed=60000', 'tokenBudgetUsed'],
    [
      'used bytes above max',
      'contextWindowMaxBytes=5000&contextWindowUsedBytes=6000',
      'contextWindowUsedBytes',
    ],
    ['an unknown enum', 'systemMode=staging', 'systemMode'],
    ['an unknown profile', 'agentProfile=greedy', 'agentProfile'],
    ['an unknown parameter', 'memoryUsedPercnt=50', 'memoryUsedPercnt'],
    ['a repeated parameter', 'memoryUsedPercent=1&memoryUsedPercent=2', 'memoryUsedPercent'],
    ['Infinity', 'sessionAgeSeconds=Infinity', 'sessionAgeSeconds'],
  ];
  for (const [name, search, field] of badQueries) {
    it(`rejects ${name} on GET`, async () => {
      const server = await makeApp();
      const response = await server.inject({ url: `/api/v1/pressure?${search}` });
      expect(response.statusCode).toBe(400);
      const body = response.json();
      expect(body.code).toBe('BR_ERR_INVALID_PARAM');
      expect(body.error).toContain(field);
      expect(body.example).toMatch(/^\/api\/v1\/pressure\?memoryUsedPercent=45&/);
      expect(body.issues).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    });
  }

  it('gives the value and the allowed range of an out-of-range field', async () => {
    const server = await makeApp();
    const response = await server.inject({
      method: 'POST',
      url: '/api/v1/pressure',
      payload: { memoryUsedPercent: 150 },
    });
    expect(response.json().issues).toEqual([
      {
        field: 'memoryUsedPercent',
        value: 150,
        message: 'must be from 0 to 100',
        allowed: { min: 0, max: 100 },
      },
    ]);
  });

  const badBodies: Array<[string, unknown, string]> = [
    ['a number given as a string', { memoryUsedPercent: '72' }, 'memoryUsedPercent'],
    ['null', { contextDriftPercent: null }, 'contextDriftPercent'],
    ['a boolean', { tokenBudgetUsed: true }, 'tokenBudgetUsed'],
    ['an unknown key', { memory: 50 }, 'memory'],
    ['an array body', [1, 2], '(body)'],
    ['a null body', null, '(body)'],
    ['a wrong enum case', { systemMode: 'Production' }, 'systemMode'],
  ];
  for (const [name, payload, field] of badBodies) {
    it(`rejects ${name} on POST`, async () => {
      const server = await makeApp();
      const response = await server.inject({
        method: 'POST',
        url: '/api/v1/pressure',
        payload: JSON.stringify(payload),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().issues).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    });
  }

  it('answers 400, not 500, for a value nested thousands deep, echoing a description (regression: stack overflow)', async () => {
    const server = await makeApp();
    const nested = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    for (const url of [
      '/api/v1/pressure',
      '/api/v1/sessions',
      '/api/v1/compact',
      '/api/v1/hot-state/check',
    ]) {
      const response = await server.inject({
        method: 'POST',
        url,
        payload: `{"memoryUsedPercent":${nested},"messages":${nested},"hotState":${nested},"model":${nested}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode, url).toBe(400);
      expect(response.body.length, url).toBeLessThan(20_000);
    }
  });

  it('rejects malformed JSON', async () => {
    const server = await makeApp();
    const response = await server.inject({
      method: 'POST',
      url: '/api/v1/pressure',
      payload: '{"memoryUsedPercent": 72,',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('BR_ERR_MALFORMED_JSON');
  });

  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    it(`rejects a ${contentType} body with 415 naming the content type`, async () => {
      const server = await makeApp();
      const response = await server.inject({
        method: 'POST',
        url: '/api/v1/pressure',
        payload: 'memoryUsedPercent=72',
        headers: { 'content-type': contentType },
      });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toMatchObject({
        code: 'BR_ERR_UNSUPPORTED_MEDIA_TYPE',
        issues: [{ field: 'content-type', value: contentType }],
      });
    });
  }

  it('rejects a body over the size limit with 413', async () => {
    const server = await makeApp({ bodyLimitBytes: 2048 });
    const response = await server.inject({
      method: 'POST',
      url: '/api/v1/pressure',
      payload: JSON.stringify({ memoryUsedPercent: 1, padding: 'x'.repeat(4000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().code).toBe('BR_ERR_BODY_TOO_LARGE');
  });

  it('answers a real fault with a 500 shaped as the seed says, without echoing the fault', async () => {
    app = await buildApp(
      { logLevel: 'silent', persistSessions: false },
      {
        now: () => {
          throw new Error('clock unavailable');
        },
      },
    );
    const response = await app.inject({ url: '/api/v1/pressure' });
    expect(response.statusCode).toBe(500);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['code', 'error', 'message', 'requestId']);
    expect(body).toMatchObject({ error: 'Failed to evaluate request', code: 'BR_ERR_INTERNAL' });
    expect(body.message).toContain(body.requestId);
    expect(response.body).not.toContain('clock unavailable');
  });
});

describe('rate limits', () => {
  it('answers the 101st request in a minute from one IP with 429 and Retry-After', async () => {
    const server = await makeApp();
    for (let index = 0; index < 100; index++) {
      const response = await server.inject({ url: '/api/v1/pressure', remoteAddress: '10.1.1.1' });
      expect(response.statusCode).toBe(200);
    }
    const limited = await server.inject({ url: '/api/v1/pressure', remoteAddress: '10.1.1.1' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({
      code: 'BR_ERR_RATE_LIMITED',
      limit: 'requests_per_minute_per_ip',
    });
    // Another client is not affected.
    const other = await server.inject({ url: '/api/v1/pressure', remoteAddress: '10.1.1.2' });
    expect(other.statusCode).toBe(200);
  });

  it('honours a configured limit and 0 as off', async () => {
    const limited = await makeApp({ rateLimitPerMinute: 2 });
    expect((await limited.inject({ url: '/api/v1/pressure' })).statusCode).toBe(200);
    expect((await limited.inject({ url: '/api/v1/pressure' })).statusCode).toBe(200);
    expect((await limited.inject({ url: '/api/v1/pressure' })).statusCode).toBe(429);
    await limited.close();
    const unlimited = await makeApp({ rateLimitPerMinute: 0 });
    for (let index = 0; index < 150; index++) {
      expect((await unlimited.inject({ url: '/api/v1/pressure' })).statusCode).toBe(200);
    }
  });

  it('keeps ingestion and reads off the evaluation limit: usage is never dropped (the found case)', async () => {
    // The found case: every local agent and the dashboard share 127.0.0.1; the seed's 100/min on every route
    // dropped usage reports and the dashboard showed "No sessions yet" while three existed.
    const server = await makeApp({ rateLimitPerMinute: 100, persistSessions: false });
    expect(
      (await server.inject({ method: 'POST', url: '/api/v1/sessions', payload: { id: 'a', model: 'gpt-5' } }))
        .statusCode,
    ).toBe(201);
    for (let index = 0; index < 150; index++) {
      const usage = await server.inject({
        method: 'POST',
        url: '/api/v1/sessions/a/usage',
        payload: { promptTokens: 1000 + index },
      });
      expect(usage.statusCode).toBe(200);
    }
    for (let index = 0; index < 150; index++) {
      expect((await server.inject({ url: '/api/v1/sessions' })).statusCode).toBe(200);
    }
    // The evaluation budget is untouched by all of that.
    expect((await server.inject({ url: '/api/v1/pressure' })).statusCode).toBe(200);
  });

  it('limits ingestion on its own budget, with Retry-After and a message naming it', async () => {
    const server = await makeApp({
      ingestRateLimitPerMinute: 2,
      readRateLimitPerMinute: 1,
      persistSessions: false,
    });
    await server.inject({ method: 'POST', url: '/api/v1/sessions', payload: { id: 'b', model: 'gpt-5' } });
    await server.inject({ method: 'POST', url: '/api/v1/sessions/b/usage', payload: { promptTokens: 1 } });
    const refused = await server.inject({
      method: 'POST',
      url: '/api/v1/sessions/b/usage',
      payload: { promptTokens: 2 },
    });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toMatchObject({
      code: 'BR_ERR_RATE_LIMITED',
      limit: 'ingestion_requests_per_minute_per_ip',
    });
    expect(refused.json().error).toContain('2 ingestion requests per minute per client IP');
    // Reads have their own budget (here 1).
    expect((await server.inject({ url: '/api/v1/sessions' })).statusCode).toBe(200);
    expect((await server.inject({ url: '/api/v1/sessions' })).json()).toMatchObject({
      limit: 'reads_per_minute_per_ip',
    });
  });

  it('does not rate-limit /healthz', async () => {
    const server = await makeApp({ rateLimitPerMinute: 1 });
    for (let index = 0; index < 5; index++)
      expect((await server.inject({ url: '/healthz' })).statusCode).toBe(200);
  });

  it('refuses an 11th concurrent evaluation of one agent with 429 and Retry-After', async () => {
    const limiter = new ConcurrencyLimiter(10);
    for (let index = 0; index < 10; index++) expect(limiter.tryAcquire('agent-a')).toBe(true);
    const server = await makeApp({}, limiter);
    const refused = await server.inject({ url: '/api/v1/pressure', headers: { 'x-agent-id': 'agent-a' } });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({
      code: 'BR_ERR_TOO_MANY_CONCURRENT',
      limit: 'concurrent_evaluations_per_agent',
    });
    const otherAgent = await server.inject({ url: '/api/v1/pressure', headers: { 'x-agent-id': 'agent-b' } });
    expect(otherAgent.statusCode).toBe(200);
    // The slot taken by agent-b's request was given back when it completed.
    expect(limiter.inFlight('agent-b')).toBe(0);
    limiter.release('agent-a');
    const admitted = await server.inject({ url: '/api/v1/pressure', headers: { 'x-agent-id': 'agent-a' } });
    expect(admitted.statusCode).toBe(200);
    expect(limiter.inFlight('agent-a')).toBe(9);
  });
});

describe('service routes', () => {
  it('answers /healthz', async () => {
    const server = await makeApp();
    expect((await server.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
  });

  it('serves an OpenAPI document generated from the zod schemas', async () => {
    const server = await makeApp();
    const document = (await server.inject({ url: '/openapi.json' })).json();
    expect(document.openapi).toBe('3.0.3');
    const get = document.paths['/api/v1/pressure'].get;
    expect(get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
      'memoryUsedPercent',
      'tokenBurnRatePerMin',
      'contextDriftPercent',
      'sessionAgeSeconds',
      'tokenBudgetTotal',
      'tokenBudgetUsed',
      'contextWindowMaxBytes',
      'contextWindowUsedBytes',
      'systemMode',
      'agentProfile',
    ]);
    const body = document.paths['/api/v1/pressure'].post.requestBody.content['application/json'].schema;
    expect(body.properties.memoryUsedPercent).toMatchObject({ type: 'number', minimum: 0, maximum: 100 });
    expect(body.additionalProperties).toBe(false);
    const report =
      document.paths['/api/v1/pressure'].post.responses['200'].content['application/json'].schema;
    expect(report.properties.pressure.required).toContain('suggestedAction');
  });

  it('documents every /api/v1 route, with every $ref resolving into components', async () => {
    const server = await makeApp();
    const document = (await server.inject({ url: '/openapi.json' })).json();
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /api/v1/sessions',
        'GET /api/v1/sessions/{id}',
        'DELETE /api/v1/sessions/{id}',
        'POST /api/v1/sessions/{id}/usage',
        'GET /api/v1/sessions/{id}/events',
        'POST /api/v1/replay',
        'POST /api/v1/compact',
        'GET /api/v1/archives/{session}/{task}',
      ]),
    );
    const text = JSON.stringify(document);
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas[ref.split('/').at(-1)!]).toBeDefined();
    }
    const usage =
      document.paths['/api/v1/sessions/{id}/usage'].post.requestBody.content['application/json'].schema;
    expect(JSON.stringify(usage)).toContain('promptTokens');
  });

  it('answers an unknown route with a 404 problem', async () => {
    const server = await makeApp();
    const response = await server.inject({ url: '/api/v1/nothing' });
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe('BR_ERR_NOT_FOUND');
  });
});
