import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { BlockedAddressError, guardedLookup, isBlockedAddress } from './address-guard.js';

/** One delivery attempt's outcome, as the delivery log keeps it. */
export interface AttemptOutcome {
  ok: boolean;
  /** The HTTP status the receiver answered, or null when it answered none. */
  status: number | null;
  /** Why it failed: `timeout`, `refused_target`, a network error code, or `status <n>`. */
  error: string | null;
  durationMs: number;
}

export interface AttemptOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * One POST of a webhook. A 2xx answer is a success; anything else (another status — redirects are not followed —
 * a network error, a timeout, a target that resolves to a refused address) is a failure to retry. The response
 * body is read and dropped (at most 64 KiB), so the socket is released.
 */
export function attemptDelivery(
  options: AttemptOptions,
  now: () => number = Date.now,
): Promise<AttemptOutcome> {
  const started = now();
  const url = new URL(options.url);
  // A literal address is connected to without a lookup: it is checked here instead.
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(literal) !== 0 && isBlockedAddress(literal)) {
    return Promise.resolve({ ok: false, status: null, error: 'refused_target', durationMs: 0 });
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: Math.max(0, now() - started) });
    };
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(options.body)),
          'user-agent': 'barometer-webhooks',
          ...options.headers,
        },
        lookup: guardedLookup(options.allowPrivate),
        // One connection per attempt: a pooled socket would skip the address check of a new lookup.
        agent: false,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 64 * 1024) response.destroy();
        });
        const status = response.statusCode ?? 0;
        const done = () =>
          finish(
            status >= 200 && status < 300
              ? { ok: true, status, error: null }
              : { ok: false, status, error: `status ${status}` },
          );
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, status: null, error: 'timeout' });
    }, options.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      finish({
        ok: false,
        status: null,
        error: error instanceof BlockedAddressError ? 'refused_target' : (error.code ?? error.message),
      });
    });
    req.end(options.body);
  });
}
