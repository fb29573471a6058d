import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServer,
  redisMissing,
  skipWithoutRedis,
  startRedisServer,
} from '../test-helpers/redis-server.js';
import { RedisStateStore } from './redis-state-store.js';
import { SqliteStateStore } from './sqlite-state-store.js';
import { StateDatabase } from './state-database.js';
import type { StateStore } from './state-store.js';

interface Counter {
  id: string;
  count: number;
  log: { items: number[] };
}

const missing = redisMissing();

/** One contract, every store: what the monitor relies on. */
function contract(name: string, open: (maxEntries: number) => Promise<StateStore<Counter>>) {
  describe(`${name}: the StateStore contract`, () => {
    it('creates once, refuses an id in use and a full store, and gets what it stored', async () => {
      const store = await open(2);
      expect(await store.create('a', { id: 'a', count: 0, log: { items: [] } })).toBe('created');
      expect(await store.create('a', { id: 'a', count: 9, log: { items: [] } })).toBe('exists');
      expect(await store.create('b', { id: 'b', count: 0, log: { items: [] } })).toBe('created');
      expect(await store.create('c', { id: 'c', count: 0, log: { items: [] } })).toBe('full');
      expect(await store.get('a')).toEqual({ id: 'a', count: 0, log: { items: [] } });
      expect(await store.get('c')).toBeUndefined();
      expect(await store.size()).toBe(2);
      expect((await store.values()).map((value) => value.id).sort()).toEqual(['a', 'b']);
    });

    it('applies every one of 100 concurrent updates once, and nothing when the change throws', async () => {
      const store = await open(10);
      await store.create('n', { id: 'n', count: 0, log: { items: [] } });
      await Promise.all(
        Array.from({ length: 100 }, () =>
          store.update('n', (current) => ({ ...current, count: current.count + 1 })),
        ),
      );
      expect((await store.get('n'))?.count).toBe(100);
      // Thrown at once by a store that answers at once, rejected by one that answers with a promise.
      await expect(async () =>
        store.update('n', () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect((await store.get('n'))?.count).toBe(100);
      expect(await store.update('missing', (current) => current)).toBeUndefined();
    });

    it('deletes, and answers false for an id it does not hold', async () => {
      const store = await open(10);
      await store.create('d', { id: 'd', count: 1, log: { items: [1, 2] } });
      expect(await store.delete('d')).toBe(true);
      expect(await store.delete('d')).toBe(false);
      expect(await store.get('d')).toBeUndefined();
      expect(await store.size()).toBe(0);
      // The id is free again, with nothing left of the old value.
      await store.create('d', { id: 'd', count: 0, log: { items: [] } });
      expect(await store.get('d')).toEqual({ id: 'd', count: 0, log: { items: [] } });
    });
  });
}

/** A store with the list `log.items` (limit 5): a change sees it empty, what it adds is appended and trimmed. */
async function appendsToLists(store: StateStore<Counter>) {
  await store.create('l', { id: 'l', count: 0, log: { items: [1, 2, 3] } });
  const seen: number[][] = [];
  const after = await store.update('l', (current) => {
    seen.push([...current.log.items]);
    return { ...current, count: 1, log: { items: [...current.log.items, 4, 5, 6] } };
  });
  expect(seen).toEqual([[]]);
  // The answer holds what this update appended; the store holds the last five (the limit).
  expect(after?.log.items).toEqual([4, 5, 6]);
  expect(await store.get('l')).toEqual({ id: 'l', count: 1, log: { items: [2, 3, 4, 5, 6] } });
  // Past many appends the store still answers the last five, in order.
  for (let item = 7; item < 200; item++)
    await store.update('l', (current) => ({ ...current, log: { items: [item] } }));
  expect((await store.get('l'))?.log.items).toEqual([195, 196, 197, 198, 199]);
}

/** Pages walk the ids in order from a cursor; `lists: false` leaves the lists empty. */
async function pagesWithoutLists(store: StateStore<Counter>) {
  for (const id of ['c', 'a', 'b']) await store.create(id, { id, count: 1, log: { items: [1, 2] } });
  const first = await store.page(null, 2, { lists: false });
  expect(first).toEqual({
    values: [
      { id: 'a', count: 1, log: { items: [] } },
      { id: 'b', count: 1, log: { items: [] } },
    ],
    next: 'b',
  });
  expect(await store.page(first.next, 2)).toEqual({
    values: [{ id: 'c', count: 1, log: { items: [1, 2] } }],
    next: null,
  });
}

const LISTS = [{ path: ['log', 'items'], limit: 5 }];
const folder = mkdtempSync(join(tmpdir(), 'barometer-state-store-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;

contract('sqlite (in memory)', async (maxEntries) => new SqliteStateStore<Counter>({ maxEntries }));
contract(
  'sqlite (a file)',
  async (maxEntries) =>
    new SqliteStateStore<Counter>({
      database: StateDatabase.open(join(folder, `contract-${++files}.db`)),
      maxEntries,
      lists: LISTS,
    }),
);

describe('sqlite: lists, pages', () => {
  it('keeps an append-only list beside the value: a change sees it empty, its additions are appended and trimmed', async () => {
    await appendsToLists(new SqliteStateStore<Counter>({ lists: LISTS }));
  });

  it('reads a page without its lists when told so', async () => {
    await pagesWithoutLists(new SqliteStateStore<Counter>({ lists: LISTS }));
  });
});

describe('sqlite: answers without a promise', () => {
  it('answers an update with the new value itself, within the call', async () => {
    const store = new SqliteStateStore<Counter>();
    await store.create('n', { id: 'n', count: 0, log: { items: [] } });
    const answer = store.update('n', (current) => ({ ...current, count: current.count + 1 }));
    expect(answer).not.toBeInstanceOf(Promise);
    expect(answer).toEqual({ id: 'n', count: 1, log: { items: [] } });
    expect(store.update('missing', (current) => current)).toBeUndefined();
  });
});

describe.skipIf(skipWithoutRedis('Redis'))('Redis', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  let prefix = 0;
  const client = () => {
    const redis = new Redis(server.url, { enableAutoPipelining: true });
    clients.push(redis);
    return redis;
  };
  const redisStore = (redis: Redis, name: string, maxEntries = 10) =>
    new RedisStateStore<Counter>(redis, {
      prefix: `t${name}:`,
      namespace: 'counters',
      maxEntries,
      lists: [{ path: ['log', 'items'], limit: 5 }],
    });

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the Redis suite fails instead of skipping`);
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const redis of clients) redis.disconnect();
    await server?.stop();
  });

  contract('redis', async (maxEntries) => {
    prefix += 1;
    return redisStore(client(), String(prefix), maxEntries);
  });

  it('keeps an append-only list beside the value: a change sees it empty, its additions are appended and trimmed', async () => {
    await appendsToLists(redisStore(client(), 'lists'));
  });

  it('reads a page without its lists when told so', async () => {
    await pagesWithoutLists(redisStore(client(), 'nolists'));
  });

  it('applies 200 concurrent updates through two clients (two instances) exactly once each', async () => {
    const first = redisStore(client(), 'two');
    const second = redisStore(client(), 'two');
    await first.create('s', { id: 's', count: 0, log: { items: [] } });
    await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        (index % 2 === 0 ? first : second).update('s', (current) => ({
          ...current,
          count: current.count + 1,
          log: { items: [index] },
        })),
      ),
    );
    const value = await second.get('s');
    expect(value?.count).toBe(200);
    // Five kept items, all distinct: each update appended its own index once.
    expect(new Set(value?.log.items).size).toBe(5);
  });

  it('never applies a change to a stale value: a remembered version cannot match a value deleted and made again', async () => {
    const first = redisStore(client(), 'aba');
    const second = redisStore(client(), 'aba');
    await first.create('r', { id: 'r', count: 0, log: { items: [] } });
    await first.update('r', (current) => ({ ...current, count: current.count + 1 }));
    // Another instance replaces the value behind the first one's back.
    await second.delete('r');
    await second.create('r', { id: 'r', count: 100, log: { items: [] } });
    await first.update('r', (current) => ({ ...current, count: current.count + 1 }));
    expect((await second.get('r'))?.count).toBe(101);
    // And an update by the other instance in between is seen too.
    await second.update('r', (current) => ({ ...current, count: current.count * 2 }));
    await first.update('r', (current) => ({ ...current, count: current.count + 1 }));
    expect((await first.get('r'))?.count).toBe(203);
  });

  it('answers a value that does not read back with BR_ERR_INTEGRITY naming the id', async () => {
    const redis = client();
    const store = new RedisStateStore<Counter>(redis, {
      prefix: 'tbad:',
      namespace: 'counters',
      parse: (value) =>
        typeof (value as Counter).count === 'number'
          ? { ok: true, value: value as Counter }
          : { ok: false, reason: 'count: expected a number' },
    });
    await store.create('x', { id: 'x', count: 0, log: { items: [] } });
    await redis.hset('tbad:counters:v:x', 'd', '{"id":"x","count":"zero","log":{"items":[]}}');
    await expect(store.get('x')).rejects.toMatchObject({
      code: 'BR_ERR_INTEGRITY',
      message: expect.stringContaining('"x" does not read back: count: expected a number'),
    });
    await redis.hset('tbad:counters:v:x', 'd', '{not json');
    await expect(store.update('x', (current) => current)).rejects.toMatchObject({ code: 'BR_ERR_INTEGRITY' });
  });

  it('fails a command with BR_ERR_STORE_UNAVAILABLE when Redis is gone, and keeps the process up', async () => {
    const other = await startRedisServer();
    const redis = new Redis(other.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    redis.on('error', () => {});
    clients.push(redis);
    const store = redisStore(redis, 'gone');
    await store.create('g', { id: 'g', count: 0, log: { items: [] } });
    await other.stop();
    await expect(store.update('g', (current) => current)).rejects.toMatchObject({
      code: 'BR_ERR_STORE_UNAVAILABLE',
    });
  });
});
