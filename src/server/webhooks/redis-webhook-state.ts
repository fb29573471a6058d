import type { Redis } from 'ioredis';
import type { EventBus } from '../../store/event-bus.js';
import type { Delivery, SharedWebhookState, WebhookRegistration } from './webhook-service.js';

const TOPIC = 'webhooks';

/**
 * Webhooks of a service on Redis: registrations in one hash (with their secrets: protect the Redis as the data
 * dir's database is protected), deliveries in another, so that any instance lists them and a delivery left
 * pending by an instance that died is taken over. A changed registration is announced on the bus; each attempt is
 * claimed with `SET NX` so that one instance makes it.
 */
export class RedisWebhookState implements SharedWebhookState {
  readonly #redis: Redis;
  readonly #bus: EventBus;
  readonly #registrations: string;
  readonly #deliveries: string;
  readonly #claims: string;

  constructor(redis: Redis, bus: EventBus, prefix = 'barometer:') {
    this.#redis = redis;
    this.#bus = bus;
    this.#registrations = `${prefix}webhooks:registrations`;
    this.#deliveries = `${prefix}webhooks:deliveries`;
    this.#claims = `${prefix}webhooks:claim:`;
  }

  async load(): Promise<{ webhooks: WebhookRegistration[]; deliveries: Delivery[] }> {
    const [registrations, deliveries] = await Promise.all([
      this.#redis.hvals(this.#registrations),
      this.#redis.hvals(this.#deliveries),
    ]);
    return {
      webhooks: registrations.map((text) => JSON.parse(text) as WebhookRegistration),
      deliveries: deliveries.map((text) => JSON.parse(text) as Delivery),
    };
  }

  async putWebhook(webhook: WebhookRegistration): Promise<void> {
    await this.#redis.hset(this.#registrations, webhook.id, JSON.stringify(webhook));
  }

  async removeWebhook(id: string): Promise<void> {
    const deliveries = await this.#redis.hvals(this.#deliveries);
    const own = deliveries
      .map((text) => JSON.parse(text) as Delivery)
      .filter((delivery) => delivery.webhookId === id)
      .map((delivery) => delivery.id);
    const multi = this.#redis.multi().hdel(this.#registrations, id);
    if (own.length > 0) multi.hdel(this.#deliveries, ...own);
    await multi.exec();
  }

  async putDeliveries(deliveries: readonly Delivery[], removed: readonly string[]): Promise<void> {
    const multi = this.#redis.multi();
    if (deliveries.length > 0)
      multi.hset(
        this.#deliveries,
        Object.fromEntries(deliveries.map((delivery) => [delivery.id, JSON.stringify(delivery)])),
      );
    if (removed.length > 0) multi.hdel(this.#deliveries, ...removed);
    await multi.exec();
  }

  async claim(deliveryId: string, attempt: number, ttlMs: number): Promise<boolean> {
    return (
      (await this.#redis.set(`${this.#claims}${deliveryId}:${attempt}`, '1', 'PX', ttlMs, 'NX')) === 'OK'
    );
  }

  onChange(listener: () => void): () => void {
    return this.#bus.subscribe(listener, TOPIC);
  }

  announce(): void {
    this.#bus.publish({ changed: true }, TOPIC);
  }
}
