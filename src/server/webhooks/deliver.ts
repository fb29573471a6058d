import { isIP } from 'node:net';
import { Agent, type Dispatcher, request } from 'undici';
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

/** What a delivery reads of an answer at most: the rest is dropped with the connection. */
const ANSWER_READ_LIMIT = 64 * 1024;

/**
 * One POST of a webhook, through undici on a connection of its own (a pooled socket would skip the address check
 * of a new lookup), closed after the attempt. A 2xx answer is a success; anything else (another status — redirects
 * are not followed — a network error, no answer whole within the timeout, a target that resolves to a refused
 * address) is a failure to retry. The answer's body is read and dropped (at most 64 KiB).
 */
export async function attemptDelivery(
  options: AttemptOptions,
  now: () => number = Date.now,
): Promise<AttemptOutcome> {
  const started = now();
  const url = new URL(options.url);
  // A literal address is connected to without a lookup: it is checked here instead.
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(literal) !== 0 && isBlockedAddress(literal)) {
    return { ok: false, status: null, error: 'refused_target', durationMs: 0 };
  }
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(options.allowPrivate) }, connections: 1 });
  const outcome = await post(url, options, dispatcher).finally(() => dispatcher.destroy());
  return { ...outcome, durationMs: Math.max(0, now() - started) };
}

async function post(
  url: URL,
  options: AttemptOptions,
  dispatcher: Dispatcher,
): Promise<Omit<AttemptOutcome, 'durationMs'>> {
  try {
    const answer = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'barometer-webhooks',
        ...options.headers,
      },
      body: options.body,
      dispatcher,
      // The whole attempt, the answer read included.
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    let read = 0;
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read > ANSWER_READ_LIMIT) break;
    }
    const status = answer.statusCode;
    return status >= 200 && status < 300
      ? { ok: true, status, error: null }
      : { ok: false, status, error: `status ${status}` };
  } catch (error) {
    return { ok: false, status: null, error: failureOf(error) };
  }
}

/** How an attempt that got no answer failed: `timeout`, `refused_target`, or the network error's code. */
function failureOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  if (error instanceof BlockedAddressError || cause instanceof BlockedAddressError) return 'refused_target';
  const name = (error as { name?: unknown }).name;
  if (name === 'TimeoutError' || (cause as { name?: unknown } | undefined)?.name === 'TimeoutError')
    return 'timeout';
  const code = (error as NodeJS.ErrnoException).code ?? (cause as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
