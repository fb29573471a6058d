import { join, resolve } from 'node:path';
import rateLimit from '@fastify/rate-limit';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import { HeadroomValidationError, parseWith } from '../errors/validation.js';
import type { HeadroomConfig } from '../models/headroom-config.js';
import { ArchiveStore } from '../store/archive.js';
import { ArtifactRegistry } from '../store/artifact-registry.js';
import { MemorySessionStore } from '../store/memory-session-store.js';
import { ConcurrencyLimiter } from './concurrency-limiter.js';
import { registerDashboard } from './dashboard.js';
import { buildOpenApiDocument } from './openapi.js';
import { type ResolvedServerOptions, type ServerOptions, ServerOptionsSchema } from './options.js';
import { sendInvalid, sendProblem } from './problem.js';
import { registerDisciplineRoutes } from './routes/discipline.js';
import { registerPressureRoutes } from './routes/pressure.js';
import { registerReplayRoutes } from './routes/replay.js';
import { registerSessionRoutes } from './routes/sessions.js';

/** What the app reads from outside, injectable for tests. */
export interface AppDependencies {
  /** The clock, in epoch milliseconds. */
  now?: () => number;
  /** A limiter to share or inspect; built from the options when absent. */
  concurrencyLimiter?: ConcurrencyLimiter;
  /** The session store; an in-memory one by default. */
  store?: MemorySessionStore;
  /** A loaded config file (`headroom.config.json`/`.yaml`) whose model entries override the registry. */
  config?: HeadroomConfig;
}

declare module 'fastify' {
  interface FastifyRequest {
    headroomAgent?: string;
  }
  interface FastifyContextConfig {
    /** Set on routes that run an evaluation: they count toward the per-agent concurrency limit. */
    evaluation?: boolean;
  }
}

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
  const store =
    dependencies.store ??
    new MemorySessionStore({ now, ...(dependencies.config ? { config: dependencies.config } : {}) });

  const requestLogging = ['debug', 'trace'].includes(settings.logLevel);
  const app = Fastify({
    logger: settings.logLevel === 'silent' ? false : { level: settings.logLevel },
    // Per-request log lines cost a third of the throughput; they appear at debug level only.
    logController: new LogController({ disableRequestLogging: !requestLogging }),
    // Without request logging, a child logger per request buys nothing but an allocation: errors are logged
    // with the request id in their own fields instead.
    ...(requestLogging ? {} : { childLoggerFactory: (logger: FastifyBaseLogger) => logger }),
    bodyLimit: settings.bodyLimitBytes,
    return503OnClosing: true,
    forceCloseConnections: true,
  });

  app.setErrorHandler((error: FastifyError & { limit?: string }, request, reply) => {
    switch (error.code) {
      case 'HR_ERR_RATE_LIMITED':
        return reply.code(429).send({
          error: error.message,
          code: 'HR_ERR_RATE_LIMITED',
          limit: 'requests_per_minute_per_ip',
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
    if (error instanceof HeadroomValidationError) return sendInvalid(reply, error.issues);
    if (error.validation) {
      return sendInvalid(
        reply,
        error.validation.map((entry) => ({
          field: entry.instancePath,
          value: null,
          message: entry.message ?? '',
        })),
      );
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return sendProblem(reply, error.statusCode, 'HR_ERR_INVALID_PARAM', error.message);
    }
    request.log.error({ err: error, reqId: request.id, url: request.url }, 'request failed');
    return reply
      .code(500)
      .send({ error: 'Failed to evaluate request', code: 'HR_ERR_INTERNAL', message: error.message });
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, 404, 'HR_ERR_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`),
  );

  app.get('/healthz', async () => ({ status: 'ok' }));
  const openApi = buildOpenApiDocument();
  app.get('/openapi.json', async () => openApi);

  await app.register(
    async (api) => {
      // The API speaks JSON only: a text/plain body is a 400 naming the content type, not a string to parse.
      api.removeContentTypeParser('text/plain');
      if (settings.rateLimitPerMinute > 0) {
        await api.register(rateLimit, {
          max: settings.rateLimitPerMinute,
          timeWindow: 60_000,
          keyGenerator: (request) => request.ip,
          errorResponseBuilder: (_request, context) => ({
            statusCode: 429,
            code: 'HR_ERR_RATE_LIMITED',
            message: `Rate limit exceeded: ${context.max} requests per minute per client IP; retry in ${context.after}`,
          }),
        });
      }
      // One agent, named by x-agent-id, may hold `maxConcurrentPerAgent` evaluations at once. Only
      // evaluations count: an event stream held open for an hour is not one. Callback-style hooks, and none at
      // all when the limit is off: they run on every request.
      if (limiter.max > 0) {
        api.addHook('onRequest', (request, reply, done) => {
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

      registerPressureRoutes(api, { now });
      registerSessionRoutes(api, store);
      registerReplayRoutes(api, settings.replayBodyLimitBytes);
      const dataDir = resolve(settings.dataDir);
      registerDisciplineRoutes(api, {
        archive: new ArchiveStore({ root: join(dataDir, 'archives') }),
        artifacts: new ArtifactRegistry({ root: join(dataDir, 'artifacts') }),
        sessions: store,
        dataDir,
      });
    },
    { prefix: '/api/v1' },
  );
  if (settings.dashboard) await registerDashboard(app);

  return app;
}
