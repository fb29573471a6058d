import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { BarometerError } from '../errors/barometer-error.js';
import { sendProblem } from '../http/problem.js';
import type { ConcurrencyLimiter } from './concurrency-limiter.js';
import type { ResolvedServerOptions } from './options.js';

/** The rate-limit budget a request draws on. */
type LimitGroup = 'evaluation' | 'ingestion' | 'read';
function limitGroupOf(request: FastifyRequest): LimitGroup {
  if (request.routeOptions.config.evaluation === true) return 'evaluation';
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'ingestion';
}

/** The API's three per-IP rate limits (evaluations, ingestion, reads), registered on `api` unless all are off. */
export async function registerRateLimits(
  api: FastifyInstance,
  settings: ResolvedServerOptions,
  redis: Redis | undefined,
): Promise<void> {
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
}

/** The per-agent limit on evaluations in flight, as hooks on `api`; none when the limit is off. */
export function registerConcurrencyLimit(api: FastifyInstance, limiter: ConcurrencyLimiter): void {
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
}
