import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServer,
  redisMissing,
  skipWithoutRedis,
  startRedisServer,
} from '../test-helpers/redis-server.js';
import { RedisEventBus } from './event-bus.js';

const missing = redisMissing();

describe.skipIf(skipWithoutRedis('RedisEventBus'))('RedisEventBus', () => {
  let server: RedisServer;
  let prefix = 0;
  const clients: Redis[] = [];
  const buses: RedisEventBus[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the Redis suite fails instead of skipping`);
    server = await startRedisServer();
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const client = () => {
    const redis = new Redis(server.url);
    clients.push(redis);
    return redis;
  };
  const open = async (options: { prefix: string }) => {
    const bus = await RedisEventBus.open(client(), options);
    buses.push(bus);
    return bus;
  };
  /** PUBLISH commands Redis has run since it started. */
  const publishes = async () => {
    const stats = await client().info('commandstats');
    return Number(/cmdstat_publish:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  };
  const until = async (condition: () => boolean, what: string, ms = 3000) => {
    const end = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > end) throw new Error(`still waiting for ${what} after ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('publishes nothing while alone on its channel, and sends again once another instance has opened', async () => {
    const options = { prefix: `bus${++prefix}:` };
    const first = await open(options);
    // Its hello reached only its own subscriber.
    expect(first.publishing).toBe(false);
    const before = await publishes();
    for (let index = 0; index < 5; index++) first.publish({ index });
    expect(await publishes()).toBe(before);

    const second = await open(options);
    // `open` returned once the first instance had welcomed the second: it sends again already.
    expect(first.publishing).toBe(true);
    expect(second.publishing).toBe(true);
    const received: unknown[] = [];
    second.subscribe((message) => received.push(message));
    first.publish({ hello: 'second' });
    await until(() => received.length === 1, "the second instance's message");
    expect(received).toEqual([{ hello: 'second' }]);
  });

  it('goes quiet again when the other instances have left', async () => {
    const options = { prefix: `bus${++prefix}:` };
    const first = await open(options);
    const second = await open(options);
    expect(first.publishing).toBe(true);
    await second.close();
    // Once Redis has dropped the second subscriber, a message reaches no one but the first instance's own, and
    // Redis's count says so.
    await until(() => {
      first.publish({ nobody: 'listens' });
      return !first.publishing;
    }, 'the first instance to go quiet');
    const before = await publishes();
    first.publish({ still: 'nobody' });
    expect(await publishes()).toBe(before);
  });

  it('finds a subscriber that never says hello by asking Redis while alone', async () => {
    const options = { prefix: `bus${++prefix}:` };
    const bus = await open(options);
    expect(bus.publishing).toBe(false);
    const listener = client();
    const received: string[] = [];
    listener.on('message', (_channel: string, text: string) => received.push(text));
    await listener.subscribe(`${options.prefix}events`);
    await until(() => bus.publishing, 'the bus to count the new subscriber');
    bus.publish({ to: 'anyone' });
    await until(() => received.length === 1, 'the message');
    expect(JSON.parse(received[0] as string)).toEqual({
      from: bus.instanceId,
      topic: 'events',
      message: { to: 'anyone' },
    });
  });
});
