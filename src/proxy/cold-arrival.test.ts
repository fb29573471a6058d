import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { tombstones } from './test-helpers/scripted-history.js';
import { smallSubTask } from './test-helpers/small-sub-task.js';

type Json = Record<string, unknown>;

const root = mkdtempSync(join(tmpdir(), 'barometer-cold-arrival-'));
const running: Array<RunningServer | CassetteServer> = [];
afterAll(async () => {
  for (const server of running) await server.close();
  rmSync(root, { recursive: true, force: true });
});

// smallSubTask: a read of about 1,000 tokens (under minFreedTokens, 4,000: while the cache is warm its batch waits)
// and the commit that ends its sub-task.
const request = smallSubTask;

/** Three requests of one session through an acting proxy, the second `pauseMs` after the first's answer. */
async function threeRequests(pauseMs: number): Promise<Array<Json | undefined>> {
  let clock = 1_000_000;
  const fake = await startCassetteServer(() => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5-20250929',
      usage: { input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 20 },
    }),
  }));
  running.push(fake);
  const server = await startServer(
    {
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, `pause-${pauseMs}`),
      proxy: { anthropicUpstream: fake.url },
    },
    { now: () => clock },
  );
  running.push(server);
  for (const turns of [0, 1, 2]) {
    const answer = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'test', 'x-barometer-session': 'cold' },
      body: JSON.stringify(request(turns)),
    });
    expect(answer.status).toBe(200);
    await answer.text();
    // The answer recorded (at the clock's time) before the clock moves on.
    await vi.waitFor(async () => {
      const view = (await (await fetch(`${server.url}/api/v1/sessions/cold`)).json()) as {
        generations: number;
      };
      expect(view.generations).toBe(turns + 1);
    }, 10_000);
    if (turns === 0) clock += pauseMs;
  }
  return fake.requests.map((received) => received.body);
}

describe('a request that finds the cache cold (evictOnColdArrival)', () => {
  it('carries the batch its own history ends: after a pause longer than the cache lives', async () => {
    const [first, afterPause, next] = await threeRequests(6 * 60_000);
    expect(tombstones(first).size).toBe(0);
    // The provider writes this request's whole prompt anyway: the batch goes in it, not in the one after.
    expect([...tombstones(afterPause).keys()]).toEqual(['read-1']);
    expect([...tombstones(next).keys()]).toEqual(['read-1']);
  });

  it('leaves a batch too small to pay back waiting while the cache is warm', async () => {
    const bodies = await threeRequests(60_000);
    for (const body of bodies) expect(tombstones(body).size).toBe(0);
  });
});
