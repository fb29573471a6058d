import { Redis } from 'ioredis';
import { BarometerError } from '../errors/barometer-error.js';

/** The URL with any password replaced, fit for a log line or an error message. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unreadable URL)';
  }
}

export interface ConnectRedisOptions {
  /** Time allowed to connect. @default 5000 */
  connectTimeoutMs?: number;
}

/**
 * A connected ioredis client for a `redis://` or `rediss://` URL, with auto-pipelining (concurrent commands share
 * one round trip). Rejects with BR_ERR_STORE_UNAVAILABLE, naming the URL without its password, when Redis
 * cannot be reached; once connected, the client reconnects by itself and a command that fails while Redis is
 * away fails its request (503), never the process.
 */
export async function connectRedis(url: string, options: ConnectRedisOptions = {}): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableAutoPipelining: true,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    maxRetriesPerRequest: 2,
    // A client that cannot connect at start must not retry forever behind the caller's back.
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  // Errors are reported by the commands that fail; an unhandled 'error' event would end the process.
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    // ioredis answers "Connection is closed"; the socket's own error (ECONNREFUSED, a DNS failure) says why.
    const reason = lastError?.message ?? (error instanceof Error ? error.message : String(error));
    throw new BarometerError(
      'BR_ERR_STORE_UNAVAILABLE',
      `Cannot reach Redis at ${redactRedisUrl(url)}: ${reason}`,
      {
        cause: error,
      },
    );
  }
  return redis;
}
