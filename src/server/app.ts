import { createServer } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
  type onResponseHookHandler,
} from 'fastify';
import type { Redis } from 'ioredis';
import type { Summarizer } from '../compaction/compact-history.js';
import { HealthzAnswerSchema, OpenApiDocumentSchema } from '../contract/service.js';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { type ApiRoute, registerRoutes } from '../http/route-table.js';
import { MAX_ID_LENGTH } from '../ids/id-schema.js';
import type { BarometerConfig } from '../models/barometer-config.js';
import { poolRows } from '../pools/kept-pools.js';
import { MemoryPoolStore } from '../pools/memory-pool-store.js';
import type { PoolStore } from '../pools/pool-store.js';
import { RedisPoolStore } from '../pools/redis-pool-store.js';
import { type ProxyService, proxyService } from '../proxy/proxy-service.js';
import { defaultLogRoots, type LogRoot } from '../report/discover-logs.js';
import {
  dataDirPaths,
  openSessionMonitor,
  openSharedSessionMonitor,
  sweepIdleSessions,
} from '../session/open-session-monitor.js';
import type { Receipt } from '../session/proxy-receipt.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import { ArchiveStore } from '../store/archive.js';
import { ArtifactRegistry } from '../store/artifact-registry.js';
import type { EventBus } from '../store/event-bus.js';
import { ensureOwnerOnlyFolder } from '../store/owner-only.js';
import { connectRedis } from '../store/redis-connection.js';
import type { StoreProblem } from '../store/sqlite-state-store.js';
import { StateDatabase } from '../store/state-database.js';
import { registerAccess, SCOPE_GRANTS } from './access.js';
import { answerClosing, buildClientErrorHandler } from './client-error-handler.js';
import { ConcurrencyLimiter } from './concurrency-limiter.js';
import { registerDashboard } from './dashboard.js';
import { buildErrorHandler, type RouteBodyRules } from './error-handler.js';
import { EventHub } from './event-hub.js';
import { allowedHostnames, registerHostGuard } from './host-guard.js';
import { jsonBodyParser } from './json-body.js';
import { keptProxySessions, keptWebhooks } from './kept-state.js';
import { logFileDestination } from './log-file.js';
import { mcpRoutes } from './mcp-route.js';
import { ServiceMetrics } from './metrics.js';
import { buildNotFoundHandler } from './not-found-handler.js';
import { buildOpenApiDocument, pressureQueryParameters } from './openapi.js';
import { type ResolvedServerOptions, type ServerOptions, ServerOptionsSchema } from './options.js';
import { registerConcurrencyLimit, registerRateLimits } from './request-limits.js';
import { disciplineRoutes } from './routes/discipline.js';
import { poolRoutes } from './routes/pools.js';
import { pressureRoutes } from './routes/pressure.js';
import { REPLAY_CONTENT_TYPES, replayRoutes } from './routes/replay.js';
import { reportRoutes } from './routes/report.js';
import { sessionRoutes } from './routes/sessions.js';
import { webhookRoutes } from './routes/webhooks.js';
import { NoticeGate } from './webhooks/notice-gate.js';
import { RedisWebhookState } from './webhooks/redis-webhook-state.js';
import { webhooksOf } from './webhooks/session-webhooks.js';
import { WebhookService } from './webhooks/webhook-service.js';

/** The log line of each kind of problem with a session read back, or the import of an older release's files. */
const STORE_PROBLEMS: Readonly<Record<StoreProblem['action'], string>> = {
  load: 'session file not imported: it does not read back (it stays in the imported folder)',
  skip: 'session timeline lines not imported (the session is)',
  repair: 'session repaired on load',
  import: 'sessions imported into the database',
};

/** What the app reads from outside, injectable for tests. */
export interface AppDependencies {
  /** The clock, in epoch milliseconds. */
  now?: () => number;
  /** A limiter to share or inspect; built from the options when absent. */
  concurrencyLimiter?: ConcurrencyLimiter;
  /** The session monitor; one over the data dir's database (`<dataDir>/barometer.db`) by default. */
  monitor?: SessionMonitor;
  /** A loaded config file (`barometer.config.json`/`.yaml`) whose model entries override the registry. */
  config?: BarometerConfig;
  /** Writes compaction recaps (e.g. `--summarizer-command`); on failure the deterministic recap is used. */
  summarizer?: Summarizer;
  /** A connected Redis client to use instead of connecting to `redisUrl` (the caller closes it). */
  redis?: Redis;
  /** Shared budgets (`/api/v1/pools`): a RedisPoolStore to share them across instances. @default a MemoryPoolStore kept in the database */
  pools?: PoolStore;
  /** The folders `GET /api/v1/report` reads. @default the agents' default places for this process's user */
  reportRoots?: readonly LogRoot[];
}

declare module 'fastify' {
  interface FastifyRequest {
    barometerAgent?: string;
  }
  interface FastifyContextConfig {
    /** Set on routes that run an evaluation: they count toward the per-agent concurrency limit. */
    evaluation?: boolean;
  }
  interface FastifyInstance {
    /** The routes of the API, as registered and as documented. */
    barometerRoutes: readonly ApiRoute[];
    barometerMonitor: SessionMonitor;
    barometerEvents: EventHub;
    barometerWebhooks: WebhookService;
    /** The shared Redis connection, when the service runs on Redis. */
    barometerRedis: Redis | null;
    barometerPools: PoolStore;
    /** Every route Fastify registered, as an onRoute hook saw it (the route-table test reads it). */
    barometerRegistered: Array<{ method: string; url: string }>;
  }
}

/**
 * Builds the barometer HTTP service (not listening yet: call `listen`, or `inject` in tests).
 * @throws BarometerValidationError when an option is invalid.
 */
export async function buildApp(
  options: ServerOptions = {},
  dependencies: AppDependencies = {},
): Promise<FastifyInstance> {
  const parsed = parseWith(ServerOptionsSchema, options);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'server options');
  const settings: ResolvedServerOptions = parsed.value;
  const now = dependencies.now ?? Date.now;
  const limiter = dependencies.concurrencyLimiter ?? new ConcurrencyLimiter(settings.maxConcurrentPerAgent);
  const dataDir = dataDirPaths(settings.dataDir);
  // Archives hold copies of what agents read: the data folder is the user's alone (0700) when barometer makes it.
  ensureOwnerOnlyFolder(dataDir.root);
  // The data dir's database: sessions and pools (unless on Redis), webhooks, the proxy's edits (decision 095).
  const database = StateDatabase.open(settings.persistSessions ? dataDir.database : ':memory:');
  const archive = new ArchiveStore({ root: dataDir.archives });
  const artifacts = new ArtifactRegistry({ root: dataDir.artifacts });
  const parts: AppParts = { settings, dependencies, now, dataDir, database, archive };

  // The replay route reads log text of any of its types up to its own limit; every other route reads JSON.
  const textRoutes = new Set<string>();
  const { app, handleError } = createFastify(settings, textRoutes);
  registerGuards(app, settings);
  const registered = trackRegisteredRoutes(app);
  const stores = await openStores(app, parts);
  const { monitor, pools, redis } = stores;
  const { metrics, stopMetrics } = registerMetrics(app, monitor, now);
  const { webhooks, stopWebhooks } = await startWebhooks(app, parts, { ...stores, metrics });
  const notices = new NoticeGate({ ...(redis ? { redis } : {}), prefix: settings.redisPrefix, now });

  app.decorate('barometerPools', pools);
  metrics.watchPools(pools);

  const shutdown = registerShutdown(app, parts, { ...stores, metrics, stopMetrics, webhooks, stopWebhooks });

  app.setErrorHandler(handleError);
  app.setNotFoundHandler(buildNotFoundHandler(registered));

  const routes = apiRoutes(app, parts, {
    artifacts,
    monitor,
    hub: stores.hub,
    pools,
    webhooks,
    metrics,
    notices,
  });
  const proxy = settings.proxy ? proxyPart(app, parts, settings.proxy, { monitor, metrics }) : undefined;
  if (proxy) {
    shutdown.settleProxy = proxy.settle;
    routes.push(...proxy.routes);
  }
  routes.push(...rootRoutes(metrics, routes));
  for (const route of routes) if (route.scope === 'text') textRoutes.add(route.url);
  app.decorate('barometerRoutes', routes);
  registerRoutes(app, routes, 'root');

  await registerApi(app, settings, limiter, redis, routes);
  if (proxy) await app.register(proxy.plugin);
  if (settings.dashboard) await registerDashboard(app);

  return app;
}

/** What buildApp's steps share: the checked options, the caller's dependencies, the clock and the data folder's stores. */
interface AppParts {
  settings: ResolvedServerOptions;
  dependencies: AppDependencies;
  now: () => number;
  dataDir: ReturnType<typeof dataDirPaths>;
  database: StateDatabase;
  archive: ArchiveStore;
}

/** The Fastify instance with its logger, server factory, limits and error handlers, answering 503 once closing. */
function createFastify(
  settings: ResolvedServerOptions,
  textRoutes: ReadonlySet<string>,
): { app: FastifyInstance; handleError: ReturnType<typeof buildErrorHandler> } {
  const requestLogging = ['debug', 'trace'].includes(settings.logLevel);
  const rulesFor = (request: FastifyRequest): RouteBodyRules =>
    textRoutes.has(request.routeOptions.url ?? '')
      ? { contentTypes: REPLAY_CONTENT_TYPES, bodyLimitBytes: settings.replayBodyLimitBytes }
      : { contentTypes: ['application/json'], bodyLimitBytes: settings.bodyLimitBytes };
  const handleError = buildErrorHandler(rulesFor);
  // Set once the app starts closing: requests still arriving get a 503 with a catalogued code.
  let closing = false;
  const app: FastifyInstance = Fastify({
    logger:
      settings.logLevel === 'silent'
        ? false
        : {
            level: settings.logLevel,
            ...(settings.logFile === undefined ? {} : { stream: logFileDestination(settings.logFile) }),
          },
    // Per-request log lines cost a third of the throughput; they appear at debug level only.
    logController: new LogController({ disableRequestLogging: !requestLogging }),
    // Without request logging, a child logger per request buys nothing but an allocation: errors are logged
    // with the request id in their own fields instead.
    ...(requestLogging ? {} : { childLoggerFactory: (logger: FastifyBaseLogger) => logger }),
    bodyLimit: settings.bodyLimitBytes,
    // A request whose headers and body have not all arrived in time is answered 408 and its socket closed.
    // Node checks that limit every `connectionsCheckingInterval` (30 s by default): checked every second here.
    serverFactory: (handler) =>
      createServer(
        {
          requestTimeout: settings.requestTimeoutMs,
          headersTimeout:
            settings.requestTimeoutMs === 0 ? 60_000 : Math.min(60_000, settings.requestTimeoutMs),
          connectionsCheckingInterval: Math.min(1000, Math.max(100, settings.requestTimeoutMs / 4 || 1000)),
        },
        // Fastify's own 503 while closing (return503OnClosing) has no code: this one answers first.
        (request, response) => (closing ? answerClosing(response) : handler(request, response)),
      ),
    // Ids are up to 128 characters: every route must accept every id that creation accepts.
    routerOptions: { maxParamLength: MAX_ID_LENGTH * 2 },
    return503OnClosing: false,
    forceCloseConnections: true,
    // A URL that does not decode and an over-long path parameter are answered by the router itself, with
    // Fastify's codes, unless they are handed to the error handler.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
    // Timeouts (408), header overflow (431) and bytes that are not HTTP (400), before any route runs.
    clientErrorHandler: buildClientErrorHandler(settings.requestTimeoutMs, () => app.log),
  });
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  return { app, handleError };
}

/** The host guard, then API keys and CORS: hooks that run before any route's. */
function registerGuards(app: FastifyInstance, settings: ResolvedServerOptions): void {
  // Host and Origin before anything else, on every route (those registered later too): DNS rebinding and
  // cross-site requests from a web page are refused before a key is checked or a body read.
  registerHostGuard(app, {
    hostnames: allowedHostnames(settings.host, [...settings.allowedHosts, ...settings.mcpAllowedHosts]),
    corsOrigins: new Set(settings.corsOrigins),
  });
  // API keys and CORS next: their hooks run before any route's.
  registerAccess(app, {
    keys: settings.apiKeys.map((entry) => ({
      key: entry.key,
      scopes: [...new Set(entry.scopes.flatMap((scope) => SCOPE_GRANTS[scope]))],
    })),
    corsOrigins: settings.corsOrigins,
  });
}

/** Every route Fastify registers, recorded by an onRoute hook and decorated as `barometerRegistered`. */
function trackRegisteredRoutes(app: FastifyInstance): Array<{ method: string; url: string }> {
  const registered: Array<{ method: string; url: string }> = [];
  app.decorate('barometerRegistered', registered);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) registered.push({ method, url: route.url });
  });
  return registered;
}

/** The stores the service keeps its state in: Redis when given, the pools, the session monitor and its event hub. */
interface AppStores {
  redis: Redis | undefined;
  /** Whether the app opened the Redis connection itself (and so closes it). */
  ownRedis: boolean;
  pools: PoolStore;
  monitor: SessionMonitor;
  bus: EventBus | undefined;
  hub: EventHub;
}

/** Opens the stores (Redis first, then pools, the session monitor and its hub) and decorates the app with them. */
async function openStores(app: FastifyInstance, parts: AppParts): Promise<AppStores> {
  const { settings, dependencies, now, dataDir, database, archive } = parts;
  // On Redis (--redis), sessions, their events, pools, webhooks and rate-limit counters are shared by every
  // instance on it; the connection is opened first, so that an unreachable Redis stops the start with its reason.
  const ownRedis = dependencies.redis === undefined && settings.redisUrl !== undefined;
  const redis =
    dependencies.redis ??
    (settings.redisUrl === undefined ? undefined : await connectRedis(settings.redisUrl));
  // null, never undefined: a Fastify decoration whose value is undefined made every request about 30% slower
  // (the pressure route against bare node:http went from 0.86× to 0.64×, bench/http.ts).
  app.decorate('barometerRedis', redis ?? null);
  // On Redis every reservation is one script on the shared pool: no over-commit across instances.
  const pools =
    dependencies.pools ??
    (redis
      ? new RedisPoolStore(redis, { keyPrefix: settings.redisPrefix })
      : new MemoryPoolStore({ now, kept: poolRows(database) }));
  const monitorOptions = {
    archive,
    // A session with a poolId reads its pool's standing before each update: the pool is one of its models.
    pools,
    now,
    sessionTtlMs: settings.sessionTtlSeconds * 1000,
    clockSkewMs: settings.clockSkewSeconds * 1000,
    ...(dependencies.config ? { config: dependencies.config } : {}),
    ...(dependencies.summarizer ? { summarizer: dependencies.summarizer } : {}),
  };
  let bus: EventBus | undefined;
  let monitor: SessionMonitor;
  if (dependencies.monitor) monitor = dependencies.monitor;
  else if (redis) {
    const shared = await openSharedSessionMonitor({
      ...monitorOptions,
      redis,
      prefix: settings.redisPrefix,
      maxSessions: settings.maxSessions,
      onProblem: (message, error) => app.log.warn({ err: error }, message),
    });
    monitor = shared.monitor;
    bus = shared.bus;
  } else {
    monitor = await openSessionMonitor({
      ...monitorOptions,
      dataDir: dataDir.root,
      database,
      persistSessions: settings.persistSessions,
      maxSessions: settings.maxSessions,
      onProblem: (problem) =>
        problem.action === 'import'
          ? app.log.info(problem, STORE_PROBLEMS.import)
          : app.log.warn(problem, STORE_PROBLEMS[problem.action]),
    });
  }
  const hub = new EventHub(monitor, {
    maxStreams: settings.maxEventStreams,
    flushMs: settings.eventFlushMs,
    maxBufferedBytes: settings.maxEventBufferBytes,
  });
  app.decorate('barometerMonitor', monitor);
  app.decorate('barometerEvents', hub);
  return { redis, ownRedis, pools, monitor, bus, hub };
}

/** The service's Prometheus metrics, fed by the monitor's events and by a per-route request counter. */
function registerMetrics(
  app: FastifyInstance,
  monitor: SessionMonitor,
  now: () => number,
): { metrics: ServiceMetrics; stopMetrics: () => void } {
  // Prometheus metrics on a registry of this app's own; the monitor's events feed them.
  const metrics = new ServiceMetrics(monitor, now);
  const stopMetrics = monitor.subscribe((event) => metrics.observe(event));
  // Each route counts its own requests with a recorder made when it is registered (reading `routeOptions` on every
  // request builds an object of a dozen fields); a request that matched no route is counted here.
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    const recorders = new Map(methods.map((method) => [method, metrics.requestRecorder(method, route.url)]));
    const only = methods.length === 1 ? recorders.get(methods[0] as string) : undefined;
    const count: onResponseHookHandler = (request, reply, done) => {
      (only ?? recorders.get(request.method) ?? metrics.requestRecorder(request.method, route.url))(
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
      done();
    };
    route.onResponse = route.onResponse === undefined ? [count] : [...[route.onResponse].flat(), count];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404)
      metrics.observeRequest(request.method, 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  return { metrics, stopMetrics };
}

/** The webhook service started, fed by the monitor's session changes, and decorated as `barometerWebhooks`. */
async function startWebhooks(
  app: FastifyInstance,
  { settings, dataDir, database }: AppParts,
  { redis, bus, monitor, metrics }: AppStores & { metrics: ServiceMetrics },
): Promise<{ webhooks: WebhookService; stopWebhooks: () => void }> {
  // Webhooks: registrations and pending deliveries kept in the database; session changes become events.
  const webhooks = new WebhookService({
    onAttempt: (outcome) => metrics.webhookDeliveries.inc({ outcome }),
    ...(redis && bus
      ? { shared: new RedisWebhookState(redis, bus, settings.redisPrefix) }
      : settings.persistSessions
        ? { kept: keptWebhooks(database, join(dataDir.root, 'webhooks', 'webhooks.json'), app.log) }
        : {}),
    retryDelaysMs: settings.webhookRetryDelaysMs,
    timeoutMs: settings.webhookTimeoutMs,
    allowPrivate: settings.allowPrivateWebhooks,
    onProblem: (message, error) => app.log.warn({ err: error }, message),
  });
  await webhooks.start();
  const stopWebhooks = monitor.subscribe((event) => {
    // Nothing to build for each session change while no webhook is registered.
    if (webhooks.size === 0) return;
    for (const message of webhooksOf(event)) webhooks.emit(message.event, message.payload);
  });
  app.decorate('barometerWebhooks', webhooks);
  return { webhooks, stopWebhooks };
}

/** What the shutdown waits for that is set up later: the proxy's last answers and edits, when there is a proxy. */
interface Shutdown {
  settleProxy: () => Promise<void>;
}

/** The idle-session sweep, and the onClose hook that stops and closes everything in order; returns what it awaits. */
function registerShutdown(
  app: FastifyInstance,
  { settings, dependencies, database }: AppParts,
  parts: AppStores & {
    metrics: ServiceMetrics;
    stopMetrics: () => void;
    webhooks: WebhookService;
    stopWebhooks: () => void;
  },
): Shutdown {
  const { redis, ownRedis, monitor, bus, hub, metrics, stopMetrics, webhooks, stopWebhooks } = parts;
  // Idle sessions expire on a timer, and each expiry is logged.
  const stopSweeping = sweepIdleSessions(monitor, settings.sessionTtlSeconds * 1000, {
    onExpired: (ids) => {
      for (const id of ids)
        app.log.info(
          { sessionId: id, ttlSeconds: settings.sessionTtlSeconds },
          'session expired: idle longer than its TTL',
        );
    },
    onError: (error) => app.log.error({ err: error }, 'session sweep failed'),
  });
  // The proxy's last answers recorded and their edits saved (for the next run) before the monitor closes.
  const shutdown: Shutdown = { settleProxy: async () => {} };
  app.addHook('onClose', async () => {
    await shutdown.settleProxy();
    stopSweeping();
    hub.close();
    stopWebhooks();
    stopMetrics();
    metrics.close();
    await webhooks.close();
    // The monitor given by a caller is the caller's to close.
    if (!dependencies.monitor) await monitor.close();
    database.close();
    await bus?.close();
    if (ownRedis) await redis?.quit().catch(() => redis.disconnect());
  });
  return shutdown;
}

/** The API's routes, group by group, in the order they are registered and documented. */
function apiRoutes(
  app: FastifyInstance,
  { settings, dependencies, now, dataDir, archive }: AppParts,
  parts: {
    artifacts: ArtifactRegistry;
    monitor: SessionMonitor;
    hub: EventHub;
    pools: PoolStore;
    webhooks: WebhookService;
    metrics: ServiceMetrics;
    notices: NoticeGate;
  },
): ApiRoute[] {
  const { artifacts, monitor, hub, pools, webhooks, metrics, notices } = parts;
  return [
    ...pressureRoutes({ now }, pressureQueryParameters()),
    ...sessionRoutes(monitor, hub),
    ...replayRoutes(settings.replayBodyLimitBytes, dataDir.archives),
    ...reportRoutes({
      roots: dependencies.reportRoots ?? defaultLogRoots(process.env, homedir()),
      dataDir: dataDir.root,
      ...(dependencies.config ? { config: dependencies.config } : {}),
      receiptsOf: async (sessions) => {
        const found = new Map<string, Receipt>();
        for (const id of new Set(sessions)) {
          const receipt = await monitor.receipt(id);
          if (receipt) found.set(id, receipt);
        }
        return found;
      },
    }),
    ...disciplineRoutes({ archive, artifacts, monitor }),
    ...webhookRoutes(webhooks),
    ...poolRoutes(pools, {
      onDecision: (outcome) => metrics.poolReservations.inc({ outcome }),
      onRefusal: (pool, reason, detail) => {
        metrics.poolRefusals.inc({ pool, reason });
        // pool_exhausted: a reservation was refused; one event per pool per minute over the service.
        if (webhooks.size === 0) return;
        notices.admit(`pool_exhausted:${pool}`).then(
          (send) => {
            if (!send) return;
            webhooks.emit('pool_exhausted', {
              timestamp: new Date(now()).toISOString(),
              event: 'pool_exhausted',
              poolId: pool,
              priority: detail.priority,
              agentId: detail.agentId,
              ...detail.refusal,
            });
          },
          (error: unknown) => app.log.warn({ err: error }, 'pool_exhausted: the notice could not be sent'),
        );
      },
    }),
    ...mcpRoutes({
      monitor,
      archive,
      now,
    }),
  ];
}

/** The proxy (src/proxy registers its own routes), wired to the service's monitor, archive, database and metrics. */
function proxyPart(
  app: FastifyInstance,
  { now, dataDir, database, archive }: AppParts,
  options: NonNullable<ResolvedServerOptions['proxy']>,
  { monitor, metrics }: { monitor: SessionMonitor; metrics: ServiceMetrics },
): ProxyService {
  return proxyService({
    options,
    monitor,
    archive,
    now,
    kept: keptProxySessions(database, join(dataDir.root, 'proxy'), app.log),
    log: app.log,
    metrics: {
      request: (route, outcome) => metrics.proxyRequests.inc({ route, outcome }),
      failure: (stage) => metrics.proxyFailures.inc({ stage }),
      upstreamFailure: (reason) => metrics.proxyUpstreamFailures.inc({ reason }),
      windowLever: (lever, heldMs) => {
        metrics.proxyWindowLevers.inc({ lever });
        if (heldMs > 0) metrics.proxyWindowHeldSeconds.inc(heldMs / 1000);
      },
      pause: (stage) => metrics.proxyPauses.inc({ stage }),
      watch: (sessions) => metrics.watchProxy(sessions),
    },
  });
}

/** The root routes: liveness, the Prometheus metrics and the OpenAPI document of `routes` (built on first read). */
function rootRoutes(metrics: ServiceMetrics, routes: readonly ApiRoute[]): ApiRoute[] {
  const openApi: { value?: Record<string, unknown> } = {};
  return [
    {
      method: 'GET',
      url: '/healthz',
      scope: 'root',
      summary: 'Liveness',
      responses: { '200': { description: '{ "status": "ok" }', schema: HealthzAnswerSchema } },
      handler: async () => ({ status: 'ok' }),
    },
    {
      method: 'GET',
      url: '/metrics',
      scope: 'root',
      summary: 'Prometheus metrics (text exposition format)',
      responses: {
        '200': { description: 'Metrics in the Prometheus text format', contentType: 'text/plain' },
      },
      handler: async (_request, reply) => {
        const text = await metrics.registry.metrics();
        return reply.type(metrics.registry.contentType).send(text);
      },
    },
    {
      method: 'GET',
      url: '/openapi.json',
      scope: 'root',
      summary: 'This document',
      responses: {
        '200': { description: 'The OpenAPI 3.0 document of every route', schema: OpenApiDocumentSchema },
      },
      handler: async () => {
        openApi.value ??= buildOpenApiDocument(routes);
        return openApi.value;
      },
    },
  ];
}

/** The API's plugin: rate limits and the per-agent limit, then the JSON routes and the text (log) routes. */
async function registerApi(
  app: FastifyInstance,
  settings: ResolvedServerOptions,
  limiter: ConcurrencyLimiter,
  redis: Redis | undefined,
  routes: readonly ApiRoute[],
): Promise<void> {
  await app.register(async (api) => {
    await registerRateLimits(api, settings, redis);
    registerConcurrencyLimit(api, limiter);

    await api.register(async (json) => {
      // The API speaks JSON only: a text/plain body is a 400 naming the content type, not a string to parse.
      json.removeContentTypeParser(['application/json', 'text/plain']);
      json.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(json));
      registerRoutes(json, routes, 'json');
    });
    await api.register(async (text) => {
      // The log is text whatever it is labelled: JSON Lines, or one JSON document (OpenHands).
      text.removeContentTypeParser(['application/json', 'text/plain']);
      for (const type of REPLAY_CONTENT_TYPES) {
        text.addContentTypeParser(
          type,
          { parseAs: 'string', bodyLimit: settings.replayBodyLimitBytes },
          (_request, body, done) => done(null, body),
        );
      }
      registerRoutes(text, routes, 'text');
    });
  });
}
