import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  chromiumMissingReason,
  launchBrowser,
  REPO_ROOT,
  type RunningService,
  startService,
} from './harness.js';

const missing = chromiumMissingReason();
const inCi = Boolean(process.env.CI);
if (missing && !inCi) console.warn(`Skipping the cross-site end-to-end test: ${missing}.`);

/** A page on another origin, the attacker's: 127.0.0.2 is this machine too, but another site to the browser. */
async function startOtherSite(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { server, url: `http://127.0.0.2:${address.port}` };
}

// Without Chromium the suite skips with the reason printed above, except in CI, where it must fail.
describe.skipIf(Boolean(missing) && !inCi)('cross-site requests from a real browser (F2)', () => {
  let service: RunningService;
  let browser: Browser;
  let other: { server: Server; url: string };
  /** Every request that reached the service with an Origin header, and its answer's status. */
  const seen: Array<{ url: string; origin: string; status: number }> = [];

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the end-to-end suite fails instead of skipping`);
    service = await startService({ dashboard: false }, {}, (app) =>
      app.addHook('onResponse', async (request, reply) => {
        const origin = request.headers.origin;
        if (typeof origin === 'string') seen.push({ url: request.url, origin, status: reply.statusCode });
      }),
    );
    other = await startOtherSite();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.app.close();
    if (other) await new Promise((resolve) => other.server.close(resolve));
  });

  it('refuses simple POSTs (no body, text/plain) from a page on another origin: nothing created, nothing replayed', async () => {
    const log = readFileSync(`${REPO_ROOT}/samples/claude-code-small.jsonl`, 'utf8');
    const page = await browser.newPage();
    await page.goto(`${other.url}/`);
    // `no-cors`: what a page may send anywhere without asking the target first. It cannot read the answers; the
    // harm would be in what the requests do.
    await page.evaluate(
      async ({ target, body }) => {
        const send = (path: string, init: RequestInit) =>
          fetch(`${target}${path}`, { method: 'POST', mode: 'no-cors', ...init }).catch(() => undefined);
        await send('/api/v1/samples/claude-code-small/load', {});
        await send('/api/v1/sessions', {
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ id: 'planted', model: 'claude-opus-4-6' }),
        });
        await send('/api/v1/replay', { headers: { 'content-type': 'text/plain' }, body });
      },
      { target: service.url, body: log },
    );
    const sessions = await service.call<{ sessions: unknown[] }>('GET', '/api/v1/sessions');
    expect(sessions.body.sessions).toEqual([]);
    expect(seen.map((each) => each.url)).toEqual([
      '/api/v1/samples/claude-code-small/load',
      '/api/v1/sessions',
      '/api/v1/replay',
    ]);
    for (const each of seen) {
      expect(each.origin).toBe(other.url);
      expect(each.status, each.url).toBe(403);
    }
    await page.close();
  });

  it('lets a page of the service itself (same origin) post', async () => {
    seen.length = 0;
    const page = await browser.newPage();
    await page.goto(`${service.url}/healthz`);
    const status = await page.evaluate(async (target) => {
      const answer = await fetch(`${target}/api/v1/samples/claude-code-small/load`, { method: 'POST' });
      return answer.status;
    }, service.url);
    expect(status).toBe(201);
    expect(seen).toEqual([
      { url: '/api/v1/samples/claude-code-small/load', origin: service.url, status: 201 },
    ]);
    await page.close();
  });
});
