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
  const until = async (condition: () => boolean, what: string, ms = 3000) => {
    const end = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > end) throw new Error(`still waiting for ${what} after ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it("delivers each instance's messages to the others, by topic and in order, and not to itself", async () => {
    const options = { prefix: `bus${++prefix}:` };
    const first = await open(options);
    const second = await open(options);
    const heard = { first: [] as unknown[], second: [] as unknown[], webhooks: [] as unknown[] };
    first.subscribe((message) => heard.first.push(message));
    second.subscribe((message) => heard.second.push(message));
    second.subscribe((message) => heard.webhooks.push(message), 'webhooks');
    for (let index = 0; index < 3; index++) first.publish({ index });
    first.publish({ changed: 'w1' }, 'webhooks');
    second.publish({ from: 'second' });
    await until(
      () => heard.second.length === 3 && heard.webhooks.length === 1 && heard.first.length === 1,
      'the messages',
    );
    expect(heard.second).toEqual([{ index: 0 }, { index: 1 }, { index: 2 }]);
    expect(heard.webhooks).toEqual([{ changed: 'w1' }]);
    expect(heard.first).toEqual([{ from: 'second' }]);
  });

  it('publishes even when no other instance listens, as { from, topic, message } JSON', async () => {
    const options = { prefix: `bus${++prefix}:` };
    const bus = await open(options);
    const listener = client();
    const received: string[] = [];
    listener.on('message', (_channel: string, text: string) => received.push(text));
    await listener.subscribe(`${options.prefix}events`);
    bus.publish({ to: 'anyone' });
    await until(() => received.length === 1, 'the message');
    expect(JSON.parse(received[0] as string)).toEqual({
      from: bus.instanceId,
      topic: 'events',
      message: { to: 'anyone' },
    });
  });

  it('reports a message on its channel that is not JSON, and goes on', async () => {
    const options = { prefix: `bus${++prefix}:` };
    const problems: string[] = [];
    const bus = await RedisEventBus.open(client(), { ...options, onProblem: (text) => problems.push(text) });
    buses.push(bus);
    const other = await open(options);
    const received: unknown[] = [];
    bus.subscribe((message) => received.push(message));
    await client().publish(`${options.prefix}events`, 'not json');
    other.publish({ after: 'garbage' });
    await until(() => received.length === 1, 'the message after the garbage');
    expect(problems).toEqual(['an event on the shared channel is not JSON; skipped']);
    expect(received).toEqual([{ after: 'garbage' }]);
  });
});
