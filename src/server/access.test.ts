import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { parseApiKeys, scopeFor } from './access.js';
import { buildApp } from './app.js';
import { startServer } from './serve.js';

const READ = 'read-key-0123456789abcdef';
const WRITE = 'write-key-0123456789abcdef';
const ADMIN = 'admin-key-0123456789abcdef';
let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function makeApp(corsOrigins: string[] = []) {
  app = await buildApp({
    logLevel: 'silent',
    persistSessions: false,
    dashboard: false,
    corsOrigins,
    apiKeys: [
      { key: READ, scopes: ['read'] },
      { key: WRITE, scopes: ['write'] },
      { key: ADMIN, scopes: ['admin'] },
    ],
  });
  return app;
}
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('API keys', () => {
  it('answers 401 without a key, naming the header and the scope; /healthz stays open', async () => {
    const server = await makeApp();
    const refused = await server.inject({ url: '/api/v1/sessions' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('Bearer');
    expect(refused.json()).toMatchObject({ code: 'BR_ERR_UNAUTHORIZED', scope: 'read' });
    expect(refused.json().error).toContain('Authorization: Bearer <key>');
    expect(
      (await server.inject({ url: '/api/v1/sessions', headers: bearer('not-a-known-key-at-all') }))
        .statusCode,
    ).toBe(401);
    expect((await server.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await server.inject({ url: '/metrics' })).statusCode).toBe(401);
  });

  it('answers 403 naming the scope a key lacks; write covers read, admin covers all', async () => {
    const server = await makeApp();
    expect((await server.inject({ url: '/api/v1/sessions', headers: bearer(READ) })).statusCode).toBe(200);
    const create = (key: string) =>
      server.inject({
        method: 'POST',
        url: '/api/v1/sessions',
        headers: bearer(key),
        payload: { model: 'gpt-5' },
      });
    const forbidden = await create(READ);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ code: 'BR_ERR_FORBIDDEN', scope: 'write' });
    expect((await create(WRITE)).statusCode).toBe(201);
    expect((await server.inject({ url: '/api/v1/sessions', headers: bearer(WRITE) })).statusCode).toBe(200);
    const webhooks = (key: string) => server.inject({ url: '/api/v1/webhooks', headers: bearer(key) });
    expect((await webhooks(WRITE)).json()).toMatchObject({ code: 'BR_ERR_FORBIDDEN', scope: 'admin' });
    expect((await webhooks(ADMIN)).statusCode).toBe(200);
  });

  it('takes the key as access_token on event streams only (EventSource cannot send headers)', async () => {
    const server = await makeApp();
    expect((await server.inject({ url: `/api/v1/sessions?access_token=${READ}` })).statusCode).toBe(401);
    await server.listen({ host: '127.0.0.1', port: 0 });
    const address = server.server.address() as { port: number };
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${address.port}/api/v1/events?access_token=${READ}`, {
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
  });

  it('reads BAROMETER_API_KEYS entries with scopes, refusing short keys and unknown scopes', () => {
    expect(parseApiKeys(`${READ}:read ${WRITE}:write;${ADMIN}`)).toEqual({
      ok: true,
      keys: [
        { key: READ, scopes: ['read'] },
        { key: WRITE, scopes: ['read', 'write'] },
        { key: ADMIN, scopes: ['read', 'write', 'admin'] },
      ],
    });
    expect(parseApiKeys('short:read')).toEqual({ ok: false, message: 'key 1 is shorter than 16 characters' });
    expect(parseApiKeys(`${READ}:root`)).toMatchObject({
      ok: false,
      message: expect.stringContaining('"root"'),
    });
  });

  it('maps routes to scopes: reads, writes, admin', () => {
    expect(scopeFor('GET', '/api/v1/sessions/:id')).toBe('read');
    expect(scopeFor('POST', '/api/v1/pressure')).toBe('read');
    expect(scopeFor('POST', '/api/v1/sessions/:id/usage')).toBe('write');
    expect(scopeFor('DELETE', '/api/v1/webhooks/:id')).toBe('admin');
    expect(scopeFor('GET', '/healthz')).toBeNull();
    expect(scopeFor('GET', '/assets/*')).toBeNull();
  });
});

describe('exposure', () => {
  it('refuses to listen on a non-loopback address without a key, unless --insecure', async () => {
    await expect(
      startServer({ host: '0.0.0.0', port: 0, logLevel: 'silent', persistSessions: false, dashboard: false }),
    ).rejects.toThrow(/Refusing to listen on 0\.0\.0\.0 without an API key/);
    const insecure = await startServer({
      host: '0.0.0.0',
      port: 0,
      logLevel: 'silent',
      persistSessions: false,
      dashboard: false,
      insecure: true,
    });
    await insecure.close();
  });

  it('answers CORS preflights for allowed origins only', async () => {
    const server = await makeApp(['https://agent.example']);
    const preflight = await server.inject({
      method: 'OPTIONS',
      url: '/api/v1/sessions',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://agent.example');
    expect(preflight.headers['access-control-allow-headers']).toContain('authorization');
    const other = await server.inject({
      url: '/api/v1/sessions',
      headers: { origin: 'https://evil.example', ...bearer(READ) },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
