import * as z from 'zod';
import { ProxyOptionsSchema } from '../proxy/proxy-options.js';
import { defaultStateFolder } from '../store/state-folder.js';
import { DEFAULT_WEBHOOK_RETRY_DELAYS_MS, DEFAULT_WEBHOOK_TIMEOUT_MS } from './webhooks/webhook-service.js';

/** Defaults of the service, declared once. Seed 000: 100 requests/minute per IP, 10 concurrent per agent. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8797;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 100;
export const DEFAULT_MAX_CONCURRENT_PER_AGENT = 10;
/**
 * Ingestion (sessions, usage, compactions, replay, compact) per client IP and minute: every local agent and the
 * dashboard share 127.0.0.1, so the seed's 100/min would drop the usage of the agents barometer watches.
 */
export const DEFAULT_INGEST_RATE_LIMIT_PER_MINUTE = 6000;
/** Reads (GET: the dashboard, views, event streams) per client IP and minute; 0: not limited. */
export const DEFAULT_READ_RATE_LIMIT_PER_MINUTE = 0;
/** 1 MiB: a pressure request is ~200 bytes; a usage record a few KB. Replay uploads have their own limit. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_REPLAY_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** Sessions kept at most; one more is refused with BR_ERR_SESSION_LIMIT, never made room for by dropping one. */
export const DEFAULT_MAX_SESSIONS = 10_000;
/** A live time at most 5 minutes ahead of the service's clock (issue 29, F4). */
export const DEFAULT_CLOCK_SKEW_SECONDS = 300;
/** Sessions idle this long expire (and the log says so). */
export const DEFAULT_SESSION_TTL_SECONDS = 24 * 60 * 60;
/** Event-stream clients at most, over every stream. */
export const DEFAULT_MAX_EVENT_STREAMS = 1000;
/** A request (headers and body) must arrive within this time: a slow body cannot hold a connection forever. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const HostnamesSchema = z
  .array(
    z
      .string()
      .min(1)
      .max(253)
      .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)$/, 'must be a hostname or IP address, without a port'),
  )
  .default([]);

/** Options of `buildApp` / `barometer serve`; unknown keys are rejected. */
export const ServerOptionsSchema = z.strictObject({
  host: z.string().min(1).default(DEFAULT_HOST),
  port: z
    .number()
    .int()
    .min(0, 'must be a port from 0 to 65535')
    .max(65535, 'must be a port from 0 to 65535')
    .default(DEFAULT_PORT),
  /** Evaluations (`/api/v1/pressure`, seed 000's endpoint) per minute per client IP; 0 turns the limit off. */
  rateLimitPerMinute: z.number().int().min(0).default(DEFAULT_RATE_LIMIT_PER_MINUTE),
  /** Ingestion requests (every other POST/DELETE of /api/v1) per minute per client IP; 0 turns the limit off. */
  ingestRateLimitPerMinute: z.number().int().min(0).default(DEFAULT_INGEST_RATE_LIMIT_PER_MINUTE),
  /** Reads (GET of /api/v1) per minute per client IP; 0 (the default) leaves them unlimited. */
  readRateLimitPerMinute: z.number().int().min(0).default(DEFAULT_READ_RATE_LIMIT_PER_MINUTE),
  /** Evaluations in flight per agent (x-agent-id header); 0 turns the limit off. */
  maxConcurrentPerAgent: z.number().int().min(0).default(DEFAULT_MAX_CONCURRENT_PER_AGENT),
  bodyLimitBytes: z.number().int().min(1024).default(DEFAULT_BODY_LIMIT_BYTES),
  replayBodyLimitBytes: z.number().int().min(1024).default(DEFAULT_REPLAY_BODY_LIMIT_BYTES),
  logLevel: z.enum(LOG_LEVELS).default('info'),
  /**
   * Folder for sessions, archives and artifacts (relative: to the working directory); by default the user's state
   * folder (`$XDG_STATE_HOME/barometer`, `~/.local/state/barometer`, `~/Library/Application Support/barometer`,
   * `%LOCALAPPDATA%\\barometer`), never a folder of the project barometer runs in.
   */
  dataDir: z
    .string()
    .min(1)
    .default(() => defaultStateFolder()),
  /**
   * Append the service's log lines to this file (created owner-only, 0600) instead of writing them to stdout:
   * `barometer proxy` and `wrap` keep the agent's terminal to the agent.
   */
  logFile: z.string().min(1).optional(),
  /** Serve the dashboard at `/` when its built files exist. */
  dashboard: z.boolean().default(true),
  /** Keep sessions (and pools, webhooks) in `<dataDir>/barometer.db` so that a restart finds them. */
  persistSessions: z.boolean().default(true),
  /** Sessions kept at most; creating one more is refused (503 BR_ERR_SESSION_LIMIT). */
  maxSessions: z.number().int().min(1).default(DEFAULT_MAX_SESSIONS),
  /**
   * How far ahead of this machine's clock a live usage or compaction time may be (seconds): a later one is refused
   * with 400 naming the field; sessions stamped further ahead by an earlier build are repaired on load.
   */
  clockSkewSeconds: z.number().int().min(0).max(86_400).default(DEFAULT_CLOCK_SKEW_SECONDS),
  /** Sessions idle longer than this expire; 0 keeps them forever. */
  sessionTtlSeconds: z.number().int().min(0).default(DEFAULT_SESSION_TTL_SECONDS),
  /** Event-stream clients at most; one more gets 503 BR_ERR_TOO_MANY_STREAMS. */
  maxEventStreams: z.number().int().min(1).default(DEFAULT_MAX_EVENT_STREAMS),
  /** Time allowed to receive a whole request, headers and body; 0 turns the limit off. */
  requestTimeoutMs: z.number().int().min(0).default(DEFAULT_REQUEST_TIMEOUT_MS),
  /** An event-stream client that lets this many bytes pile up unread is disconnected. */
  maxEventBufferBytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** Delays (ms) before each retry of a failed webhook delivery. */
  webhookRetryDelaysMs: z
    .array(z.number().int().min(0).max(86_400_000))
    .max(20)
    .default([...DEFAULT_WEBHOOK_RETRY_DELAYS_MS]),
  /** Time allowed to each delivery attempt. */
  webhookTimeoutMs: z.number().int().min(100).max(120_000).default(DEFAULT_WEBHOOK_TIMEOUT_MS),
  /** Let webhooks reach loopback, private, link-local and metadata addresses (off: refused, SSRF). */
  allowPrivateWebhooks: z.boolean().default(false),
  /** API keys: with any, every API route needs `Authorization: Bearer <key>` with the route's scope. */
  apiKeys: z
    .array(
      z.strictObject({
        key: z.string().min(16, 'must be at least 16 characters'),
        scopes: z.array(z.enum(['read', 'write', 'admin'])).min(1),
      }),
    )
    .default([]),
  /** Browser origins allowed to call the API (CORS); `*` allows any. Empty: no CORS headers. */
  corsOrigins: z.array(z.string().min(1)).default([]),
  /** Listen on a non-loopback address without an API key (refused otherwise). */
  insecure: z.boolean().default(false),
  /**
   * Hostnames (without port) that every route accepts in its Host header, and in the Origin of a browser's
   * state-changing request, besides the listen host and the localhost names: the name a proxy or a LAN client
   * reaches the service by (DNS-rebinding protection).
   */
  allowedHosts: HostnamesSchema,
  /** The former name of `allowedHosts` (it applied to `/mcp` only); its names are added to `allowedHosts`. */
  mcpAllowedHosts: HostnamesSchema,
  /**
   * Keep sessions, their event fan-out, pools, webhooks and rate-limit counters in this Redis (`redis://` or
   * `rediss://`), shared by every instance started on it. Without it everything is in this process.
   */
  redisUrl: z
    .string()
    .regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL, such as redis://127.0.0.1:6379')
    .optional(),
  /** Prefix of every key barometer writes in Redis: instances with the same prefix are one service. */
  redisPrefix: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9:_.-]+$/, 'must be letters, digits and : _ . - only')
    .default('barometer:'),
  /**
   * Serve the proxy routes (`/v1/messages`, `/v1/chat/completions`, `/v1/responses`): `barometer proxy`. Absent:
   * the service has none.
   */
  proxy: ProxyOptionsSchema.optional(),
  /** Changes are gathered this long before event streams send them. */
  eventFlushMs: z.number().int().min(0).max(10_000).default(100),
});

export type ServerOptions = z.input<typeof ServerOptionsSchema>;
export type ResolvedServerOptions = z.output<typeof ServerOptionsSchema>;
