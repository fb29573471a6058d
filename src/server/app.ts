import { createServer } from 'node:http';
import rateLimit from '@fastify/rate-limit';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Summarizer } from '../compaction/compact-history.js';
import { HeadroomValidationError, parseWith } from '../errors/validation.js';
import { MAX_ID_LENGTH } from '../ids/id-schema.js';
import type { HeadroomConfig } from '../models/headroom-config.js';
import { dataDirPaths, openSessionMonitor, sweepIdleSessions } from '../session/open-session-monitor.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import { ArchiveStore } from '../store/archive.js';
import { ArtifactRegistry } from '../store/artifact-registry.js';
import { ConcurrencyLimiter } from './concurrency-limiter.js';
import { registerDashboard } from './dashboard.js';
import { EventHub } from './event-hub.js';
import { parseJsonBody } from './json-body.js';
import { mcpAllowedHostnames, mcpRoutes } from './mcp-route.js';
import { buildOpenApiDocument, pressureQueryParameters } from './openapi.js';
import { type ResolvedServerOptions, type ServerOptions, ServerOptionsSchema } from './options.js';
import { sendInvalid, sendProblem } from './problem.js';
import { type ApiRoute, registerRoutes } from './route-table.js';
import { disciplineRoutes } from './routes/discipline.js';
import { pressureRoutes } from './routes/pressure.js';
import { REPLAY_CONTENT_TYPES, replayRoutes } from './routes/replay.js';
import { sessionRoutes } from './routes/sessions.js';

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
  /** The session monitor; one over a memory store kept in `<dataDir>/sessions` by default. */
  monitor?: SessionMonitor;
  /** A loaded config file (`headroom.config.json`/`.yaml`) whose model entries override the registry. */
  config?: HeadroomConfig;
  /** Writes compaction recaps (e.g. `--summarizer-command`); on failure the deterministic recap is used. */
  summarizer?: Summarizer;
}

declare module 'fastify' {
  interface FastifyRequest {
    headroomAgent?: string;
  }
  interface FastifyContextConfig {
    /** Set on routes that run an evaluation: they count toward the per-agent concurrency limit. */
    evaluation?: boolean;
  }
  interface FastifyInstance {
    /** The routes of the API, as registered and as documented. */
    headroomRoutes: readonly ApiRoute[];
    headroomMonitor: SessionMonitor;
    headroomEvents: EventHub;
    /** Every route Fastify registered, as an onRoute hook saw it (the route-table test reads it). */
    headroomRegistered: Array<{ method: string; url: string }>;
  }
}

/** The HTTP status of each library error code that a route lets through. */
const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  HR_ERR_SESSION_NOT_FOUND: 404,
  HR_ERR_SESSION_EXISTS: 409,
  HR_ERR_SESSION_LIMIT: 503,
  HR_ERR_UNKNOWN_MODEL: 400,
  HR_ERR_ARCHIVE_NOT_FOUND: 404,
  HR_ERR_ARTIFACT_NOT_FOUND: 404,
};

/**
 * Builds the headroom HTTP service (not listening yet: call `listen`, or `inject` in tests).
 * @throws HeadroomValidationError when an option is invalid.
 */
export async function buildApp(
  options: ServerOptions = {},
  dependencies: AppDependencies = {},
): Promise<FastifyInstance> {
  const parsed = parseWith(ServerOptionsSchema, options);
  if (!parsed.ok) throw new HeadroomValidationError(parsed.issues, 'server options');
  const settings: ResolvedServerOptions = parsed.value;
  const now = dependencies.now ?? Date.now;
  const limiter = dependencies.concurrencyLimiter ?? new ConcurrencyLimiter(settings.maxConcurrentPerAgent);
  const dataDir = dataDirPaths(settings.dataDir);
  const archive = new ArchiveStore({ root: dataDir.archives });
  const artifacts = new ArtifactRegistry({ root: dataDir.artifacts });

  const requestLogging = ['debug', 'trace'].includes(settings.logLevel);
  const app = Fastify({
    logger: settings.logLevel === 'silent' ? false : { level: settings.logLevel },
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
        handler,
      ),
    // Ids are up to 128 characters: every route must accept every id that creation accepts.
    routerOptions: { maxParamLength: MAX_ID_LENGTH * 2 },
    return503OnClosing: true,
    forceCloseConnections: true,
  });

  const registered: Array<{ method: string; url: string }> = [];
  app.decorate('headroomRegistered', registered);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) registered.push({ method, url: route.url });
  });

  const monitor =
    dependencies.monitor ??
    (await openSessionMonitor({
      dataDir: dataDir.root,
      persistSessions: settings.persistSessions,
      maxSessions: settings.maxSessions,
      onProblem: (problem) => app.log.warn(problem, 'session file skipped'),
      archive,
      now,
      sessionTtlMs: settings.sessionTtlSeconds * 1000,
      ...(dependencies.config ? { config: dependencies.config } : {}),
      ...(dependencies.summarizer ? { summarizer: dependencies.summarizer } : {}),
    }));
  const hub = new EventHub(monitor, {
    maxStreams: settings.maxEventStreams,
    flushMs: settings.eventFlushMs,
    maxBufferedBytes: settings.maxEventBufferBytes,
  });
  app.decorate('headroomMonitor', monitor);
  app.decorate('headroomEvents', hub);

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
  app.addHook('onClose', async () => {
    stopSweeping();
    hub.close();
    // The monitor given by a caller is the caller's to close; ours writes its last changes out.
    if (!dependencies.monitor) await monitor.close();
  });

  app.setErrorHandler((error: FastifyError & { limit?: string }, request, reply) => {
    switch (error.code) {
      case 'HR_ERR_RATE_LIMITED':
        return reply.code(429).send({
          error: error.message,
          code: 'HR_ERR_RATE_LIMITED',
          limit: error.limit ?? 'requests_per_minute_per_ip',
        });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(reply, 400, 'HR_ERR_MALFORMED_JSON', `Malformed JSON body: ${error.message}`, {
          issues: [{ field: '(body)', value: null, message: error.message }],
        });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(
          reply,
          400,
          'HR_ERR_UNSUPPORTED_MEDIA_TYPE',
          `Unsupported content type ${JSON.stringify(request.headers['content-type'] ?? '')}: send application/json`,
          {
            issues: [
              {
                field: 'content-type',
                value: request.headers['content-type'] ?? null,
                message: 'must be application/json',
                allowed: { values: ['application/json'] },
              },
            ],
          },
        );
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(reply, 413, 'HR_ERR_BODY_TOO_LARGE', `Request body larger than ${error.message}`, {
          limitBytes: settings.bodyLimitBytes,
        });
    }
    if (error instanceof HeadroomValidationError) {
      const status = STATUS_OF_CODE[error.code];
      if (status === undefined) return sendInvalid(reply, error.issues);
      return sendProblem(reply, status, error.code, error.message, { issues: error.issues });
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return sendProblem(reply, error.statusCode, 'HR_ERR_INVALID_PARAM', error.message);
    }
    // Seed 000's shape for a fault: { error, message }, with the request id to find it in the log.
    request.log.error({ err: error, reqId: request.id, url: request.url }, 'request failed');
    return reply.code(500).send({
      error: 'Failed to evaluate request',
      code: 'HR_ERR_INTERNAL',
      message: error.message,
      requestId: request.id,
    });
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, 404, 'HR_ERR_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`),
  );

  const routes: ApiRoute[] = [
    ...pressureRoutes({ now }, pressureQueryParameters()),
    ...sessionRoutes(monitor, hub),
    ...replayRoutes(settings.replayBodyLimitBytes),
    ...disciplineRoutes({ archive, artifacts, monitor }),
    ...mcpRoutes({
      monitor,
      archive,
      now,
      allowedHostnames: mcpAllowedHostnames(settings.host, settings.mcpAllowedHosts),
    }),
  ];
  const openApi: { value?: Record<string, unknown> } = {};
  routes.push(
    {
      method: 'GET',
      url: '/healthz',
      scope: 'root',
      summary: 'Liveness',
      responses: { '200': { description: '{ "status": "ok" }' } },
      handler: async () => ({ status: 'ok' }),
    },
    {
      method: 'GET',
      url: '/openapi.json',
      scope: 'root',
      summary: 'This document',
      responses: { '200': { description: 'The OpenAPI 3.0 document of every route' } },
      handler: async () => {
        openApi.value ??= buildOpenApiDocument(routes);
        return openApi.value;
      },
    },
  );
  app.decorate('headroomRoutes', routes);
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
        errorResponseBuilder: (request, context) => {
          const group = limitGroupOf(request);
          return {
            statusCode: 429,
            code: 'HR_ERR_RATE_LIMITED',
            message: `Rate limit exceeded: ${context.max} ${LIMIT_NAMES[group]} per minute per client IP; retry in ${context.after}`,
            limit: LIMIT_CODES[group],
          };
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
            429,
            'HR_ERR_TOO_MANY_CONCURRENT',
            `Too many concurrent evaluations for agent ${JSON.stringify(agent)}: at most ${limiter.max} at once`,
            { limit: 'concurrent_evaluations_per_agent', agent },
          );
          return;
        }
        request.headroomAgent = agent;
        done();
      });
      const release = (request: { headroomAgent?: string }, _reply: unknown, done: () => void) => {
        if (request.headroomAgent !== undefined) {
          limiter.release(request.headroomAgent);
          request.headroomAgent = undefined;
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
  if (settings.dashboard) await registerDashboard(app);

  return app;
}
