import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parseWith } from '../../errors/validation.js';
import { loadConfig } from '../../models/load-config.js';
import { MIN_KEY_LENGTH, parseApiKeys } from '../../server/access.js';
import {
  DEFAULT_HOST,
  DEFAULT_INGEST_RATE_LIMIT_PER_MINUTE,
  DEFAULT_MAX_CONCURRENT_PER_AGENT,
  DEFAULT_MAX_EVENT_STREAMS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  LOG_LEVELS,
  ServerOptionsSchema,
} from '../../server/options.js';
import { tuneServiceProcess } from '../../server/process-tuning.js';
import { startServer } from '../../server/serve.js';
import { redactRedisUrl } from '../../store/redis-connection.js';
import { dataFolderFor } from '../data-folder-for.js';
import { durationSeconds } from '../duration.js';
import { type CliIo, UsageError } from '../io.js';
import { issuesText } from '../issues-text.js';
import { DATA_DIR_HELP } from '../proxy-flags.js';
import { startListening } from '../start-listening.js';
import { summarizerFrom } from '../summarizer-flags.js';

/** Environment variables read by `barometer serve`; a flag wins over its variable. */
export const SERVE_ENVIRONMENT = {
  host: 'BAROMETER_HOST',
  port: 'BAROMETER_PORT',
  rateLimitPerMinute: 'BAROMETER_RATE_LIMIT_PER_MINUTE',
  ingestRateLimitPerMinute: 'BAROMETER_INGEST_RATE_LIMIT_PER_MINUTE',
  readRateLimitPerMinute: 'BAROMETER_READ_RATE_LIMIT_PER_MINUTE',
  maxConcurrentPerAgent: 'BAROMETER_MAX_CONCURRENT_PER_AGENT',
  logLevel: 'BAROMETER_LOG_LEVEL',
  logFile: 'BAROMETER_LOG_FILE',
  dataDir: 'BAROMETER_DATA_DIR',
  maxSessions: 'BAROMETER_MAX_SESSIONS',
  sessionTtl: 'BAROMETER_SESSION_TTL',
  clockSkew: 'BAROMETER_CLOCK_SKEW',
  maxEventStreams: 'BAROMETER_MAX_EVENT_STREAMS',
  requestTimeout: 'BAROMETER_REQUEST_TIMEOUT',
  allowedHosts: 'BAROMETER_ALLOWED_HOSTS',
  mcpAllowedHosts: 'BAROMETER_MCP_ALLOWED_HOSTS',
  config: 'BAROMETER_CONFIG',
  webhookRetryDelays: 'BAROMETER_WEBHOOK_RETRY_DELAYS',
  webhookTimeout: 'BAROMETER_WEBHOOK_TIMEOUT',
  allowPrivateWebhooks: 'BAROMETER_ALLOW_PRIVATE_WEBHOOKS',
  apiKeys: 'BAROMETER_API_KEYS',
  corsOrigins: 'BAROMETER_CORS_ORIGINS',
  summarizerCommand: 'BAROMETER_SUMMARIZER_COMMAND',
  summarizerTimeout: 'BAROMETER_SUMMARIZER_TIMEOUT',
  redis: 'BAROMETER_REDIS_URL',
  redisPrefix: 'BAROMETER_REDIS_PREFIX',
} as const;

const INTEGER_TEXT = /^\d+$/;
/** `barometer serve`: the HTTP service with its dashboard. */
export function registerServeCommand(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('Start the HTTP service (API at /api/v1, dashboard at /) on the embedded in-memory store')
    .option('--host <host>', `address to listen on (env ${SERVE_ENVIRONMENT.host})`, undefined)
    .option(
      '--port <port>',
      `port to listen on, 0 for any free port (env ${SERVE_ENVIRONMENT.port}; default ${DEFAULT_PORT})`,
    )
    .option(
      '--rate-limit-per-minute <n>',
      `evaluations (/api/v1/pressure) per minute per client IP, 0 = off (env ${SERVE_ENVIRONMENT.rateLimitPerMinute}; default ${DEFAULT_RATE_LIMIT_PER_MINUTE})`,
    )
    .option(
      '--ingest-rate-limit-per-minute <n>',
      `ingestion requests (sessions, usage, compactions, replay, compact) per minute per client IP, 0 = off (env ${SERVE_ENVIRONMENT.ingestRateLimitPerMinute}; default ${DEFAULT_INGEST_RATE_LIMIT_PER_MINUTE})`,
    )
    .option(
      '--read-rate-limit-per-minute <n>',
      `reads (GET /api/v1/...) per minute per client IP, 0 = off (env ${SERVE_ENVIRONMENT.readRateLimitPerMinute}; default 0: unlimited)`,
    )
    .option(
      '--max-concurrent-per-agent <n>',
      `evaluations in flight per x-agent-id, 0 = off (env ${SERVE_ENVIRONMENT.maxConcurrentPerAgent}; default ${DEFAULT_MAX_CONCURRENT_PER_AGENT})`,
    )
    .option(
      '--log-level <level>',
      `${LOG_LEVELS.join('|')} (env ${SERVE_ENVIRONMENT.logLevel}; default info)`,
    )
    .option(
      '--log-file <path>',
      `append the log lines to this file (created owner-only) instead of stdout (env ${SERVE_ENVIRONMENT.logFile})`,
    )
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option(
      '--max-sessions <n>',
      `sessions kept at most; one more is refused with 503 BR_ERR_SESSION_LIMIT (env ${SERVE_ENVIRONMENT.maxSessions}; default ${DEFAULT_MAX_SESSIONS})`,
    )
    .option(
      '--session-ttl <duration>',
      `sessions idle longer than this expire, e.g. 24h, 30m, 90s; 0 = never (env ${SERVE_ENVIRONMENT.sessionTtl}; default 24h)`,
    )
    .option(
      '--clock-skew <duration>',
      `how far ahead of this machine's clock a live usage time may be, e.g. 5m; later ones get 400 naming the field (env ${SERVE_ENVIRONMENT.clockSkew}; default 5m)`,
    )
    .option(
      '--max-event-streams <n>',
      `event-stream clients at most (env ${SERVE_ENVIRONMENT.maxEventStreams}; default ${DEFAULT_MAX_EVENT_STREAMS})`,
    )
    .option(
      '--request-timeout <duration>',
      `time allowed to receive a whole request, e.g. 30s; 0 = off (env ${SERVE_ENVIRONMENT.requestTimeout}; default 30s)`,
    )
    .option(
      '--allowed-hosts <names>',
      `comma-separated hostnames every route accepts in Host (and a browser's Origin) besides the listen host and localhost, e.g. barometer.internal; others get 403 BR_ERR_FORBIDDEN_HOST (env ${SERVE_ENVIRONMENT.allowedHosts})`,
    )
    .option(
      '--mcp-allowed-hosts <names>',
      `former name of --allowed-hosts, still read (env ${SERVE_ENVIRONMENT.mcpAllowedHosts})`,
    )
    .option(
      '--config <path>',
      `barometer.config.json/.yaml overriding model limits (env ${SERVE_ENVIRONMENT.config}; default: the one in the working directory, if any)`,
    )
    .option(
      '--webhook-retry-delays <ms,ms,…>',
      `delays in ms before each retry of a failed webhook delivery (env ${SERVE_ENVIRONMENT.webhookRetryDelays}; default 1000,5000,30000,120000,600000)`,
    )
    .option(
      '--webhook-timeout <duration>',
      `time allowed to each webhook delivery attempt (env ${SERVE_ENVIRONMENT.webhookTimeout}; default 5s)`,
    )
    .option(
      '--allow-private-webhooks',
      `let webhooks reach loopback, private, link-local and metadata addresses (env ${SERVE_ENVIRONMENT.allowPrivateWebhooks}=1; default: refused)`,
    )
    .option(
      '--api-key <key>',
      `require this key (all scopes) as "Authorization: Bearer <key>"; repeatable. Scoped keys: env ${SERVE_ENVIRONMENT.apiKeys}="KEY:read KEY2:write KEY3:admin"`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--cors-origin <origins>',
      `browser origins allowed to call the API, comma-separated, or * (env ${SERVE_ENVIRONMENT.corsOrigins})`,
    )
    .option('--insecure', 'listen on a non-loopback address without an API key (refused otherwise)')
    .option(
      '--redis <url>',
      `keep sessions, event fan-out, pools, webhooks and rate-limit counters in Redis, shared by every instance started on it, e.g. redis://127.0.0.1:6379 (env ${SERVE_ENVIRONMENT.redis})`,
    )
    .option(
      '--redis-prefix <prefix>',
      `prefix of barometer's Redis keys: instances with the same prefix are one service (env ${SERVE_ENVIRONMENT.redisPrefix}; default barometer:)`,
    )
    .option(
      '--summarizer-command <cmd>',
      `a command that writes compaction recaps: the replaced history as JSON on stdin, the summary on stdout; on failure the deterministic recap is used (env ${SERVE_ENVIRONMENT.summarizerCommand})`,
    )
    .option(
      '--summarizer-timeout <duration>',
      `how long the summarizer command may run, e.g. 60s (env ${SERVE_ENVIRONMENT.summarizerTimeout}; default 60s)`,
    )
    .addHelpText(
      'after',
      `\nDefault address: http://${DEFAULT_HOST}:${DEFAULT_PORT}. MCP clients connect to /mcp (Streamable HTTP).\nStops gracefully on SIGTERM/SIGINT.`,
    )
    .action((flags: Record<string, string | undefined>) => serveAction(flags, io));
}

/** The settings read from a flag or, without one, its environment variable: checked, converted, keyed as the options. */
function settingsFromFlagsAndEnvironment(
  flags: Record<string, string | undefined>,
  io: CliIo,
): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const numeric = new Set([
    'port',
    'rateLimitPerMinute',
    'ingestRateLimitPerMinute',
    'readRateLimitPerMinute',
    'maxConcurrentPerAgent',
    'maxSessions',
    'maxEventStreams',
  ]);
  const durations: Record<string, string> = {
    sessionTtl: 'sessionTtlSeconds',
    clockSkew: 'clockSkewSeconds',
    requestTimeout: 'requestTimeoutMs',
    webhookTimeout: 'webhookTimeoutMs',
  };
  const milliseconds = new Set(['requestTimeout', 'webhookTimeout']);
  for (const [key, variable] of Object.entries(SERVE_ENVIRONMENT)) {
    if (
      key === 'config' ||
      key === 'dataDir' ||
      key === 'summarizerCommand' ||
      key === 'summarizerTimeout' ||
      key === 'apiKeys' ||
      key === 'corsOrigins'
    )
      continue;
    const text = flags[key] ?? io.env[variable];
    if (text === undefined || text === '') continue;
    const source =
      flags[key] !== undefined ? `--${key.replace(/[A-Z]/g, (l) => `-${l.toLowerCase()}`)}` : variable;
    if (key in durations) {
      const seconds = durationSeconds(text);
      if (seconds === undefined)
        throw new UsageError(
          `${source} must be a duration such as 24h, 30m, 90s or a number of seconds; got ${JSON.stringify(text)}`,
        );
      raw[durations[key]!] = milliseconds.has(key) ? Math.round(seconds * 1000) : Math.round(seconds);
    } else if (key === 'webhookRetryDelays') {
      const delays = text.split(',').map((part) => part.trim());
      if (delays.some((part) => !INTEGER_TEXT.test(part)))
        throw new UsageError(
          `${source} must be whole numbers of milliseconds separated by commas, such as 200,400,800; got ${JSON.stringify(text)}`,
        );
      raw.webhookRetryDelaysMs = delays.map(Number);
    } else if (key === 'allowPrivateWebhooks') {
      const value = String(text).toLowerCase();
      if (!['true', '1', 'yes', 'false', '0', 'no'].includes(value))
        throw new UsageError(`${source} must be 1 or 0 (true or false); got ${JSON.stringify(text)}`);
      raw.allowPrivateWebhooks = ['true', '1', 'yes'].includes(value);
    } else if (key === 'logFile') {
      raw.logFile = resolve(io.cwd, text);
    } else if (key === 'redis') {
      raw.redisUrl = text;
    } else if (key === 'allowedHosts' || key === 'mcpAllowedHosts') {
      raw[key] = text
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
    } else if (numeric.has(key)) {
      if (!INTEGER_TEXT.test(text))
        throw new UsageError(`${source} must be a whole number ≥ 0; got ${JSON.stringify(text)}`);
      raw[key] = Number(text);
    } else {
      raw[key] = text;
    }
  }
  return raw;
}

/** The API keys of `--api-key` (all scopes) and of the scoped keys' environment variable, in that order. */
function apiKeysFrom(
  flags: Record<string, string | undefined>,
  io: CliIo,
): Array<{ key: string; scopes: string[] }> {
  const keys: Array<{ key: string; scopes: string[] }> = [];
  for (const key of (flags as unknown as { apiKey?: string[] }).apiKey ?? []) {
    if (key.length < MIN_KEY_LENGTH)
      throw new UsageError(`--api-key must be at least ${MIN_KEY_LENGTH} characters`);
    keys.push({ key, scopes: ['admin'] });
  }
  const scoped = io.env[SERVE_ENVIRONMENT.apiKeys];
  if (scoped !== undefined && scoped.trim() !== '') {
    const parsed = parseApiKeys(scoped);
    if (!parsed.ok) throw new UsageError(`${SERVE_ENVIRONMENT.apiKeys}: ${parsed.message}`);
    keys.push(...parsed.keys);
  }
  return keys;
}

/** The service's options, not yet validated, from `barometer serve`'s flags and environment. */
function rawServerOptions(flags: Record<string, string | undefined>, io: CliIo): Record<string, unknown> {
  const raw = settingsFromFlagsAndEnvironment(flags, io);
  const keys = apiKeysFrom(flags, io);
  if (keys.length > 0) raw.apiKeys = keys;
  const cors = flags.corsOrigin ?? io.env[SERVE_ENVIRONMENT.corsOrigins];
  if (cors !== undefined && cors.trim() !== '')
    raw.corsOrigins = cors
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean);
  if ((flags as unknown as { insecure?: boolean }).insecure) raw.insecure = true;
  raw.dataDir = dataFolderFor(io, flags.dataDir).path;
  return raw;
}

/** `barometer serve`'s action: validates the options, loads the config, starts the service and says where it listens. */
async function serveAction(flags: Record<string, string | undefined>, io: CliIo): Promise<void> {
  const raw = rawServerOptions(flags, io);
  const options = parseWith(ServerOptionsSchema, raw);
  if (!options.ok)
    throw new UsageError(
      `invalid server options:\n${issuesText(options.issues).replace('(--redis-url)', '(--redis)')}`,
    );
  const configPath = flags.config ?? io.env[SERVE_ENVIRONMENT.config];
  const config = await loadConfig(
    configPath === undefined || configPath === '' ? io.cwd : resolve(io.cwd, configPath),
  );
  const summarizer = summarizerFrom(flags, io, SERVE_ENVIRONMENT);
  // This process runs the service: V8 tuned for it before the app allocates anything (decision 012).
  tuneServiceProcess(io.env);
  const server = await startListening(
    () =>
      startServer(options.value, {
        handleSignals: true,
        serviceFile: true,
        config,
        ...(summarizer ? { summarizer } : {}),
      }),
    { variable: SERVE_ENVIRONMENT.port },
  );
  const sessions = await server.app.barometerMonitor.store.size();
  const where =
    options.value.redisUrl === undefined
      ? `restored from ${resolve(io.cwd, options.value.dataDir)}`
      : `shared in Redis ${redactRedisUrl(options.value.redisUrl)} (prefix ${options.value.redisPrefix})`;
  io.stdout.write(
    `barometer listening on ${server.url} (dashboard ${server.url}/, API ${server.url}/api/v1); ${sessions} session${sessions === 1 ? '' : 's'} ${where}\n`,
  );
}
