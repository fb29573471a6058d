import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { buildApp } from './app.js';
import { DEFAULT_DASHBOARD_ROOT, registerDashboard } from './dashboard.js';

const INDEX = '<!doctype html><title>barometer</title><div id="app"></div>';
const SCRIPT = 'console.log("dashboard");';

let root: string;
let app: FastifyInstance | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'barometer-dashboard-'));
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  rmSync(root, { recursive: true, force: true });
});

function writeBuild(): void {
  writeFileSync(join(root, 'index.html'), INDEX);
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'assets', 'index-abc123.js'), SCRIPT);
  writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
}

async function makeApp(options: Parameters<typeof registerDashboard>[1]) {
  app = Fastify();
  // The service answers unknown paths with its JSON problem; the dashboard must leave them alone.
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ code: 'BR_ERR_NOT_FOUND' }));
  app.get('/api/v1/ping', async () => ({ pong: true }));
  const status = await registerDashboard(app, options);
  return { app, status };
}

describe('registerDashboard with a build', () => {
  it('serves index.html at / with headers that keep it fresh and same-origin', async () => {
    writeBuild();
    const { app, status } = await makeApp({ root });
    expect(status).toEqual({ built: true, root });
    const response = await app.inject({ url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toBe(INDEX);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each(['/sessions', '/sessions/agent-7', '/sessions/a%20b', '/replay', '/report', '/regulator'])(
    'answers the client route %s with index.html',
    async (url) => {
      writeBuild();
      const { app } = await makeApp({ root });
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).toBe(INDEX);
    },
  );

  it('serves hashed assets with a one-year immutable cache', async () => {
    writeBuild();
    const { app } = await makeApp({ root });
    const response = await app.inject({ url: '/assets/index-abc123.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.body).toBe(SCRIPT);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('sends the pre-compressed file to a browser that accepts it, and the plain one otherwise', async () => {
    writeBuild();
    const compressed = brotliCompressSync(Buffer.from(SCRIPT));
    writeFileSync(join(root, 'assets', 'index-abc123.js.br'), compressed);
    const { app } = await makeApp({ root });
    const brotli = await app.inject({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(brotli.statusCode).toBe(200);
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers['content-type']).toMatch(/javascript/);
    expect(brotli.headers.vary).toMatch(/accept-encoding/i);
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(brotli.rawPayload).toString()).toBe(SCRIPT);
    const plain = await app.inject({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
  });

  it('keeps the HTML headers on a pre-compressed index.html', async () => {
    writeBuild();
    writeFileSync(join(root, 'index.html.gz'), gzipSync(Buffer.from(INDEX)));
    const { app } = await makeApp({ root });
    const response = await app.inject({ url: '/replay', headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(gunzipSync(response.rawPayload).toString()).toBe(INDEX);
  });

  it('serves other files with a short cache', async () => {
    writeBuild();
    const { app } = await makeApp({ root });
    const response = await app.inject({ url: '/favicon.svg' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('leaves unknown paths and the API to the service', async () => {
    writeBuild();
    const { app } = await makeApp({ root });
    const unknown = await app.inject({ url: '/nothing-here' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ code: 'BR_ERR_NOT_FOUND' });
    const missingAsset = await app.inject({ url: '/assets/missing.js' });
    expect(missingAsset.statusCode).toBe(404);
    expect(missingAsset.json()).toEqual({ code: 'BR_ERR_NOT_FOUND' });
    const deeper = await app.inject({ url: '/sessions/a/b' });
    expect(deeper.statusCode).toBe(404);
    expect((await app.inject({ url: '/api/v1/ping' })).json()).toEqual({ pong: true });
  });

  it('does not serve files outside the build folder', async () => {
    writeBuild();
    const { app } = await makeApp({ root });
    const response = await app.inject({ url: '/../package.json' });
    expect(response.statusCode).toBe(404);
  });

  it('accepts the root as a file URL', async () => {
    writeBuild();
    const { app, status } = await makeApp({ root: pathToFileURL(`${root}/`) });
    expect(status.built).toBe(true);
    expect((await app.inject({ url: '/' })).body).toBe(INDEX);
  });
});

describe('registerDashboard without a build', () => {
  it.each(['/', '/sessions/s1', '/replay', '/regulator'])(
    'answers %s with a page that says to run npm run build',
    async (url) => {
      const { app, status } = await makeApp({ root });
      expect(status.built).toBe(false);
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.body).toContain('npm run build');
    },
  );

  it('keeps the usual 404 elsewhere', async () => {
    const { app } = await makeApp({ root });
    const response = await app.inject({ url: '/assets/index.js' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'BR_ERR_NOT_FOUND' });
  });
});

describe('registerDashboard options', () => {
  it('defaults to web/dist at the repository root', () => {
    expect(DEFAULT_DASHBOARD_ROOT.replaceAll('\\', '/')).toMatch(/\/web\/dist\/$/);
    expect(DEFAULT_DASHBOARD_ROOT).not.toContain('/src/');
  });

  it('rejects unknown options and an empty root, naming the field', async () => {
    app = Fastify();
    await expect(registerDashboard(app, { root: '' })).rejects.toThrow(BarometerValidationError);
    await expect(
      registerDashboard(app, { rot: root } as unknown as Parameters<typeof registerDashboard>[1]),
    ).rejects.toThrow(/rot/);
  });
});

describe('buildApp and the dashboard', () => {
  it('serves the dashboard at / by default, built or not', async () => {
    // No sessions kept: the default data folder would be the (test run's) state folder.
    app = await buildApp({ logLevel: 'silent', persistSessions: false });
    const response = await app.inject({ url: '/regulator' });
    const built = existsSync(join(DEFAULT_DASHBOARD_ROOT, 'index.html'));
    expect(response.statusCode).toBe(built ? 200 : 503);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    // The API keeps answering beside it.
    expect((await app.inject({ url: '/api/v1/pressure' })).statusCode).toBe(200);
  });

  it('leaves / to the usual 404 when the dashboard option is off', async () => {
    app = await buildApp({ logLevel: 'silent', dashboard: false, persistSessions: false });
    const response = await app.inject({ url: '/' });
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe('BR_ERR_NOT_FOUND');
  });
});
