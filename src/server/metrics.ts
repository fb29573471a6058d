import type { PoolStore } from '../pools/pool-store.js';
import { forecastWindow } from '../quota/windows/window-forecast.js';
import type { ReceiptRow } from '../session/proxy-receipt.js';
import type { MonitorEvent, SessionMonitor } from '../session/session-monitor.js';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from '../vendor/prom-client.js';

/** Latency buckets (seconds): from a cached pressure answer (~0.1 ms) to a large replay upload. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * The service's Prometheus metrics, on a registry of its own (two apps in one process never share counters).
 * Names follow Prometheus conventions: a `barometer_` prefix, `_total` for counters, base units (`_seconds`,
 * `_usd`), every one with HELP and TYPE lines.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  /**
   * What usage updates added since the last scrape, as plain numbers: an update costs a few additions instead
   * of five labelled increments (each hashes its labels), and the counters take the sums when they are read.
   */
  readonly #pending = {
    verdicts: { continue: 0, optimize: 0, compress: 0, terminate: 0 } as Record<string, number>,
    tokens: { uncached: 0, cache_read: 0, cache_write: 0, output: 0 },
    /** Whether an update with usage came since the last scrape (its kinds are counted, zeros included). */
    tokensCounted: false,
    costUsd: 0,
  };
  readonly httpRequests = new Counter({
    name: 'barometer_http_requests_total',
    help: 'HTTP requests answered, by method, route (the route pattern, not the path) and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    collect: () => this.#takePendingRequests(),
  });
  /**
   * Requests answered since the last scrape, by method, route and status, as plain counts that the counter takes
   * when it is read: a request costs an addition instead of a labelled increment (which hashes and validates its
   * labels).
   */
  readonly #pendingRequests: Array<{
    labels: { method: string; route: string; status: string };
    count: number;
  }> = [];
  /** One recorder per method and route, made once (see {@link requestRecorder}). */
  readonly #recorders = new Map<string, RequestRecorder>();
  readonly httpDuration = new Histogram({
    name: 'barometer_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly verdicts = new Counter({
    name: 'barometer_verdicts_total',
    help: 'Session verdicts given on usage updates, by action.',
    labelNames: ['action'] as const,
    registers: [this.registry],
    collect: () => this.#takePending(),
  });
  readonly usageTokens = new Counter({
    name: 'barometer_usage_tokens_total',
    help: 'Tokens reported by usage updates, by kind: uncached input, cache_read, cache_write, output.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
    collect: () => this.#takePending(),
  });
  readonly cost = new Counter({
    name: 'barometer_cost_usd_total',
    help: "US dollars spent by the sessions' calls at their models' prices (calls without a known price excluded).",
    registers: [this.registry],
    collect: () => this.#takePending(),
  });
  readonly compactions = new Counter({
    name: 'barometer_compactions_total',
    help: 'Compactions recorded in sessions, by trigger (auto, manual, barometer, anthropic-server, …).',
    labelNames: ['trigger'] as const,
    registers: [this.registry],
  });
  readonly evictions = new Counter({
    name: 'barometer_evicted_items_total',
    help: 'History items evicted to the archive by compactions in eviction mode.',
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'barometer_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered, retried (failed, another attempt scheduled), failed (given up).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly poolReservations = new Counter({
    name: 'barometer_pool_reservations_total',
    help: 'Pool reservations answered by this instance, by outcome: admitted, refused, settled, released.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly poolRefusals = new Counter({
    name: 'barometer_pool_refusals_total',
    help: 'Pool reservations refused by this instance, by pool and reason (budget_reserved, budget_exhausted, tokens_per_minute, …).',
    labelNames: ['pool', 'reason'] as const,
    registers: [this.registry],
  });

  readonly proxyRequests = new Counter({
    name: 'barometer_proxy_requests_total',
    help: 'Requests the proxy forwarded, by route and outcome: passed (as sent), edited (tombstones applied), held (a wait verdict), unreachable (the provider could not be reached).',
    labelNames: ['route', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly proxyPauses = new Counter({
    name: 'barometer_proxy_pauses_total',
    help: 'Times the proxy stopped acting on a session because recording it failed, by stage: session (creating it), record (recording an answer). Its requests then go upstream with no new edits until recording works again.',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });
  readonly proxyFailures = new Counter({
    name: 'barometer_proxy_failures_total',
    help: 'Failures inside the proxy, by stage (session, edit, analyze, record, persist); each request concerned went upstream with no new edit.',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly proxyWindowLevers = new Counter({
    name: 'barometer_proxy_window_levers_total',
    help: "Sub-agents' requests the window policy acted on while the 5-hour window bound (--window-policy), by lever: thinking (sent with the lowered thinking budget), hold (held before going upstream).",
    labelNames: ['lever'] as const,
    registers: [this.registry],
  });
  readonly proxyWindowHeldSeconds = new Counter({
    name: 'barometer_proxy_window_held_seconds_total',
    help: "Seconds the window policy's hold lever held sub-agents' requests, in all (each hold at most the proxy's longest hold).",
    registers: [this.registry],
  });

  readonly proxyUpstreamFailures = new Counter({
    name: 'barometer_proxy_upstream_failures_total',
    help: "Upstream requests or answers that failed, by reason: reset, closed (before the answer was whole), short_body (fewer bytes than its content-length), timeout, malformed (not HTTP), unreachable; the agent's answer ended the same way (a 502 before the provider's headers).",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly receiptCalls = new Counter({
    name: 'barometer_proxy_receipt_calls_total',
    help: "Requests the proxy forwarded acting that have a receipt, by outcome: priced, unpriced (no price known for the model: tokens only), departed (the provider's cache reads differ from the cache model's by more than 5% of the prompt).",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly receiptCost = new Counter({
    name: 'barometer_proxy_receipt_cost_usd_total',
    help: "US dollars of the proxy's priced receipts, by side: would_have (the request as the agent sent it, priced by the provider's cache model), billed (by the provider's usage). would_have minus billed is what barometer saved, net of the cache writes its edits caused.",
    labelNames: ['side'] as const,
    registers: [this.registry],
  });
  readonly receiptPromptTokens = new Counter({
    name: 'barometer_proxy_receipt_prompt_tokens_total',
    help: "Prompt tokens of the proxy's receipts, by side: would_have (the agent's request, in the provider's tokens), sent (the provider's usage).",
    labelNames: ['side'] as const,
    registers: [this.registry],
  });

  constructor(monitor: SessionMonitor, now: () => number = Date.now) {
    collectDefaultMetrics({ register: this.registry, prefix: 'barometer_' });
    this.#watchWindows(monitor, now);
    new Gauge({
      name: 'barometer_sessions',
      help: 'Live sessions, by context health level.',
      labelNames: ['health'] as const,
      registers: [this.registry],
      async collect() {
        const counts: Record<string, number> = { healthy: 0, caution: 0, critical: 0, unknown: 0 };
        for await (const page of monitor.summaries())
          for (const session of page) counts[session.health.level] = (counts[session.health.level] ?? 0) + 1;
        for (const [health, count] of Object.entries(counts)) this.set({ health }, count);
      },
    });
  }

  /**
   * Gauges of the subscription windows as the latest answer of any session left them (`monitor.accountWindows()`),
   * each forecast at the scrape: used share, burn, minutes to the reset and to running out, whether it binds. A window
   * whose reset has passed is left out until an answer reports its new period.
   */
  #watchWindows(monitor: SessionMonitor, now: () => number): void {
    const forecasts = () => {
      const at = now();
      return monitor
        .accountWindows()
        .filter((track) => track.resetsAt === null || track.resetsAt > at)
        .map((track) => forecastWindow(track, Math.max(at, track.at)));
    };
    const gauge = (
      name: string,
      help: string,
      value: (forecast: ReturnType<typeof forecasts>[number]) => number | null,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ['window', 'label', 'source'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const forecast of forecasts()) {
            const figure = value(forecast);
            if (figure !== null)
              this.set({ window: forecast.id, label: forecast.label, source: forecast.source }, figure);
          }
        },
      });
    gauge(
      'barometer_window_used_percent',
      'Share of each subscription window used (0-100), as the provider last stated it.',
      (forecast) => forecast.usedPercent,
    );
    gauge(
      'barometer_window_burn_percent_per_hour',
      "Each subscription window's burn: percentage points per hour at the measured pace (absent when not measured).",
      (forecast) => forecast.burnPercentPerHour,
    );
    gauge(
      'barometer_window_minutes_to_reset',
      'Minutes until each subscription window resets (absent when unknown).',
      (forecast) => forecast.minutesToReset,
    );
    gauge(
      'barometer_window_minutes_remaining',
      'Minutes until each subscription window runs out at the measured pace (absent when it is not depleting).',
      (forecast) => forecast.minutesRemaining,
    );
    gauge(
      'barometer_window_binds',
      'Whether each subscription window runs out before it resets at the measured pace (1) or lasts (0).',
      (forecast) => (forecast.bindsBeforeReset ? 1 : 0),
    );
  }

  /**
   * Lets go of the metrics: the default metrics' GC observer (prom-client never disconnects it) holds this
   * registry for the life of the process, and through the sessions gauge the whole monitor, so a closed service
   * stayed in memory (100,000 sessions kept ~450 MB after close, measured by `npm run bench -- scale`).
   */
  close(): void {
    this.registry.clear();
  }

  /** Gauges of every pool's tokens (used, reserved, budget), read from the store at each scrape. */
  watchPools(pools: PoolStore): void {
    new Gauge({
      name: 'barometer_pool_tokens',
      help: "Pools' tokens by kind: used (settled), reserved (outstanding), budget (absent without one).",
      labelNames: ['pool', 'kind'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const pool of await pools.list()) {
          this.set({ pool: pool.id, kind: 'used' }, pool.used);
          this.set({ pool: pool.id, kind: 'reserved' }, pool.reserved);
          if (pool.tokenBudget !== null) this.set({ pool: pool.id, kind: 'budget' }, pool.tokenBudget);
        }
      },
    });
  }

  /**
   * A gauge of the proxy's sessions (seen since the start) by state: acting (edited by the eviction policy),
   * observed (forwarded as sent), paused (passed through with no new edits: recording them fails).
   */
  watchProxy(proxy: { standing(): Record<'acting' | 'observed' | 'paused', number> }): void {
    new Gauge({
      name: 'barometer_proxy_sessions',
      help: "The proxy's sessions by state: acting (edited by the eviction policy), observed (forwarded as sent), paused (passed through with no new edits while recording them fails).",
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        for (const [state, count] of Object.entries(proxy.standing())) this.set({ state }, count);
      },
    });
  }

  /**
   * What counts the requests answered on one route: made once per method and route (the app makes one for each
   * route it registers, and one per method for requests that match none), so that a request builds no label
   * object and no key string, and reads no `routeOptions` (decision 017). Durations go to prom-client's own
   * histogram through the route's child (decision 020).
   */
  requestRecorder(method: string, route: string): RequestRecorder {
    const key = `${method} ${route}`;
    const known = this.#recorders.get(key);
    if (known) return known;
    // The route's child of the histogram, made once: it keeps the labels, so a request passes none.
    const duration = this.httpDuration.labels({ method, route });
    const byStatus = new Map<number, { count: number }>();
    const pendingRequests = this.#pendingRequests;
    const recorder: RequestRecorder = (statusCode, seconds) => {
      let pending = byStatus.get(statusCode);
      if (pending === undefined) {
        const entry = { labels: { method, route, status: String(statusCode) }, count: 0 };
        pendingRequests.push(entry);
        byStatus.set(statusCode, entry);
        pending = entry;
      }
      pending.count++;
      // prom-client throws on a duration that is not a finite number; such a request is counted without one.
      if (Number.isFinite(seconds)) duration.observe(seconds);
    };
    this.#recorders.set(key, recorder);
    return recorder;
  }

  /** Counts one answered request and its duration. */
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void {
    this.requestRecorder(method, route)(statusCode, seconds);
  }

  #takePendingRequests(): void {
    for (const pending of this.#pendingRequests) {
      if (pending.count === 0) continue;
      this.httpRequests.inc(pending.labels, pending.count);
      pending.count = 0;
    }
  }

  /** One receipt of the proxy's: its call, its two costs and its two prompts. */
  #countReceipt(receipt: ReceiptRow): void {
    const priced = receipt.wouldHaveCostUsd !== null && receipt.costUsd !== null;
    this.receiptCalls.inc({ outcome: priced ? 'priced' : 'unpriced' });
    if (receipt.departure !== null) this.receiptCalls.inc({ outcome: 'departed' });
    if (priced) {
      this.receiptCost.inc({ side: 'would_have' }, receipt.wouldHaveCostUsd ?? 0);
      this.receiptCost.inc({ side: 'billed' }, receipt.costUsd ?? 0);
    }
    this.receiptPromptTokens.inc({ side: 'would_have' }, receipt.wouldHavePromptTokens);
    this.receiptPromptTokens.inc({ side: 'sent' }, receipt.promptTokens);
  }

  /** Counts what a monitor event tells: verdicts, tokens by kind, cost, compactions, evictions, receipts. */
  observe(event: MonitorEvent): void {
    if (event.type === 'compacted') {
      if (event.evictedItems > 0) this.evictions.inc(event.evictedItems);
      return;
    }
    if (event.type !== 'changed') return;
    if (event.receipt) this.#countReceipt(event.receipt);
    for (const change of event.events) {
      if (change.type === 'compaction') this.compactions.inc({ trigger: change.trigger });
    }
    const usage = event.usage;
    if (!usage) return;
    const pending = this.#pending;
    const verdict = event.state.lastVerdict;
    if (verdict) pending.verdicts[verdict.action] = (pending.verdicts[verdict.action] ?? 0) + 1;
    if (usage.available) {
      const tokens = pending.tokens;
      pending.tokensCounted = true;
      tokens.uncached += Math.max(0, usage.promptTokens - usage.cachedReadTokens - usage.cachedWriteTokens);
      tokens.cache_read += usage.cachedReadTokens;
      tokens.cache_write += usage.cachedWriteTokens;
      tokens.output += usage.completionTokens;
    }
    if (typeof event.costUsd === 'number') pending.costUsd += event.costUsd;
  }

  /**
   * Hands what usage updates added to the counters (when any of them is read). A label appears once something
   * was counted under it, as with increments made one by one.
   */
  #takePending(): void {
    const pending = this.#pending;
    for (const [action, count] of Object.entries(pending.verdicts)) {
      if (count === 0) continue;
      this.verdicts.inc({ action }, count);
      pending.verdicts[action] = 0;
    }
    if (pending.tokensCounted) {
      for (const [kind, count] of Object.entries(pending.tokens)) this.usageTokens.inc({ kind }, count);
      pending.tokens = { uncached: 0, cache_read: 0, cache_write: 0, output: 0 };
      pending.tokensCounted = false;
    }
    if (pending.costUsd !== 0) {
      this.cost.inc(pending.costUsd);
      pending.costUsd = 0;
    }
  }
}

/** Counts one answered request: its status code and how long it took, in seconds. */
export type RequestRecorder = (statusCode: number, seconds: number) => void;
