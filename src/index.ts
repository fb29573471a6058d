/**
 * barometer: keep LLM agent sessions alive under context, KV-cache, token-budget and rate-quota pressure.
 * The library is the product; the HTTP service and the CLI are thin surfaces over these functions. This entry
 * loads no server: `barometer/server` exports `buildApp` and `startServer`.
 */
export * from './compaction/index.js';
export * from './discipline/index.js';
export * from './errors/index.js';
export * from './health/index.js';
export * from './ids/id-schema.js';
export {
  type CommandSummarizerOptions,
  createCommandSummarizer,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
} from './integrations/command-summarizer.js';
export * from './kv/index.js';
export * from './models/index.js';
export * from './pools/index.js';
export * from './pressure/index.js';
export * from './quota/index.js';
export * from './session/index.js';
export * from './store/index.js';
export * from './tokens/index.js';
export * from './usage/index.js';
export * from './whatif/index.js';
