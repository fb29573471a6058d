import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Carries what one instance publishes to every other instance of the same service (the session events that
 * their event streams show). Delivery is at most once and in publication order per publisher; an instance does
 * not receive its own messages, and may send nothing while no other instance listens.
 */
export interface EventBus {
  /** `topic` keeps apart what different parts share over one bus. @default 'events' */
  publish(message: unknown, topic?: string): void;
  /**
   * Receives the other instances' messages on a topic; answers the function that stops it. The topics `hello`
   * and `welcome` are the Redis bus's own.
   */
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

/** The bus's own topics: a new instance's greeting, and the answer of each instance that heard it. */
const HELLO = 'hello';
const WELCOME = 'welcome';
/** How long a new instance waits for the others' welcomes before it goes on. */
const WELCOME_WAIT_MS = 500;
/** How often an instance alone on the channel asks Redis whether anyone else subscribed. */
const ALONE_CHECK_MS = 1000;

/**
 * An event bus on Redis pub/sub: `publish` goes out on the given connection, and a second connection (a
 * duplicate, since a subscribed connection can do nothing else) receives. Each message carries the instance's
 * id so that it can skip its own.
 *
 * An instance alone on the channel publishes nothing (decision 018): Redis's answer to a PUBLISH counts its
 * receivers, and when only the instance's own subscriber heard a message, the next ones are not sent (on one
 * instance, publishing the session's state and reading it back cost ~20–35 µs of a ~150 µs usage post). It
 * sends again as soon as another instance is there: a new instance says hello once subscribed, and `open`
 * returns once every instance that heard it has welcomed it (each sets itself to send before it answers), or
 * after half a second; a subscriber that never says hello is found by asking Redis every second (`PUBSUB
 * NUMSUB`) while alone.
 */
export class RedisEventBus implements EventBus {
  readonly instanceId = randomUUID();
  /** Whether anyone else may hear this instance's messages; true until Redis says otherwise. */
  #others = true;
  /** Messages heard from other instances: a receiver count taken before the last one is out of date. */
  #heard = 0;
  #aloneCheck: NodeJS.Timeout | undefined;
  /** Welcomes addressed to this instance, and who waits for them (`open`). */
  #welcomes = 0;
  #onWelcome: (() => void) | undefined;
  #closed = false;
  /** Whether the last count of the channel's subscribers failed (its warning is given once, not every second). */
  #countFailed = false;
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #channel: string;
  readonly #handlers = new Map<string, Set<(message: unknown) => void>>();
  readonly #onProblem: NonNullable<RedisEventBusOptions['onProblem']>;
  /** How every message of this instance begins: its own are recognised (and skipped) without being parsed. */
  readonly #ownPrefix: string;
  readonly #ownPrefixBytes: Buffer;
  readonly #channelBytes: Buffer;

  private constructor(publisher: Redis, subscriber: Redis, options: RedisEventBusOptions) {
    this.#publisher = publisher;
    this.#subscriber = subscriber;
    this.#channel = `${options.prefix ?? 'barometer:'}${options.channel ?? 'events'}`;
    this.#onProblem = options.onProblem ?? (() => {});
    this.#ownPrefix = `{"from":${JSON.stringify(this.instanceId)},`;
    this.#ownPrefixBytes = Buffer.from(this.#ownPrefix);
    this.#channelBytes = Buffer.from(this.#channel);
    const own = this.#ownPrefixBytes;
    // After a reconnect the subscriber reads as ready before it has subscribed again, so a count Redis gives
    // meanwhile may leave this instance out: send again, and let any count already asked for go stale. A count
    // taken in that moment can still read "alone"; the next check of the subscribers (a second) corrects it.
    let connected = false;
    subscriber.on('ready', () => {
      if (connected) {
        this.#heard += 1;
        this.#listened();
      }
      connected = true;
    });
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
      this.#heard += 1;
      this.#listened();
      if (envelope.topic === HELLO) {
        // Sending again already (above), then saying so: the new instance's `open` waits for this.
        if (typeof envelope.from === 'string') this.#send({ to: envelope.from }, WELCOME);
        return;
      }
      if (envelope.topic === WELCOME) {
        if ((envelope.message as { to?: unknown } | undefined)?.to === this.instanceId) {
          this.#welcomes += 1;
          this.#onWelcome?.();
        }
        return;
      }
      const handlers = this.#handlers.get(typeof envelope.topic === 'string' ? envelope.topic : 'events');
      for (const handler of handlers ?? []) handler(envelope.message);
    });
  }

  /** A bus subscribed to its channel (resolves once Redis confirmed the subscription). */
  static async open(publisher: Redis, options: RedisEventBusOptions = {}): Promise<RedisEventBus> {
    const subscriber = publisher.duplicate();
    const bus = new RedisEventBus(publisher, subscriber, options);
    await subscriber.subscribe(bus.#channel);
    await bus.#greet();
    return bus;
  }

  /** Says hello, and waits for a welcome from every other instance that heard it (at most WELCOME_WAIT_MS). */
  async #greet(): Promise<void> {
    const heard = this.#heard;
    let receivers: number;
    try {
      receivers = await this.#publisher.publish(this.#channel, this.#envelope(undefined, HELLO));
    } catch (error) {
      this.#onProblem('the other instances could not be greeted', error);
      return;
    }
    const others = receivers - this.#ownReceivers();
    if (others <= 0) {
      if (heard === this.#heard) this.#alone();
      return;
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#onWelcome = undefined;
        resolve();
      };
      const timer = setTimeout(done, WELCOME_WAIT_MS);
      this.#onWelcome = () => {
        if (this.#welcomes >= others) done();
      };
      this.#onWelcome();
    });
  }

  publish(message: unknown, topic = 'events'): void {
    if (this.#others && !this.#closed) this.#send(message, topic);
  }

  /** Whether another instance may hear what this one publishes (false: it publishes nothing). */
  get publishing(): boolean {
    return this.#others;
  }

  /** What JSON.stringify({ from, topic, message }) writes, with the constant part written once. */
  #envelope(message: unknown, topic: string): string {
    const body = JSON.stringify(message) as string | undefined;
    return `${this.#ownPrefix}"topic":${JSON.stringify(topic)}${body === undefined ? '' : `,"message":${body}`}}`;
  }

  #send(message: unknown, topic: string): void {
    const heard = this.#heard;
    this.#publisher.publish(this.#channel, this.#envelope(message, topic)).then(
      (receivers) => {
        // A count taken before another instance was heard from is out of date: that one is listening.
        if (receivers - this.#ownReceivers() <= 0 && heard === this.#heard) this.#alone();
      },
      (error: unknown) => {
        this.#onProblem('an event could not be published to the other instances', error);
      },
    );
  }

  /** This instance's own subscriber among a channel's receivers: one while it is connected. */
  #ownReceivers(): number {
    return this.#subscriber.status === 'ready' ? 1 : 0;
  }

  #alone(): void {
    if (!this.#others || this.#closed) return;
    this.#others = false;
    this.#aloneCheck = setInterval(() => {
      this.#publisher.pubsub('NUMSUB', this.#channel).then(
        (reply) => {
          this.#countFailed = false;
          if (Number((reply as unknown[])[1]) - this.#ownReceivers() > 0) this.#listened();
        },
        (error: unknown) => {
          if (this.#closed || this.#countFailed) return;
          this.#countFailed = true;
          this.#onProblem(
            'the channel’s subscribers could not be counted (told once until it works again)',
            error,
          );
        },
      );
    }, ALONE_CHECK_MS);
    this.#aloneCheck.unref();
  }

  #listened(): void {
    this.#others = true;
    if (this.#aloneCheck !== undefined) {
      clearInterval(this.#aloneCheck);
      this.#aloneCheck = undefined;
    }
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
    if (this.#aloneCheck !== undefined) clearInterval(this.#aloneCheck);
    this.#aloneCheck = undefined;
    this.#onWelcome = undefined;
    this.#handlers.clear();
    this.#subscriber.disconnect();
  }
}
