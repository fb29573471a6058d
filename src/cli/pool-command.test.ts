import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../server/app.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import {
  type RedisServer,
  redisMissing,
  skipWithoutRedis,
  startRedisServer,
} from '../test-helpers/redis-server.js';
import { run } from './program.js';

async function cli(args: string[], env: Record<string, string> = {}) {
  const terminal = memoryIo({ env });
  const code = await run(['pool', ...args], { io: terminal.io });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

/** The same walk through create, reserve, refuse, settle, show, release, list and delete, on any backend. */
function poolCommandContract(target: () => string[]) {
  it('creates, reserves, refuses with exit 6 and the reason, settles once, shows, releases and deletes', async () => {
    const on = target();
    const created = await cli(['create', 'team', '--token-budget', '10000', '--ceiling', 'low=0.4', ...on]);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toContain('created team: LOW');
    expect(created.stdout).toContain('ceilings: low 0.4, normal 0.7, high 0.85, urgent 1');

    const reserved = await cli(['reserve', 'team', '--agent-id', 'a1', '--tokens', '6000', '--json', ...on]);
    expect(reserved.code).toBe(0);
    const grant = JSON.parse(reserved.stdout);
    expect(grant).toMatchObject({ poolId: 'team', agentId: 'a1', tokens: 6000, priority: 'normal' });

    const refused = await cli(['reserve', 'team', '--agent-id', 'a2', '--tokens', '2000', ...on]);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(
      'refused: budget_reserved (6,000 of 7,000, asked 2,000); retry in 120 s',
    );
    const refusedJson = await cli([
      'reserve',
      'team',
      '--agent-id',
      'a2',
      '--tokens',
      '2000',
      '--json',
      ...on,
    ]);
    expect(JSON.parse(refusedJson.stdout)).toMatchObject({
      reason: 'budget_reserved',
      retryAfterSeconds: 120,
    });

    const urgent = await cli([
      'reserve',
      'team',
      '--agent-id',
      'a3',
      '--tokens',
      '3000',
      '--priority',
      'urgent',
      '--json',
      ...on,
    ]);
    expect(urgent.code).toBe(0);

    const settled = await cli(['settle', 'team', grant.reservationId, '--actual-tokens', '5500', ...on]);
    expect(settled.stdout).toBe(`${grant.reservationId} settled: 5,500 tokens used of 6,000 reserved\n`);
    const again = await cli(['settle', 'team', grant.reservationId, '--actual-tokens', '1', ...on]);
    expect(again.stdout).toContain('was settled already (5,500 tokens): nothing changed');

    const shown = await cli(['show', 'team', ...on]);
    expect(shown.stdout).toBe(
      'team: CRITICAL (85.0% of its most pressed limit)\n' +
        '  limits: budget 10,000; ceilings: low 0.4, normal 0.7, high 0.85, urgent 1\n' +
        '  used 5,500, reserved 3,000 in 1 reservation, left 1,500\n',
    );
    const released = await cli(['release', 'team', JSON.parse(urgent.stdout).reservationId, '--json', ...on]);
    expect(JSON.parse(released.stdout)).toMatchObject({ state: 'released', released: true });
    const listed = JSON.parse((await cli(['list', '--json', ...on])).stdout);
    expect(listed.pools.map((pool: { id: string }) => pool.id)).toEqual(['team']);
    expect(listed.pools[0]).toMatchObject({ used: 5500, reserved: 0 });
    expect((await cli(['delete', 'team', ...on])).code).toBe(0);
    expect(await cli(['show', 'team', ...on])).toMatchObject({ code: 3 });
  });

  it('names the bad field and exits 2; an existing pool exits 5', async () => {
    const on = target();
    const bad = await cli(['create', 'p2', '--token-budget', 'lots', ...on]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('tokenBudget');
    expect((await cli(['create', 'p2', '--token-budget', '100', ...on])).code).toBe(0);
    expect((await cli(['create', 'p2', '--token-budget', '100', ...on])).code).toBe(5);
    const tokens = await cli(['reserve', 'p2', '--agent-id', 'a', '--tokens', '0', ...on]);
    expect(tokens.code).toBe(2);
    expect(tokens.stderr).toContain('tokens');
    expect((await cli(['settle', 'p2', `rsv_${'0'.repeat(32)}`, '--actual-tokens', '1', ...on])).code).toBe(
      3,
    );
    await cli(['delete', 'p2', ...on]);
  });
}

describe('barometer pool, through a running service (--server)', () => {
  let app: FastifyInstance;
  let url: string;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'barometer-pool-cli-'));
    app = await buildApp({ logLevel: 'silent', dataDir, dashboard: false });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  poolCommandContract(() => ['--server', url]);

  it('checks the flags by the schema the service checks the request with, before any connection', async () => {
    // Nothing listens on port 9: a bad flag is still named (exit 2), not reported as an unreachable service.
    const down = ['--server', 'http://127.0.0.1:9'];
    const budget = await cli(['create', 'p3', '--token-budget', 'lots', ...down]);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toContain('tokenBudget');
    const tokens = await cli(['reserve', 'p3', '--agent-id', 'a', '--tokens', '0', ...down]);
    expect(tokens.code).toBe(2);
    expect(tokens.stderr).toContain('tokens');
    const id = await cli(['settle', 'p3', 'not-a-reservation', '--actual-tokens', '1', ...down]);
    expect(id.code).toBe(2);
    expect(id.stderr).toContain('reservationId');
    // A good request goes on to the service, which is not there: exit 6.
    expect((await cli(['create', 'p3', '--token-budget', '100', ...down])).code).toBe(6);
  });

  it('finds the service by $BAROMETER_URL, and exits 6 with the reason when none answers', async () => {
    expect((await cli(['list'], { BAROMETER_URL: url })).stdout).toBe('no pools\n');
    const down = await cli(['list', '--server', 'http://127.0.0.1:9']);
    expect(down.code).toBe(6);
    expect(down.stderr).toBe(
      'barometer: no barometer service answers at http://127.0.0.1:9 (given by --server; connect ECONNREFUSED 127.0.0.1:9): ' +
        'start one with `barometer serve`, or point --server or BAROMETER_URL at yours; or work on Redis directly with --redis <url>\n',
    );
    const fromEnvironment = await cli(['show', 'team'], { BAROMETER_URL: 'http://127.0.0.1:9/' });
    expect(fromEnvironment.code).toBe(6);
    expect(fromEnvironment.stderr).toContain(
      'at http://127.0.0.1:9 (from BAROMETER_URL; connect ECONNREFUSED',
    );
  });

  it('checks the flags before it sends anything: bad input exits 2 even with no service running', async () => {
    const bad = await cli(['create', 'p3', '--token-budget', 'lots', '--server', 'http://127.0.0.1:9']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'barometer: invalid input:\n' +
        '  tokenBudget (--token-budget): must be a whole number from 1 to 1,000,000,000,000,000; got "lots"\n',
    );
    const tokens = await cli(['reserve', 'p3', '--agent-id', 'a', '--tokens', 'NaN', '--server', url]);
    expect(tokens.code).toBe(2);
    expect(tokens.stderr).toContain('tokens (--tokens): must be a whole number from 1 to');
    // Nothing reached the service.
    expect(await cli(['show', 'p3', '--server', url])).toMatchObject({ code: 3 });
  });

  it('says when what answers at the URL is not a barometer service', async () => {
    // A Fastify app without barometer's routes stands for any other program on the port.
    const { default: fastify } = await import('fastify');
    const stranger = fastify();
    const strangerUrl = await stranger.listen({ host: '127.0.0.1', port: 0 });
    try {
      const answer = await cli(['list', '--server', strangerUrl]);
      expect(answer.code).toBe(6);
      expect(answer.stderr).toContain(`what answers at ${strangerUrl} is not a barometer service (HTTP 404`);
    } finally {
      await stranger.close();
    }
  });
});

const missing = redisMissing();
describe.skipIf(skipWithoutRedis('barometer pool, directly on Redis (--redis)'))(
  'barometer pool, directly on Redis (--redis)',
  () => {
    let server: RedisServer;
    beforeAll(async () => {
      if (missing) throw new Error(`${missing}; CI is set, so the Redis suite fails instead of skipping`);
      server = await startRedisServer();
    });
    afterAll(async () => {
      await server?.stop();
    });

    poolCommandContract(() => ['--redis', server.url]);
  },
);
