import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { allowedHostnames, checkRequestHost } from './host-guard.js';
import { type RunningServer, startServer } from './serve.js';

const local = { hostnames: allowedHostnames('127.0.0.1'), corsOrigins: new Set<string>() };

describe('checkRequestHost', () => {
  it('allows the listen host, the localhost names and the configured ones, on the service port', () => {
    expect(checkRequestHost('GET', { host: 'localhost:8797' }, local, 8797)).toEqual({ ok: true });
    expect(checkRequestHost('GET', { host: '[::1]:8797' }, local, 8797)).toEqual({ ok: true });
    expect(checkRequestHost('GET', { host: '127.0.0.1' }, local)).toEqual({ ok: true });
    expect(checkRequestHost('GET', {}, local)).toMatchObject({ ok: false, header: 'host' });
    expect(checkRequestHost('GET', { host: 'evil.example:8797' }, local, 8797)).toMatchObject({
      ok: false,
      header: 'host',
    });
    expect(checkRequestHost('GET', { host: '127.0.0.1:9999' }, local, 8797)).toMatchObject({ ok: false });
    expect(checkRequestHost('GET', { host: '127.0.0.1:8797/x' }, local, 8797)).toMatchObject({ ok: false });
    expect(allowedHostnames('::1').has('[::1]')).toBe(true);
    expect([...allowedHostnames('0.0.0.0', ['barometer.internal'])].sort()).toEqual([
      '127.0.0.1',
      '[::1]',
      'barometer.internal',
      'localhost',
    ]);
  });

  it('refuses a state-changing request from another origin, or marked cross-site without one', () => {
    const host = '127.0.0.1:8797';
    for (const origin of ['http://evil.example', 'http://localhost:5173', 'null', 'http://127.0.0.2:8797']) {
      expect(checkRequestHost('POST', { host, origin }, local, 8797), origin).toMatchObject({
        ok: false,
        header: 'origin',
      });
    }
    expect(checkRequestHost('POST', { host, secFetchSite: 'cross-site' }, local, 8797)).toMatchObject({
      ok: false,
      header: 'sec-fetch-site',
    });
    // The service's own pages, a configured CORS origin, and clients that send no Origin (agents, curl) pass.
    expect(checkRequestHost('POST', { host, origin: 'http://127.0.0.1:8797' }, local, 8797).ok).toBe(true);
    expect(checkRequestHost('DELETE', { host, origin: 'http://localhost:8797' }, local, 8797).ok).toBe(true);
    expect(checkRequestHost('POST', { host }, local, 8797).ok).toBe(true);
    expect(checkRequestHost('POST', { host, secFetchSite: 'same-origin' }, local, 8797).ok).toBe(true);
    const cors = { ...local, corsOrigins: new Set(['https://app.example']) };
    expect(checkRequestHost('POST', { host, origin: 'https://app.example' }, cors, 8797).ok).toBe(true);
    // A read from another origin is not refused for its Origin: without CORS the page cannot read the answer.
    expect(checkRequestHost('GET', { host, origin: 'http://evil.example' }, local, 8797).ok).toBe(true);
  });
});

describe('the Host and Origin check on every route', () => {
  let dataDir: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'barometer-host-guard-'));
    app = await buildApp({ logLevel: 'silent', dataDir, allowedHosts: ['barometer.internal'] });
    // A route registered after the app was built (as the proxy's /v1 routes are) is covered too.
    app.post('/v1/messages', async () => ({ reached: true }));
  });
  afterAll(async () => {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 403 BR_ERR_FORBIDDEN_HOST to a rebinding Host on the API, the dashboard, events, /mcp and /v1', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      headers: { host: '127.0.0.1:8797' },
      payload: { id: 'secret-session', model: 'claude-opus-4-6' },
    });
    expect(created.statusCode).toBe(201);
    for (const [method, url] of [
      ['GET', '/api/v1/sessions'],
      ['GET', '/api/v1/sessions/secret-session'],
      ['GET', '/api/v1/events'],
      ['GET', '/api/v1/archives/secret-session/tests'],
      ['GET', '/'],
      ['GET', '/openapi.json'],
      ['GET', '/metrics'],
      ['GET', '/no-such-route'],
      ['POST', '/mcp'],
      ['POST', '/v1/messages'],
    ] as const) {
      const answer = await app.inject({ method, url, headers: { host: 'rebind.attacker.example:8797' } });
      expect(answer.statusCode, `${method} ${url}`).toBe(403);
      const body = answer.json();
      expect(JSON.stringify(body), url).toContain('BR_ERR_FORBIDDEN_HOST');
      expect(JSON.stringify(body), url).not.toContain('secret-session');
    }
    const named = await app.inject({
      method: 'GET',
      url: '/api/v1/sessions/secret-session',
      headers: { host: 'barometer.internal' },
    });
    expect(named.statusCode).toBe(200);
  });

  it('refuses a text/plain POST from another origin before reading its body, and nothing is created', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      headers: { host: 'localhost', origin: 'http://evil.example', 'content-type': 'text/plain' },
      payload: '{"id":"planted","model":"claude-opus-4-6"}',
    });
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toMatchObject({ code: 'BR_ERR_FORBIDDEN_HOST', header: 'origin' });
    const after = await app.inject({ method: 'GET', url: '/api/v1/sessions/planted' });
    expect(after.statusCode).toBe(404);
  });
});

describe('over a real socket', () => {
  let dataDir: string;
  let server: RunningServer;
  let port: number;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'barometer-host-guard-socket-'));
    server = await startServer({ port: 0, logLevel: 'silent', dataDir, dashboard: false });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  function get(path: string, host: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, path, setHost: false, headers: { host } },
        (response) => {
          let body = '';
          response.on('data', (chunk) => {
            body += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode!, body }));
        },
      );
      request.on('error', reject);
      request.end();
    });
  }

  it('refuses Host: rebind.attacker.example (the name a rebinding page sends), and another port', async () => {
    await fetch(`${server.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'planted-secret', model: 'claude-opus-4-6' }),
    });
    const rebound = await get('/api/v1/sessions', `rebind.attacker.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('BR_ERR_FORBIDDEN_HOST');
    expect(rebound.body).not.toContain('planted-secret');
    expect((await get('/api/v1/sessions', '127.0.0.1:1')).status).toBe(403);
    const own = await get('/api/v1/sessions', `localhost:${port}`);
    expect(own.status).toBe(200);
    expect(own.body).toContain('planted-secret');
  });
});
