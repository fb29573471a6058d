import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, isErrorCode } from '../errors/error-catalogue.js';
import { buildApp } from './app.js';
import { registerDashboard } from './dashboard.js';
import type { ServerOptions } from './options.js';

const apps: FastifyInstance[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'barometer-errors-'));
  dirs.push(dir);
  return dir;
}

async function makeApp(options: Partial<ServerOptions> = {}, now: () => number = Date.now) {
  const app = await buildApp(
    { logLevel: 'silent', dashboard: false, dataDir: temporaryDir(), ...options },
    { now },
  );
  apps.push(app);
  return app;
}

/**
 * What every failure answer must be: a JSON body whose code is in the error catalogue, with the catalogue's
 * status, and nothing of Fastify in it.
 */
function expectCatalogued(status: number, body: string): { code: string; [key: string]: unknown } {
  expect(body).not.toContain('FST_');
  const parsed = JSON.parse(body) as { code: string; error: unknown };
  expect(parsed.code).toMatch(/^BR_ERR_/);
  expect(isErrorCode(parsed.code), parsed.code).toBe(true);
  if (isErrorCode(parsed.code)) expect(status).toBe(ERROR_CATALOGUE[parsed.code].status);
  expect(typeof parsed.error).toBe('string');
  return parsed;
}

const json = { 'content-type': 'application/json' };

/** Each failure class Fastify and its plugins know, as a request through the real app, and the code it gets. */
const FAILURES: Array<[string, InjectOptions, string]> = [
  [
    'a body of another content type',
    { method: 'POST', url: '/api/v1/pressure', payload: 'a=1', headers: { 'content-type': 'text/plain' } },
    'BR_ERR_UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'a body without a content type',
    { method: 'POST', url: '/api/v1/sessions', payload: Buffer.from('{}') },
    'BR_ERR_UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'a replay log of a type the replay route does not read',
    {
      method: 'POST',
      url: '/api/v1/replay',
      payload: '<log/>',
      headers: { 'content-type': 'application/xml' },
    },
    'BR_ERR_UNSUPPORTED_MEDIA_TYPE',
  ],
  [
    'a body over the limit',
    {
      method: 'POST',
      url: '/api/v1/pressure',
      payload: JSON.stringify({ pad: 'x'.repeat(4000) }),
      headers: json,
    },
    'BR_ERR_BODY_TOO_LARGE',
  ],
  [
    'a Content-Length over the limit',
    {
      method: 'POST',
      url: '/api/v1/sessions',
      payload: '{}',
      headers: { ...json, 'content-length': '999999999' },
    },
    'BR_ERR_BODY_TOO_LARGE',
  ],
  [
    'an empty body under a JSON content type',
    { method: 'POST', url: '/api/v1/sessions', payload: '', headers: json },
    'BR_ERR_MALFORMED_JSON',
  ],
  [
    'malformed JSON',
    { method: 'POST', url: '/api/v1/sessions', payload: '{"model":', headers: json },
    'BR_ERR_MALFORMED_JSON',
  ],
  [
    'a body shorter than its Content-Length',
    {
      method: 'POST',
      url: '/api/v1/sessions',
      payload: '{"a":1}',
      headers: { ...json, 'content-length': '100' },
    },
    'BR_ERR_BAD_REQUEST',
  ],
  [
    'a body longer than its Content-Length',
    {
      method: 'POST',
      url: '/api/v1/sessions',
      payload: '{"a":1}',
      headers: { ...json, 'content-length': '3' },
    },
    'BR_ERR_BAD_REQUEST',
  ],
  ['an unknown route', { method: 'GET', url: '/api/v1/nothing-here' }, 'BR_ERR_NOT_FOUND'],
  ['a wrong method', { method: 'POST', url: '/healthz' }, 'BR_ERR_METHOD_NOT_ALLOWED'],
  [
    'a wrong method on a route with a parameter',
    { method: 'PUT', url: '/api/v1/sessions/s1' },
    'BR_ERR_METHOD_NOT_ALLOWED',
  ],
  [
    'a path that does not percent-decode',
    { method: 'GET', url: '/api/v1/sessions/%E0%A4%A' },
    'BR_ERR_BAD_REQUEST',
  ],
  [
    'a path parameter longer than the router takes',
    { method: 'GET', url: `/api/v1/sessions/${'a'.repeat(300)}` },
    'BR_ERR_INVALID_PARAM',
  ],
  [
    'an invalid parameter',
    { method: 'GET', url: '/api/v1/pressure?memoryUsedPercent=720' },
    'BR_ERR_INVALID_PARAM',
  ],
  ['a missing session', { method: 'GET', url: '/api/v1/sessions/nobody' }, 'BR_ERR_SESSION_NOT_FOUND'],
];

describe('every failure answer carries a catalogued code and nothing of Fastify', () => {
  it.each(FAILURES.map(([name, request, code]) => [name, code, request] as const))(
    'answers %s with %s',
    async (_name, code, request) => {
      const app = await makeApp({ bodyLimitBytes: 2048, rateLimitPerMinute: 0 });
      const response = await app.inject(request);
      expect(expectCatalogued(response.statusCode, response.body).code).toBe(code);
    },
  );

  it('says which content types and which size limit the route has', async () => {
    const app = await makeApp({ bodyLimitBytes: 2048, replayBodyLimitBytes: 4096 });
    const type = await app.inject({
      method: 'POST',
      url: '/api/v1/replay',
      payload: '<log/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(type.statusCode).toBe(415);
    expect(type.json().issues[0].allowed.values).toContain('application/x-ndjson');
    const size = await app.inject({
      method: 'POST',
      url: '/api/v1/replay',
      payload: 'x'.repeat(5000),
      headers: { 'content-type': 'text/plain' },
    });
    expect(size.statusCode).toBe(413);
    expect(size.json()).toMatchObject({ code: 'BR_ERR_BODY_TOO_LARGE', limitBytes: 4096 });
  });

  it('answers a wrong method 405 with Allow listing the methods of the path', async () => {
    const app = await makeApp();
    const response = await app.inject({ method: 'DELETE', url: '/api/v1/pressure' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    expect(response.json()).toMatchObject({
      code: 'BR_ERR_METHOD_NOT_ALLOWED',
      allowed: ['GET', 'HEAD', 'POST'],
    });
  });

  it('answers the 101st request in a minute 429 BR_ERR_RATE_LIMITED', async () => {
    const app = await makeApp({ rateLimitPerMinute: 1 });
    await app.inject({ url: '/api/v1/pressure' });
    const response = await app.inject({ url: '/api/v1/pressure' });
    expect(expectCatalogued(response.statusCode, response.body)).toMatchObject({
      code: 'BR_ERR_RATE_LIMITED',
      limit: 'requests_per_minute_per_ip',
    });
  });

  it('answers a fault 500 BR_ERR_INTERNAL in seed 000 shape, never echoing the fault', async () => {
    const app = await makeApp({}, () => {
      throw Object.assign(new Error('EACCES: /srv/secret/path'), { code: 'FST_ERR_SOMETHING_NEW' });
    });
    const response = await app.inject({ url: '/api/v1/pressure' });
    const body = expectCatalogued(response.statusCode, response.body);
    expect(body).toMatchObject({ error: 'Failed to evaluate request', code: 'BR_ERR_INTERNAL' });
    expect(body.requestId).toEqual(expect.any(String));
    expect(response.body).not.toContain('/srv/secret');
  });

  it('answers the dashboard files’ range and precondition failures with catalogued codes', async () => {
    const root = temporaryDir();
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>barometer</title>');
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'assets', 'index-abc.js'), 'console.log(1);');
    const app = await makeApp();
    await registerDashboard(app, { root });
    const range = await app.inject({ url: '/assets/index-abc.js', headers: { range: 'bytes=5000-6000' } });
    expect(expectCatalogued(range.statusCode, range.body).code).toBe('BR_ERR_RANGE_NOT_SATISFIABLE');
    const precondition = await app.inject({
      url: '/assets/index-abc.js',
      headers: { 'if-match': '"other"' },
    });
    expect(expectCatalogued(precondition.statusCode, precondition.body).code).toBe(
      'BR_ERR_PRECONDITION_FAILED',
    );
    const method = await app.inject({ method: 'POST', url: '/assets/index-abc.js' });
    expect(expectCatalogued(method.statusCode, method.body).code).toBe('BR_ERR_METHOD_NOT_ALLOWED');
  });
});

/** Sends raw bytes to a listening app and resolves with everything it answers before closing. */
async function exchange(app: FastifyInstance, bytes: string): Promise<string> {
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const socket = connect(Number(new URL(address).port), '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk) => {
    answer += chunk.toString();
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.write(bytes);
  await closed;
  return answer;
}

function statusAndBody(answer: string): { status: number; body: string } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  return { status, body: answer.slice(answer.indexOf('\r\n\r\n') + 4) };
}

describe('answers given before a route runs carry catalogued codes too', () => {
  it('answers a body that does not arrive in time 408 BR_ERR_REQUEST_TIMEOUT', async () => {
    const app = await makeApp({ requestTimeoutMs: 200 });
    const answer = await exchange(
      app,
      'POST /api/v1/sessions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"mod',
    );
    const { status, body } = statusAndBody(answer);
    expect(status).toBe(408);
    expect(expectCatalogued(status, body).code).toBe('BR_ERR_REQUEST_TIMEOUT');
  });

  it('answers headers over the limit 431 BR_ERR_HEADERS_TOO_LARGE', async () => {
    const app = await makeApp();
    const answer = await exchange(
      app,
      `GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const { status, body } = statusAndBody(answer);
    expect(status).toBe(431);
    expect(expectCatalogued(status, body).code).toBe('BR_ERR_HEADERS_TOO_LARGE');
  });

  it('answers bytes that are not HTTP 400 BR_ERR_BAD_REQUEST', async () => {
    const app = await makeApp();
    const answer = await exchange(app, 'HELLO THERE\r\n\r\n');
    const { status, body } = statusAndBody(answer);
    expect(status).toBe(400);
    expect(expectCatalogued(status, body).code).toBe('BR_ERR_BAD_REQUEST');
  });

  it('answers a request that arrives while the server closes 503 BR_ERR_UNAVAILABLE', async () => {
    const app = await makeApp();
    let answer = '';
    app.addHook('preClose', async () => {
      // The server is closing and this connection is still open: a request on it must get a coded answer.
      answer = await new Promise<string>((resolve) => {
        let received = '';
        socket.on('data', (chunk) => {
          received += chunk.toString();
          if (received.includes('}')) resolve(received);
        });
        socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
      });
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const socket = connect(Number(new URL(address).port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    await app.close();
    apps.splice(apps.indexOf(app), 1);
    const { status, body } = statusAndBody(answer);
    expect(status).toBe(503);
    expect(expectCatalogued(status, body).code).toBe('BR_ERR_UNAVAILABLE');
    socket.destroy();
  });
});
