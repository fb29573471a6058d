import { randomUUID } from 'node:crypto';
import type {
  Delivery as DeliveryAnswer,
  WebhookEvent,
  WebhookRegistration,
  WebhookRequest,
  WebhookView,
} from '../../contract/webhooks.js';
import { BarometerValidationError } from '../../errors/validation.js';
import { isoTime } from '../../session/iso-time.js';
import { checkWebhookUrl } from './address-guard.js';
import { type AttemptOutcome, attemptDelivery } from './deliver.js';
import { generateSecret, signWebhook } from './signing.js';

export {
  WEBHOOK_EVENTS,
  type WebhookEvent,
  type WebhookRegistration,
  type WebhookRequest,
  WebhookRequestSchema,
  type WebhookView,
} from '../../contract/webhooks.js';

/** Retry delays (ms) after the first attempt fails: 1 s, 5 s, 30 s, 2 min, 10 min — six attempts over ~13 min. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [1000, 5000, 30_000, 120_000, 600_000];
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 5000;
/** Delivery attempts kept per webhook in its log (the oldest are dropped). */
const LOG_LIMIT = 200;
/** Webhooks registered at most: each event is sent to every one. */
const MAX_WEBHOOKS = 100;

export interface DeliveryAttempt extends AttemptOutcome {
  attempt: number;
  at: string;
}

export interface Delivery {
  /** The `webhook-id` header: the same on every attempt, so receivers can drop duplicates. */
  id: string;
  webhookId: string;
  event: WebhookEvent;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
  /** When the next attempt is due (epoch ms, as stored; answers show it in ISO 8601), while pending. */
  nextAttemptAt: number | null;
  createdAt: string;
}

/** A delivery as an answer shows it: its next attempt's time in ISO 8601 (the stored state keeps epoch ms). */
export function deliveryAnswer(delivery: Delivery): DeliveryAnswer {
  return {
    ...delivery,
    nextAttemptAt: delivery.nextAttemptAt === null ? null : isoTime(delivery.nextAttemptAt),
  };
}

interface PersistedState {
  version: 1;
  webhooks: WebhookRegistration[];
  deliveries: Delivery[];
}

/** Where a service of its own keeps its state (registrations, pending deliveries, logs) as one JSON text. */
export interface KeptWebhookState {
  read(): string | undefined;
  write(text: string): void;
}

export interface WebhookServiceOptions {
  /** Where the state is kept (a row of the data dir's database); without it nothing is kept. */
  kept?: KeptWebhookState;
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
  allowPrivate?: boolean;
  now?: () => number;
  /** A factor in [0, 1) per retry: the delay is stretched by up to 20% of itself, so retries do not flock. */
  random?: () => number;
  onProblem?: (message: string, detail?: unknown) => void;
  /** Told of every attempt's outcome (metrics count them). */
  onAttempt?: (outcome: 'delivered' | 'retried' | 'failed') => void;
  /**
   * Registrations and deliveries shared by every instance of the service (Redis) instead of `kept`: each
   * instance sends the events it produced, to every webhook registered through any of them.
   */
  shared?: SharedWebhookState;
}

/** What several instances share of their webhooks (see `RedisWebhookState`). */
export interface SharedWebhookState {
  load(): Promise<{ webhooks: WebhookRegistration[]; deliveries: Delivery[] }>;
  putWebhook(webhook: WebhookRegistration): Promise<void>;
  /** Removes a webhook and its deliveries. */
  removeWebhook(id: string): Promise<void>;
  putDeliveries(deliveries: readonly Delivery[], removed: readonly string[]): Promise<void>;
  /** True for one instance only per delivery and attempt number: the one that makes that attempt. */
  claim(deliveryId: string, attempt: number, ttlMs: number): Promise<boolean>;
  /** Told when another instance registered or deleted a webhook; answers the function that stops it. */
  onChange(listener: () => void): () => void;
  /** Tells the other instances that the registrations changed. */
  announce(): void;
}

/** How often a shared service reloads the registrations and takes over deliveries left by a dead instance. */
const SHARED_REFRESH_MS = 5000;

function invalid(field: string, value: unknown, message: string): BarometerValidationError {
  return new BarometerValidationError([{ field, value, message }], 'webhook');
}

/**
 * Webhooks: registrations, signed deliveries (Standard Webhooks), retries with backoff and jitter, a delivery
 * log, all kept as one JSON text written whole (a row of the database) so that pending deliveries survive a
 * restart. Delivery is at least once: an attempt cut off by a crash is made again after the restart.
 */
export class WebhookService {
  readonly #options: Required<Omit<WebhookServiceOptions, 'kept' | 'onProblem' | 'onAttempt' | 'shared'>> &
    Pick<WebhookServiceOptions, 'kept' | 'onProblem' | 'onAttempt'>;
  #webhooks = new Map<string, WebhookRegistration>();
  #deliveries = new Map<string, Delivery>();
  #timers = new Map<string, NodeJS.Timeout>();
  #inFlight = new Set<Promise<void>>();
  #saving: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #shared: SharedWebhookState | undefined;
  #stopShared: (() => void) | undefined;
  #refreshTimer: NodeJS.Timeout | undefined;

  constructor(options: WebhookServiceOptions = {}) {
    this.#options = {
      retryDelaysMs: options.retryDelaysMs ?? DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
      timeoutMs: options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
      allowPrivate: options.allowPrivate ?? false,
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
      ...(options.kept === undefined ? {} : { kept: options.kept }),
      ...(options.onProblem === undefined ? {} : { onProblem: options.onProblem }),
      ...(options.onAttempt === undefined ? {} : { onAttempt: options.onAttempt }),
    };
    this.#shared = options.shared;
  }

  /** Reads the kept state and resumes every pending delivery (the overdue ones at once). */
  async start(): Promise<void> {
    if (this.#shared) {
      const shared = this.#shared;
      this.#stopShared = shared.onChange(() => {
        this.refresh().catch((error: unknown) => this.#options.onProblem?.('webhooks: reload failed', error));
      });
      await this.refresh();
      this.#refreshTimer = setInterval(() => {
        this.refresh().catch((error: unknown) => this.#options.onProblem?.('webhooks: reload failed', error));
      }, SHARED_REFRESH_MS);
      this.#refreshTimer.unref?.();
      return;
    }
    let text: string | undefined;
    try {
      text = this.#options.kept?.read();
    } catch (error) {
      this.#options.onProblem?.('the webhooks could not be read; starting without them', error);
      return;
    }
    if (text === undefined) return;
    try {
      const state = JSON.parse(text) as PersistedState;
      for (const webhook of state.webhooks ?? []) this.#webhooks.set(webhook.id, webhook);
      for (const delivery of state.deliveries ?? []) this.#deliveries.set(delivery.id, delivery);
    } catch (error) {
      this.#options.onProblem?.('the kept webhooks are not readable JSON; starting without them', error);
      return;
    }
    for (const delivery of this.#deliveries.values()) {
      if (delivery.status === 'pending')
        this.#schedule(delivery, delivery.nextAttemptAt ?? this.#options.now());
    }
  }

  /**
   * Shared only: reloads what every instance registered and delivered, and takes over the pending deliveries
   * whose next attempt is long overdue (their instance is gone). Nothing to do for a service of its own.
   */
  async refresh(): Promise<void> {
    if (!this.#shared || this.#closed) return;
    const { webhooks, deliveries } = await this.#shared.load();
    this.#webhooks = new Map(webhooks.map((webhook) => [webhook.id, webhook]));
    const orphanedBefore = this.#options.now() - (this.#options.timeoutMs + 10_000);
    const next = new Map<string, Delivery>();
    for (const delivery of deliveries) {
      // Ours in flight or waiting on a timer stays the object the timer holds.
      const own = this.#deliveries.get(delivery.id);
      if (own && this.#timers.has(delivery.id)) {
        next.set(delivery.id, own);
        continue;
      }
      next.set(delivery.id, delivery);
      if (delivery.status === 'pending' && (delivery.nextAttemptAt ?? 0) < orphanedBefore)
        this.#schedule(delivery, this.#options.now());
    }
    for (const [id, own] of this.#deliveries) if (this.#timers.has(id) && !next.has(id)) next.set(id, own);
    this.#deliveries = next;
  }

  /**
   * Registers a webhook; the answer holds the secret, shown this once.
   * @throws BarometerValidationError naming the field: a URL that is not http(s) or resolves to a refused address
   */
  async register(request: WebhookRequest): Promise<WebhookRegistration> {
    if (this.#webhooks.size >= MAX_WEBHOOKS) {
      throw invalid('url', request.url, `at most ${MAX_WEBHOOKS} webhooks; delete one first`);
    }
    const problem = await checkWebhookUrl(request.url, this.#options.allowPrivate);
    if (problem) throw invalid('url', request.url, problem);
    const registration: WebhookRegistration = {
      id: `wh_${randomUUID().replaceAll('-', '')}`,
      url: request.url,
      events: [...new Set(request.events)],
      secret: request.secret ?? generateSecret(),
      createdAt: new Date(this.#options.now()).toISOString(),
    };
    this.#webhooks.set(registration.id, registration);
    if (this.#shared) {
      await this.#shared.putWebhook(registration);
      this.#shared.announce();
    } else await this.#save();
    return registration;
  }

  /** How many webhooks are registered. */
  get size(): number {
    return this.#webhooks.size;
  }

  list(): WebhookView[] {
    return [...this.#webhooks.values()].map(({ secret: _secret, ...view }) => view);
  }

  get(id: string): WebhookView | undefined {
    const found = this.#webhooks.get(id);
    if (!found) return undefined;
    const { secret: _secret, ...view } = found;
    return view;
  }

  /** Removes a webhook and drops its pending deliveries. */
  async delete(id: string): Promise<boolean> {
    if (this.#shared) await this.refresh();
    if (!this.#webhooks.delete(id)) return false;
    for (const [key, delivery] of this.#deliveries) {
      if (delivery.webhookId !== id) continue;
      clearTimeout(this.#timers.get(key));
      this.#timers.delete(key);
      this.#deliveries.delete(key);
    }
    if (this.#shared) {
      await this.#shared.removeWebhook(id);
      this.#shared.announce();
    } else await this.#save();
    return true;
  }

  /** A webhook's deliveries, newest first, each with every attempt. */
  deliveries(id: string): Delivery[] | undefined {
    if (!this.#webhooks.has(id)) return undefined;
    return [...this.#deliveries.values()]
      .filter((delivery) => delivery.webhookId === id)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .map((delivery) => ({ ...delivery, attempts: [...delivery.attempts] }));
  }

  /** Sends an event to every webhook subscribed to it. The payload is the JSON body, sent as it is. */
  emit(event: WebhookEvent, payload: Record<string, unknown>): void {
    if (this.#closed) return;
    const body = JSON.stringify(payload);
    const created: Delivery[] = [];
    const dropped: string[] = [];
    for (const webhook of this.#webhooks.values()) {
      if (!webhook.events.includes(event)) continue;
      const delivery: Delivery = {
        id: `msg_${randomUUID().replaceAll('-', '')}`,
        webhookId: webhook.id,
        event,
        body,
        status: 'pending',
        attempts: [],
        nextAttemptAt: this.#options.now(),
        createdAt: new Date(this.#options.now()).toISOString(),
      };
      this.#deliveries.set(delivery.id, delivery);
      created.push(delivery);
      dropped.push(...this.#trim(webhook.id));
      this.#schedule(delivery, delivery.nextAttemptAt as number);
    }
    if (created.length === 0) return;
    if (this.#shared) this.#writeShared(created, dropped);
    else void this.#save();
  }

  #writeShared(deliveries: readonly Delivery[], removed: readonly string[]): Promise<void> {
    const shared = this.#shared as SharedWebhookState;
    this.#saving = this.#saving.then(() =>
      shared.putDeliveries(deliveries, removed).catch((error: unknown) => {
        this.#options.onProblem?.('webhooks: could not write deliveries to the shared store', error);
      }),
    );
    return this.#saving;
  }

  /** Stops the timers and waits for attempts under way and the last write. Pending deliveries stay kept. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#refreshTimer);
    this.#stopShared?.();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#inFlight]);
    if (this.#shared) await this.#saving;
    else await this.#save();
  }

  #schedule(delivery: Delivery, at: number): void {
    if (this.#closed) return;
    clearTimeout(this.#timers.get(delivery.id));
    const timer = setTimeout(
      () => {
        this.#timers.delete(delivery.id);
        const run = this.#attempt(delivery).finally(() => this.#inFlight.delete(run));
        this.#inFlight.add(run);
      },
      Math.max(0, at - this.#options.now()),
    );
    timer.unref?.();
    this.#timers.set(delivery.id, timer);
  }

  async #attempt(delivery: Delivery): Promise<void> {
    const webhook = this.#webhooks.get(delivery.webhookId);
    if (!webhook || delivery.status !== 'pending') return;
    // Shared: one instance makes each attempt, even when two took over the same orphaned delivery.
    if (
      this.#shared &&
      !(await this.#shared
        .claim(delivery.id, delivery.attempts.length + 1, this.#options.timeoutMs * 2 + 10_000)
        .catch(() => false))
    )
      return;
    const timestamp = Math.floor(this.#options.now() / 1000);
    const outcome = await attemptDelivery(
      {
        url: webhook.url,
        body: delivery.body,
        timeoutMs: this.#options.timeoutMs,
        allowPrivate: this.#options.allowPrivate,
        headers: {
          'webhook-id': delivery.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(webhook.secret, delivery.id, timestamp, delivery.body),
        },
      },
      this.#options.now,
    );
    delivery.attempts.push({
      attempt: delivery.attempts.length + 1,
      at: new Date(timestamp * 1000).toISOString(),
      ...outcome,
    });
    const retry = this.#options.retryDelaysMs[delivery.attempts.length - 1];
    if (outcome.ok) {
      delivery.status = 'delivered';
      delivery.nextAttemptAt = null;
    } else if (retry === undefined || this.#closed) {
      delivery.status = this.#closed && retry !== undefined ? 'pending' : 'failed';
      delivery.nextAttemptAt = delivery.status === 'pending' ? this.#options.now() : null;
    } else {
      const delay = Math.round(retry * (1 + 0.2 * this.#options.random()));
      delivery.nextAttemptAt = this.#options.now() + delay;
      this.#schedule(delivery, delivery.nextAttemptAt);
    }
    this.#options.onAttempt?.(
      delivery.status === 'delivered' ? 'delivered' : delivery.status === 'failed' ? 'failed' : 'retried',
    );
    if (this.#shared) await this.#writeShared([delivery], []);
    else await this.#save();
  }

  /** Keeps the newest deliveries of a webhook; a pending one is never dropped. Answers the dropped ids. */
  #trim(webhookId: string): string[] {
    const own = [...this.#deliveries.values()].filter((delivery) => delivery.webhookId === webhookId);
    if (own.length <= LOG_LIMIT) return [];
    own.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const dropped: string[] = [];
    for (const delivery of own.slice(0, own.length - LOG_LIMIT)) {
      if (delivery.status === 'pending') continue;
      this.#deliveries.delete(delivery.id);
      dropped.push(delivery.id);
    }
    return dropped;
  }

  /** Writes the whole state in one transaction: a reader never sees half of it. */
  #save(): Promise<void> {
    const kept = this.#options.kept;
    if (!kept) return Promise.resolve();
    const state: PersistedState = {
      version: 1,
      webhooks: [...this.#webhooks.values()],
      deliveries: [...this.#deliveries.values()],
    };
    try {
      kept.write(JSON.stringify(state));
    } catch (error) {
      this.#options.onProblem?.('could not write the webhooks', error);
    }
    return Promise.resolve();
  }
}
