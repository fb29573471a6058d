export { type AppDependencies, buildApp } from './app.js';
export { ConcurrencyLimiter } from './concurrency-limiter.js';
export { buildOpenApiDocument } from './openapi.js';
export {
  DEFAULT_HOST,
  DEFAULT_MAX_CONCURRENT_PER_AGENT,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  type ServerOptions,
  ServerOptionsSchema,
} from './options.js';
export { type RunningServer, startServer } from './serve.js';
