import { createServer } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import rateLimit from '@fastify/rate-limit';
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
import { BarometerError } from '../errors/barometer-error.js';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { MAX_ID_LENGTH } from '../ids/id-schema.js';
import type { BarometerConfig } from '../models/barometer-config.js';
import { poolRows } from '../pools/kept-pools.js';
import { MemoryPoolStore } from '../pools/memory-pool-store.js';
import type { PoolStore } from '../pools/pool-store.js';
import { RedisPoolStore } from '../pools/redis-pool-store.js';
import { upstreamAgent } from '../proxy/forward.js';
import { proxyRoutes } from '../proxy/proxy-routes.js';
import { ProxySessions } from '../proxy/proxy-sessions.js';
import { RequestDescriber } from '../proxy/request-describer.js';
import { defaultLogRoots, type LogRoot } from '../report/discover-logs.js';
import {
  dataDirPaths,
  openSessionMonitor,
  openSharedSessionMonitor,
  sweepIdleSessions,
} from '../session/open-session-monitor.js';
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
import { parseJsonBody } from './json-body.js';
import { keptProxySessions, keptWebhooks } from './kept-state.js';
import { logFileDestination } from './log-file.js';
import { mcpRoutes } from './mcp-route.js';
import { ServiceMetrics } from './metrics.js';
import { buildNotFoundHandler } from './not-found-handler.js';
import { buildOpenApiDocument, pressureQueryParameters } from './openapi.js';
import { type ResolvedServerOptions, type ServerOptions, ServerOptionsSchema } from './options.js';
import { sendProblem } from './problem.js';
import { type ApiRoute, registerRoutes } from './route-table.js';
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
/** The rate-limit budget a request draws on. */
type LimitGroup = 'evaluation' | 'ingestion' | 'read';
function limitGroupOf(request: FastifyRequest): LimitGroup {
  if (request.routeOptions.config.evaluation === true) return 'evaluation';
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'ingestion';
}

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

  const requestLogging = ['debug', 'trace'].includes(settings.logLevel);
  // The replay route reads log text of any of its types up to its own limit; every other route reads JSON.
  const textRoutes = new Set<string>();
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

  const registered: Array<{ method: string; url: string }> = [];
  app.decorate('barometerRegistered', registered);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) registered.push({ method, url: route.url });
  });

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

  // Prometheus metrics on a registry of this app's own; the monitor's events feed them.
  const metrics = new ServiceMetrics(monitor);
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
  const notices = new NoticeGate({ ...(redis ? { redis } : {}), prefix: settings.redisPrefix, now });

  app.decorate('barometerPools', pools);
  metrics.watchPools(pools);

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
  let settleProxy = async (): Promise<void> => {};
  app.addHook('onClose', async () => {
    await settleProxy();
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

  app.setErrorHandler(handleError);
  app.setNotFoundHandler(buildNotFoundHandler(registered));

  const routes: ApiRoute[] = [
    ...pressureRoutes({ now }, pressureQueryParameters()),
    ...sessionRoutes(monitor, hub),
    ...replayRoutes(settings.replayBodyLimitBytes, dataDir.archives),
    ...reportRoutes({
      roots: dependencies.reportRoots ?? defaultLogRoots(process.env, homedir()),
      dataDir: dataDir.root,
      ...(dependencies.config ? { config: dependencies.config } : {}),
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
  const proxy = settings.proxy;
  if (proxy) {
    // The proxy never logs a request's content or headers (keys): only the stage and the error's message.
    const log = (stage: string, error: unknown) =>
      app.log.warn(
        { stage, error: error instanceof Error ? error.message : String(error) },
        'proxy: failed open',
      );
    const kept = keptProxySessions(database, join(dataDir.root, 'proxy'), app.log);
    const sessions = new ProxySessions({
      monitor,
      archive,
      now,
      kept,
      onFailure: (stage, error) => {
        metrics.proxyFailures.inc({ stage });
        log(stage, error);
      },
      onPause: (stage) => metrics.proxyPauses.inc({ stage }),
    });
    metrics.watchProxy(sessions);
    const upstream = upstreamAgent({
      headersTimeoutSeconds: proxy.upstreamHeadersTimeoutSeconds,
      idleTimeoutSeconds: proxy.upstreamIdleTimeoutSeconds,
    });
    settleProxy = async () => {
      await sessions.settled();
      await upstream.destroy();
    };
    routes.push(
      ...proxyRoutes({
        options: proxy,
        upstream,
        sessions,
        counters: {
          request: (route, outcome) => metrics.proxyRequests.inc({ route, outcome }),
          failure: (stage) => metrics.proxyFailures.inc({ stage }),
          upstreamFailure: (reason) => metrics.proxyUpstreamFailures.inc({ reason }),
        },
        log,
        describer: new RequestDescriber({
          describe: (id, context) => monitor.describe(id, context),
          onFailure: (error) => {
            metrics.proxyFailures.inc({ stage: 'record' });
            log('record', error);
          },
        }),
      }),
    );
  }
  const openApi: { value?: Record<string, unknown> } = {};
  routes.push(
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
  );
  for (const route of routes) if (route.scope === 'text') textRoutes.add(route.url);
  app.decorate('barometerRoutes', routes);
  registerRoutes(app, routes, 'root');

  await app.register(async (api) => {
    // Three limits per client IP, each its own budget (DESIGN.md, Surfaces): seed 000's on its endpoint
    // (evaluations), a higher one on ingestion, so the service never drops the usage of the agents it watches,
    // and reads (the dashboard) unlimited by default. A 429 carries Retry-After.
    const limits: Readonly<Record<LimitGroup, number>> = {
      evaluation: settings.rateLimitPerMinute,
      ingestion: settings.ingestRateLimitPerMinute,
      read: settings.readRateLimitPerMinute,
    };
    const LIMIT_CODES: Readonly<Record<LimitGroup, string>> = {
      evaluation: 'requests_per_minute_per_ip',
      ingestion: 'ingestion_requests_per_minute_per_ip',
      read: 'reads_per_minute_per_ip',
    };
    const LIMIT_NAMES: Readonly<Record<LimitGroup, string>> = {
      evaluation: 'evaluations (/api/v1/pressure)',
      ingestion: 'ingestion requests',
      read: 'reads',
    };
    if (limits.evaluation > 0 || limits.ingestion > 0 || limits.read > 0) {
      await api.register(rateLimit, {
        max: (request) => limits[limitGroupOf(request)],
        allowList: (request) => limits[limitGroupOf(request)] === 0,
        timeWindow: 60_000,
        keyGenerator: (request) => `${limitGroupOf(request)}:${request.ip}`,
        // On Redis the counters are the service's, not each instance's: a client cannot multiply its budget by
        // spreading its requests. If Redis fails, the route answers (503 when it needs Redis itself).
        ...(redis ? { redis, nameSpace: `${settings.redisPrefix}ratelimit:`, skipOnError: true } : {}),
        errorResponseBuilder: (request, context) => {
          const group = limitGroupOf(request);
          return new BarometerError(
            'BR_ERR_RATE_LIMITED',
            `Rate limit exceeded: ${context.max} ${LIMIT_NAMES[group]} per minute per client IP; retry in ${context.after}`,
            { details: { limit: LIMIT_CODES[group] } },
          );
        },
      });
    }
    // One agent, named by x-agent-id, may hold `maxConcurrentPerAgent` evaluations at once. Only evaluations
    // count, and only once their body has arrived (preHandler): a slow body holds no slot. Callback-style
    // hooks, and none at all when the limit is off: they run on every request.
    if (limiter.max > 0) {
      api.addHook('preHandler', (request, reply, done) => {
        if (request.routeOptions.config.evaluation !== true) return done();
        const header = request.headers['x-agent-id'];
        const agent = Array.isArray(header) ? header[0] : header;
        if (!agent) return done();
        if (!limiter.tryAcquire(agent)) {
          reply.header('retry-after', '1');
          sendProblem(
            reply,
            'BR_ERR_TOO_MANY_CONCURRENT',
            `Too many concurrent evaluations for agent ${JSON.stringify(agent)}: at most ${limiter.max} at once`,
            { limit: 'concurrent_evaluations_per_agent', agent },
          );
          return;
        }
        request.barometerAgent = agent;
        done();
      });
      const release = (request: { barometerAgent?: string }, _reply: unknown, done: () => void) => {
        if (request.barometerAgent !== undefined) {
          limiter.release(request.barometerAgent);
          request.barometerAgent = undefined;
        }
        done();
      };
      api.addHook('onResponse', release);
      api.addHook('onRequestAbort', (request, done) => release(request, undefined, done));
    }

    await api.register(async (json) => {
      // The API speaks JSON only: a text/plain body is a 400 naming the content type, not a string to parse.
      json.removeContentTypeParser(['application/json', 'text/plain']);
      json.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
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
  if (proxy) {
    await app.register(async (raw) => {
      // The proxy forwards the agent's bytes: any content type, left unread as the request's stream (the proxy
      // passes it on as it arrives, or reads it whole to write edits in, up to its own limit).
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      registerRoutes(raw, routes, 'raw');
    });
  }
  if (settings.dashboard) await registerDashboard(app);

  return app;
}
