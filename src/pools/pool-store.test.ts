import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BarometerError } from '../errors/barometer-error.js';
import { BarometerValidationError } from '../errors/validation.js';
import { StateDatabase } from '../store/state-database.js';
import {
  type RedisServer,
  redisMissing,
  skipWithoutRedis,
  startRedisServer,
} from '../test-helpers/redis-server.js';
import { poolRows } from './kept-pools.js';
import { MemoryPoolStore } from './memory-pool-store.js';
import type { PoolConfig, ReservationDecision, ReservationRequest } from './pool-schemas.js';
import { POOL_LIBRARY_NAME } from './pool-scripts.js';
import type { PoolStore } from './pool-store.js';
import { RedisPoolStore } from './redis-pool-store.js';

/** A clock both stores read: the memory store directly, the Redis scripts as their time argument. */
interface Harness {
  store: PoolStore;
  advance(ms: number): void;
}

const START = Date.parse('2030-01-01T00:00:00Z');

function clock() {
  let now = START;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

function granted(decision: ReservationDecision) {
  if (!decision.ok) throw new Error(`refused: ${JSON.stringify(decision.refusal)}`);
  return decision.reservation;
}

function refused(decision: ReservationDecision) {
  if (decision.ok) throw new Error(`admitted: ${JSON.stringify(decision.reservation)}`);
  return decision.refusal;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (error instanceof BarometerError) return error.code;
    throw error;
  }
}

/** The one contract of a PoolStore, run against every implementation. */
function poolStoreContract(make: () => Promise<Harness>) {
  let pools: PoolStore;
  let advance: (ms: number) => void;
  let counter = 0;
  const fresh = async (config: Omit<PoolConfig, 'id'>) => {
    const harness = await make();
    pools = harness.store;
    advance = harness.advance;
    counter += 1;
    const id = `pool-${counter}`;
    await pools.create({ id, ...config });
    return id;
  };
  const reserve = (id: string, request: ReservationRequest) => pools.reserve(id, request);

  describe('priority ceilings (budget 10,000: low 5,000, normal 7,000, high 8,500, urgent 10,000)', () => {
    it('admits each priority up to its own ceiling of used plus reserved, and keeps the rest for urgent work', async () => {
      const id = await fresh({ tokenBudget: 10_000 });
      granted(await reserve(id, { agentId: 'a', tokens: 5000, priority: 'low' }));
      expect(refused(await reserve(id, { agentId: 'a', tokens: 1, priority: 'low' }))).toEqual({
        reason: 'budget_reserved',
        retryAfterSeconds: 120,
        limit: 5000,
        current: 5000,
        requested: 1,
      });
      granted(await reserve(id, { agentId: 'b', tokens: 2000, priority: 'normal' }));
      expect(refused(await reserve(id, { agentId: 'b', tokens: 1, priority: 'normal' })).limit).toBe(7000);
      granted(await reserve(id, { agentId: 'c', tokens: 1500, priority: 'high' }));
      expect(refused(await reserve(id, { agentId: 'c', tokens: 1, priority: 'high' })).limit).toBe(8500);
      granted(await reserve(id, { agentId: 'd', tokens: 1500, priority: 'urgent' }));
      expect(refused(await reserve(id, { agentId: 'd', tokens: 1, priority: 'urgent' })).limit).toBe(10_000);
      const view = await pools.view(id);
      expect(view).toMatchObject({ used: 0, reserved: 10_000, left: 0, reservations: 4, level: 'CRITICAL' });
    });

    it('admits exactly at the ceiling and refuses one token over it, for ever (request_too_large)', async () => {
      const id = await fresh({ tokenBudget: 10_000 });
      expect(refused(await reserve(id, { agentId: 'a', tokens: 7001 }))).toEqual({
        reason: 'request_too_large',
        retryAfterSeconds: null,
        limit: 7000,
        current: 0,
        requested: 7001,
      });
      const grant = granted(await reserve(id, { agentId: 'a', tokens: 7000 }));
      expect(grant).toMatchObject({ priority: 'normal', tokens: 7000, poolId: id, agentId: 'a' });
      expect(grant.reservationId).toMatch(/^rsv_[0-9a-f]{32}$/);
      expect(Date.parse(grant.expiresAt)).toBeGreaterThan(Date.now() - 1000);
    });

    it('takes custom ceilings and rounds each share down to whole tokens', async () => {
      const id = await fresh({ tokenBudget: 999, priorityCeilings: { low: 0.1, normal: 0.57 } });
      expect(refused(await reserve(id, { agentId: 'a', tokens: 100, priority: 'low' })).limit).toBe(99);
      expect(refused(await reserve(id, { agentId: 'a', tokens: 570, priority: 'normal' })).limit).toBe(569);
      expect((await pools.view(id)).priorityCeilings).toEqual({
        low: 0.1,
        normal: 0.57,
        high: 0.85,
        urgent: 1,
      });
    });
  });

  describe('settle', () => {
    it('counts the actual tokens and frees the reservation; settling twice changes nothing', async () => {
      const id = await fresh({ tokenBudget: 10_000 });
      const { reservationId } = granted(await reserve(id, { agentId: 'a', tokens: 3000 }));
      const first = await pools.settle(id, reservationId, { actualTokens: 2400 });
      expect(first).toMatchObject({
        reservedTokens: 3000,
        actualTokens: 2400,
        alreadySettled: false,
        settledFrom: 'active',
      });
      const again = await pools.settle(id, reservationId, { actualTokens: 9999 });
      expect(again).toEqual({ ...first, alreadySettled: true });
      expect(await pools.view(id)).toMatchObject({ used: 2400, reserved: 0, left: 7600, reservations: 0 });
    });

    it('counts what was used when a call used more than it reserved (over-commit is about admission)', async () => {
      const id = await fresh({ tokenBudget: 10_000 });
      const { reservationId } = granted(await reserve(id, { agentId: 'a', tokens: 1000 }));
      await pools.settle(id, reservationId, { actualTokens: 7500 });
      const view = await pools.view(id);
      expect(view).toMatchObject({ used: 7500, reserved: 0, left: 2500, level: 'HIGH', usedFraction: 0.75 });
    });

    it('refuses with budget_exhausted and no retry time once settled usage leaves no room', async () => {
      const id = await fresh({ tokenBudget: 10_000 });
      const { reservationId } = granted(await reserve(id, { agentId: 'a', tokens: 6000 }));
      await pools.settle(id, reservationId, { actualTokens: 6000 });
      expect(refused(await reserve(id, { agentId: 'b', tokens: 1001 }))).toEqual({
        reason: 'budget_exhausted',
        retryAfterSeconds: null,
        limit: 7000,
        current: 6000,
        requested: 1001,
      });
      granted(await reserve(id, { agentId: 'b', tokens: 1000 }));
      // Urgent work still has its share.
      granted(await reserve(id, { agentId: 'c', tokens: 3000, priority: 'urgent' }));
    });
  });

  describe('expiry', () => {
    it('releases a reservation not settled by expiresAt, and a late settle still counts its tokens once', async () => {
      const id = await fresh({ tokenBudget: 10_000 });
      const { reservationId } = granted(await reserve(id, { agentId: 'a', tokens: 5000, ttlSeconds: 10 }));
      advance(9999);
      expect(await pools.view(id)).toMatchObject({ reserved: 5000, reservations: 1 });
      advance(1);
      expect(await pools.view(id)).toMatchObject({ reserved: 0, reservations: 0, level: 'LOW' });
      granted(await reserve(id, { agentId: 'b', tokens: 5000, priority: 'low' }));
      const late = await pools.settle(id, reservationId, { actualTokens: 1200 });
      expect(late).toMatchObject({ settledFrom: 'expired', alreadySettled: false, actualTokens: 1200 });
      expect((await pools.settle(id, reservationId, { actualTokens: 1200 })).alreadySettled).toBe(true);
      expect(await pools.view(id)).toMatchObject({ used: 1200, reserved: 5000 });
    });

    it('says when outstanding reservations expire enough to make room (budget_reserved)', async () => {
      const id = await fresh({ tokenBudget: 10_000 });
      granted(await reserve(id, { agentId: 'a', tokens: 3000, ttlSeconds: 30 }));
      granted(await reserve(id, { agentId: 'b', tokens: 3000, ttlSeconds: 60 }));
      advance(5000);
      // 6,000 + 2,000 > 7,000; without the first (expiring in 25 s) 3,000 + 2,000 fits.
      expect(refused(await reserve(id, { agentId: 'c', tokens: 2000 })).retryAfterSeconds).toBe(25);
      // 4,500 needs both gone: the second expires in 55 s.
      expect(refused(await reserve(id, { agentId: 'c', tokens: 4500 })).retryAfterSeconds).toBe(55);
      advance(25_000);
      granted(await reserve(id, { agentId: 'c', tokens: 2000 }));
    });
  });

  describe('release', () => {
    it('frees an active reservation without usage; a release twice or of a settled one changes nothing', async () => {
      const id = await fresh({ tokenBudget: 10_000, requestsPerMinute: 100 });
      const { reservationId } = granted(await reserve(id, { agentId: 'a', tokens: 4000 }));
      expect(await pools.release(id, reservationId)).toEqual({
        reservationId,
        poolId: id,
        state: 'released',
        released: true,
      });
      expect(await pools.release(id, reservationId)).toMatchObject({ state: 'released', released: false });
      expect(await pools.view(id)).toMatchObject({
        used: 0,
        reserved: 0,
        lastMinute: { tokens: 0, requests: 0 },
      });
      // A settle after a release counts what the call used, once.
      expect(await pools.settle(id, reservationId, { actualTokens: 10 })).toMatchObject({
        settledFrom: 'released',
      });
      expect(await pools.release(id, reservationId)).toMatchObject({ state: 'settled', released: false });
      expect((await pools.view(id)).used).toBe(10);
    });
  });

  describe('per-minute limits (a sliding 60-second window)', () => {
    it('applies the ceiling to tokensPerMinute when there is no budget, and says when the window makes room', async () => {
      const id = await fresh({ tokensPerMinute: 1000 });
      const first = granted(await reserve(id, { agentId: 'a', tokens: 400 }));
      advance(10_000);
      granted(await reserve(id, { agentId: 'a', tokens: 300 }));
      expect(refused(await reserve(id, { agentId: 'a', tokens: 1 }))).toEqual({
        reason: 'tokens_per_minute',
        retryAfterSeconds: 50,
        limit: 700,
        current: 700,
        requested: 1,
      });
      // Settling for less counts less in the window.
      await pools.settle(id, first.reservationId, { actualTokens: 350 });
      expect((await pools.view(id)).lastMinute).toEqual({ tokens: 650, requests: 2 });
      expect((await pools.view(id)).tokenBudget).toBeNull();
      advance(49_999);
      expect(refused(await reserve(id, { agentId: 'a', tokens: 100 })).retryAfterSeconds).toBe(1);
      advance(1);
      expect((await pools.view(id)).lastMinute).toEqual({ tokens: 300, requests: 1 });
      granted(await reserve(id, { agentId: 'a', tokens: 400 }));
    });

    it('counts reservations against requestsPerMinute, per priority', async () => {
      const id = await fresh({ requestsPerMinute: 10 });
      for (let index = 0; index < 7; index += 1) {
        granted(await reserve(id, { agentId: 'a', tokens: 1 }));
        advance(1000);
      }
      expect(refused(await reserve(id, { agentId: 'a', tokens: 1 }))).toEqual({
        reason: 'requests_per_minute',
        retryAfterSeconds: 53,
        limit: 7,
        current: 7,
        requested: 1,
      });
      granted(await reserve(id, { agentId: 'a', tokens: 1, priority: 'urgent' }));
      expect(await pools.view(id)).toMatchObject({ level: 'HIGH', usedFraction: 0.8, left: null });
    });

    it('answers the reason that cannot be waited out, with no retry time, over one that can', async () => {
      const id = await fresh({ tokenBudget: 100_000, tokensPerMinute: 40_000 });
      granted(await reserve(id, { agentId: 'a', tokens: 25_000 }));
      // Budget: 25,000 + 30,000 > low's 50,000 (budget_reserved); tokens/min: 30,000 > low's 20,000 for ever.
      expect(refused(await reserve(id, { agentId: 'b', tokens: 30_000, priority: 'low' }))).toEqual({
        reason: 'request_too_large',
        retryAfterSeconds: null,
        limit: 20_000,
        current: 25_000,
        requested: 30_000,
      });
    });

    it('gives no retry time when one refusing limit cannot be waited out', async () => {
      const id = await fresh({ tokenBudget: 1000, tokensPerMinute: 100_000 });
      const { reservationId } = granted(await reserve(id, { agentId: 'a', tokens: 700 }));
      await pools.settle(id, reservationId, { actualTokens: 700 });
      expect(refused(await reserve(id, { agentId: 'a', tokens: 1 }))).toMatchObject({
        reason: 'budget_exhausted',
        retryAfterSeconds: null,
      });
    });
  });

  describe('pools', () => {
    it('lists pools by id, deletes them, and answers BR_ERR_POOL_NOT_FOUND / BR_ERR_POOL_EXISTS', async () => {
      const id = await fresh({ tokenBudget: 5000 });
      expect((await pools.list()).map((view) => view.id)).toContain(id);
      expect(await codeOf(pools.create({ id, tokenBudget: 1 }))).toBe('BR_ERR_POOL_EXISTS');
      const { reservationId } = granted(await reserve(id, { agentId: 'a', tokens: 10 }));
      expect(await pools.delete(id)).toBe(true);
      expect(await pools.delete(id)).toBe(false);
      expect(await codeOf(pools.view(id))).toBe('BR_ERR_POOL_NOT_FOUND');
      expect(await codeOf(pools.reserve(id, { agentId: 'a', tokens: 1 }))).toBe('BR_ERR_POOL_NOT_FOUND');
      expect(await codeOf(pools.settle(id, reservationId, { actualTokens: 1 }))).toBe(
        'BR_ERR_POOL_NOT_FOUND',
      );
    });

    it('answers BR_ERR_RESERVATION_NOT_FOUND for an unknown id or one of another pool', async () => {
      const other = await fresh({ tokenBudget: 5000 });
      const { reservationId } = granted(await reserve(other, { agentId: 'a', tokens: 10 }));
      counter += 1;
      const id = `pool-${counter}`;
      await pools.create({ id, tokenBudget: 5000 });
      expect(await codeOf(pools.settle(id, reservationId, { actualTokens: 1 }))).toBe(
        'BR_ERR_RESERVATION_NOT_FOUND',
      );
      expect(await codeOf(pools.release(id, `rsv_${'0'.repeat(32)}`))).toBe('BR_ERR_RESERVATION_NOT_FOUND');
    });

    it('names the bad field and writes nothing', async () => {
      const id = await fresh({ tokenBudget: 5000 });
      const issuesOf = async (promise: Promise<unknown>) => {
        try {
          await promise;
        } catch (error) {
          if (error instanceof BarometerValidationError) return error.issues.map((issue) => issue.field);
          throw error;
        }
        return [];
      };
      expect(await issuesOf(pools.reserve(id, { agentId: 'a', tokens: 0 }))).toEqual(['tokens']);
      expect(
        await issuesOf(pools.reserve(id, { agentId: 'a', tokens: 5, priority: 'max' as never })),
      ).toEqual(['priority']);
      expect(await issuesOf(pools.reserve(id, { agentId: 'a', tokens: 5, ttlSeconds: 3601 }))).toEqual([
        'ttlSeconds',
      ]);
      expect(
        await issuesOf(pools.create({ id: 'x', tokenBudget: 10, priorityCeilings: { low: 0.9 } })),
      ).toEqual(['priorityCeilings.normal']);
      expect(await issuesOf(pools.create({ id: 'y' }))).toEqual(['tokenBudget']);
      expect(await issuesOf(pools.create({ id: 'z', tokenBudget: 10, extra: 1 } as never))).toEqual([
        'extra',
      ]);
      expect(await issuesOf(pools.settle(id, 'nope', { actualTokens: 1 }))).toEqual(['reservationId']);
      expect(await issuesOf(pools.view('../etc'))).toEqual(['poolId', 'poolId']);
      expect(await pools.view(id)).toMatchObject({ reserved: 0, reservations: 0 });
      expect((await pools.list()).map((view) => view.id)).not.toContain('x');
    });
  });

  describe('pressure level', () => {
    it('is LOW below the low ceiling, MODERATE from it, HIGH from normal, CRITICAL from high', async () => {
      const id = await fresh({ tokenBudget: 10_000 });
      const levels: string[] = [];
      for (const tokens of [4999, 1, 2000, 1500]) {
        granted(await reserve(id, { agentId: 'a', tokens, priority: 'urgent' }));
        levels.push((await pools.view(id)).level);
      }
      expect(levels).toEqual(['LOW', 'MODERATE', 'HIGH', 'CRITICAL']);
    });
  });

  it('admits exactly the ceiling under 200 concurrent reservations', async () => {
    const id = await fresh({ tokenBudget: 100_000 });
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        reserve(id, { agentId: `agent-${index % 7}`, tokens: 1000, priority: 'normal' }),
      ),
    );
    expect(decisions.filter((decision) => decision.ok)).toHaveLength(70);
    expect((await pools.view(id)).reserved).toBe(70_000);
  });
}

describe('MemoryPoolStore', () => {
  poolStoreContract(async () => {
    const time = clock();
    return { store: new MemoryPoolStore({ now: time.now }), advance: time.advance };
  });
});

describe('MemoryPoolStore kept in the database, restarted before every operation', () => {
  // Every call is made by a store built anew from the database, as after a restart: what it answers is what the
  // rows kept (pools, used tokens, active and ended reservations, the last minute's window).
  poolStoreContract(async () => {
    const time = clock();
    const database = StateDatabase.open(':memory:');
    const kept = poolRows(database);
    const fresh = () => new MemoryPoolStore({ now: time.now, kept });
    const store: PoolStore = {
      create: (config) => fresh().create(config),
      view: (poolId) => fresh().view(poolId),
      list: () => fresh().list(),
      delete: (poolId) => fresh().delete(poolId),
      reserve: (poolId, request) => fresh().reserve(poolId, request),
      settle: (poolId, reservationId, request) => fresh().settle(poolId, reservationId, request),
      release: (poolId, reservationId) => fresh().release(poolId, reservationId),
    };
    return { store, advance: time.advance };
  });
});

const missing = redisMissing();
describe.skipIf(skipWithoutRedis('RedisPoolStore'))('RedisPoolStore', () => {
  let server: RedisServer;
  let client: Redis;
  let prefixes = 0;

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the Redis suite fails instead of skipping`);
    server = await startRedisServer();
    client = new Redis(server.url);
  });

  afterAll(async () => {
    await client?.quit();
    await server?.stop();
  });

  describe('the PoolStore contract, on Redis', () => {
    poolStoreContract(async () => {
      const time = clock();
      prefixes += 1;
      return {
        store: new RedisPoolStore(client, { keyPrefix: `test${prefixes}:`, now: time.now }),
        advance: time.advance,
      };
    });
  });

  it("reads the Redis server's clock by default: a reservation expires by it", async () => {
    const pools = new RedisPoolStore(client, { keyPrefix: 'clock:' });
    await pools.create({ id: 'p', tokenBudget: 100 });
    const grant = granted(await pools.reserve('p', { agentId: 'a', tokens: 10, ttlSeconds: 1 }));
    const [seconds, micros] = await client.time();
    const serverNow = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    expect(Math.abs(Date.parse(grant.expiresAt) - (serverNow + 1000))).toBeLessThan(100);
    expect((await pools.view('p')).reserved).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await pools.view('p')).reserved).toBe(0);
  });

  it('keeps its keys under the prefix, one hash-tagged slot per pool, and loads its library again after FUNCTION FLUSH', async () => {
    const pools = new RedisPoolStore(client, { keyPrefix: 'keys:' });
    await pools.create({ id: 'team', tokenBudget: 100, tokensPerMinute: 1000 });
    granted(await pools.reserve('team', { agentId: 'a', tokens: 10 }));
    await client.call('FUNCTION', 'FLUSH');
    granted(await pools.reserve('team', { agentId: 'a', tokens: 10 }));
    expect((await pools.view('team')).reserved).toBe(20);
    const libraries = (await client.call(
      'FUNCTION',
      'LIST',
      'LIBRARYNAME',
      'barometer_pools_*',
    )) as unknown[][];
    expect(libraries.map((library) => library[1])).toEqual([POOL_LIBRARY_NAME]);
    const keys = (await client.keys('keys:*')).sort();
    expect(keys).toEqual([
      'keys:pool:{team}',
      'keys:pool:{team}:exp',
      'keys:pool:{team}:win',
      'keys:pool:{team}:wtok',
      'keys:pools',
    ]);
  });

  it('says that pools need Redis 7 when the server has no functions, and writes nothing', async () => {
    const old = await startRedisServer(['--rename-command', 'FCALL', '', '--rename-command', 'FUNCTION', '']);
    const oldClient = new Redis(old.url);
    try {
      const pools = new RedisPoolStore(oldClient, { keyPrefix: 'old:' });
      await expect(pools.create({ id: 'p', tokenBudget: 100 })).rejects.toThrow(
        /pools need Redis 7 or newer \(FUNCTION LOAD, FCALL\); this server said: ERR unknown command 'fcall'/i,
      );
      expect(await oldClient.dbsize()).toBe(0);
    } finally {
      await oldClient.quit();
      await old.stop();
    }
  });
});
