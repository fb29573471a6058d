/**
 * headroom: keep LLM agent sessions alive under context, KV-cache, token-budget and rate-quota pressure.
 * The library is the product; the HTTP service and the CLI are thin surfaces over these functions.
 */
export * from './errors/index.js';
export * from './pressure/index.js';
export { buildApp, type ServerOptions, ServerOptionsSchema, startServer } from './server/index.js';
