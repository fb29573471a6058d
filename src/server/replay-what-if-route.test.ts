import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../cli/program.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { readTrace, TRACES } from '../usage/test-helpers/traces.js';
import { buildApp } from './app.js';

let app: FastifyInstance | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

async function makeApp() {
  dataDir = mkdtempSync(join(tmpdir(), 'barometer-whatif-route-'));
  app = await buildApp({ logLevel: 'silent', rateLimitPerMinute: 0, dataDir, dashboard: false });
  return app;
}

const SONNET = 'claude-code/small-sonnet-session.jsonl';

function post(server: FastifyInstance, url: string, path = SONNET) {
  return server.inject({
    method: 'POST',
    url,
    payload: readTrace(path),
    headers: { 'content-type': 'application/x-ndjson' },
  });
}

describe('POST /api/v1/replay?whatIf=true', () => {
  it('answers what barometer replay --what-if --json prints, and keeps nothing', async () => {
    const server = await makeApp();
    const response = await post(server, '/api/v1/replay?whatIf=true');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    // The same data folder as the service's: tombstones name its archives, and are sized with that path.
    const terminal = memoryIo({ env: { BAROMETER_DATA_DIR: dataDir as string } });
    expect(
      await run(['replay', fileURLToPath(new URL(SONNET, TRACES)), '--what-if', '--json'], {
        io: terminal.io,
      }),
    ).toBe(0);
    const cli = JSON.parse(terminal.stdout);
    // Each run archives to a temporary directory of its own; tombstones are sized as the data folder's archives
    // would write them, so the figures are the same.
    expect(body.whatIf.real).toEqual(cli.whatIf.real);
    expect(body.whatIf.policy).toEqual(cli.whatIf.policy);
    expect(body.whatIf.savedPercent).toBe(cli.whatIf.savedPercent);
    expect(body.summary).toEqual(cli.summary);
    expect(body.whatIf.archiveVerified).toBe(true);
    expect(body.whatIf.policy.evictions).toBe(cli.whatIf.policy.evictions);
    expect(
      body.calls.map((call: { whatIfPromptTokens: number }) => typeof call.whatIfPromptTokens),
    ).not.toContain('undefined');
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith('barometer-replay-upload-'))).toEqual([]);
    expect(readdirSync(dataDir ?? '')).not.toContain('archives');
  });

  it('takes the policy as JSON in the query', async () => {
    const server = await makeApp();
    const policy = encodeURIComponent(JSON.stringify({ boundaries: [], trimResultsAboveTokens: 0 }));
    const body = (await post(server, `/api/v1/replay?whatIf=true&policy=${policy}`)).json();
    expect(body.whatIf.policy.evictions).toBe(0);
    expect(body.whatIf.savedPercent).toBe(0);
  });

  it('answers 400 naming the field for a bad policy, a policy without whatIf, and a log without messages', async () => {
    const server = await makeApp();
    const bad = await post(
      server,
      `/api/v1/replay?whatIf=true&policy=${encodeURIComponent('{"minFreedTokens":-1}')}`,
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0].field).toBe('policy.minFreedTokens');
    const notJson = await post(server, '/api/v1/replay?whatIf=true&policy=nope');
    expect(notJson.json().issues[0]).toMatchObject({
      field: 'policy',
      message: 'must be the JSON of the eviction policy options',
    });
    const alone = await post(server, `/api/v1/replay?policy=${encodeURIComponent('{}')}`);
    expect(alone.json().issues[0]).toMatchObject({ field: 'policy', message: 'goes with whatIf=true' });
    const gemini = await post(server, '/api/v1/replay?whatIf=true', 'gemini/small-gemini-session.jsonl');
    expect(gemini.statusCode).toBe(400);
    expect(gemini.json().issues[0].field).toBe('whatIf');
    const flag = await post(server, '/api/v1/replay?whatIf=yes');
    expect(flag.json().issues[0].field).toBe('whatIf');
  });
});
