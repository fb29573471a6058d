import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Carries what one instance publishes to every other instance of the same service (the session events that
 * their event streams show). Delivery is at most once and in publication order per publisher; an instance does
 * not receive its own messages.
 */
export interface EventBus {
  /** `topic` keeps apart what different parts share over one bus. @default 'events' */
  publish(message: unknown, topic?: string): void;
  /** Receives the other instances' messages on a topic; answers the function that stops it. */
  subscribe(handler: (message: unknown) => void, topic?: string): () => void;
  close(): Promise<void>;
}

export interface RedisEventBusOptions {
  /** @default 'barometer:' */
  prefix?: string;
  /** The channel under the prefix. @default 'events' */
  channel?: string;
  /** Told of a message that is not JSON or of a failed publish (the process goes on). */
  onProblem?: (message: string, error?: unknown) => void;
}

/**
 * An event bus on Redis pub/sub: `publish` goes out on the given connection, and a second connection (a
 * duplicate, since a subscribed connection can do nothing else) receives. Each message carries the instance's
 * id so that it can skip its own. Every message is published, whether or not another instance listens: Redis
 * tells no one who will (decision 020 removed a protocol that tried).
 */
export class RedisEventBus implements EventBus {
  readonly instanceId = randomUUID();
  #closed = false;
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #channel: string;
  readonly #handlers = new Map<string, Set<(message: unknown) => void>>();
  readonly #onProblem: NonNullable<RedisEventBusOptions['onProblem']>;
  /** How every message of this instance begins: its own are recognised (and skipped) without being parsed. */
  readonly #ownPrefixBytes: Buffer;
  readonly #channelBytes: Buffer;

  private constructor(publisher: Redis, subscriber: Redis, options: RedisEventBusOptions) {
    this.#publisher = publisher;
    this.#subscriber = subscriber;
    this.#channel = `${options.prefix ?? 'barometer:'}${options.channel ?? 'events'}`;
    this.#onProblem = options.onProblem ?? (() => {});
    // What JSON.stringify writes first for this instance's envelope { from, topic, message }.
    this.#ownPrefixBytes = Buffer.from(`{"from":${JSON.stringify(this.instanceId)},`);
    this.#channelBytes = Buffer.from(this.#channel);
    const own = this.#ownPrefixBytes;
    // Bytes, not strings: Redis echoes every message to its publisher too, and an instance's own are skipped
    // undecoded and unparsed (on one busy instance, reading its own events back cost as much as writing them).
    subscriber.on('messageBuffer', (channel: Buffer, data: Buffer) => {
      if (!channel.equals(this.#channelBytes)) return;
      if (data.length >= own.length && data.compare(own, 0, own.length, 0, own.length) === 0) return;
      const text = data.toString();
      let envelope: { from?: unknown; topic?: unknown; message?: unknown };
      try {
        envelope = JSON.parse(text) as typeof envelope;
      } catch (error) {
        this.#onProblem('an event on the shared channel is not JSON; skipped', error);
        return;
      }
      if (envelope.from === this.instanceId) return;
      const handlers = this.#handlers.get(typeof envelope.topic === 'string' ? envelope.topic : 'events');
      for (const handler of handlers ?? []) handler(envelope.message);
    });
  }

  /** A bus subscribed to its channel (resolves once Redis confirmed the subscription). */
  static async open(publisher: Redis, options: RedisEventBusOptions = {}): Promise<RedisEventBus> {
    const subscriber = publisher.duplicate();
    const bus = new RedisEventBus(publisher, subscriber, options);
    await subscriber.subscribe(bus.#channel);
    return bus;
  }

  publish(message: unknown, topic = 'events'): void {
    if (this.#closed) return;
    const text = JSON.stringify({ from: this.instanceId, topic, message });
    this.#publisher.publish(this.#channel, text).catch((error: unknown) => {
      this.#onProblem('an event could not be published to the other instances', error);
    });
  }

  subscribe(handler: (message: unknown) => void, topic = 'events'): () => void {
    let handlers = this.#handlers.get(topic);
    if (!handlers) {
      handlers = new Set();
      this.#handlers.set(topic, handlers);
    }
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#handlers.clear();
    this.#subscriber.disconnect();
  }
}
