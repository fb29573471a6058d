import { type HeaderBag, type ReportedQuota, readRateLimitHeaders } from './rate-limit-headers.js';

/** The header names a quota observation keeps: the providers' rate-limit headers and `retry-after`. */
const QUOTA_HEADER = /^(?:anthropic-ratelimit-|x-ratelimit-|retry-after(?:-ms)?$)/;

/**
 * What a provider's response says about the quotas, whatever its status: a 429 (or any refusal) that reports its
 * limits or asks to retry later teaches as much as a success. `headers` holds only the rate-limit ones
 * (lower-cased, never a key or a cookie), ready to pass to a session (`observeQuota`) or post over HTTP.
 */
export interface QuotaObservation {
  status: number;
  /** The provider refused the request for its rate limit (429): no generation happened. */
  refused: boolean;
  headers: Record<string, string>;
  reported: ReportedQuota;
}

/**
 * A response's status and headers as a quota observation, read at `now` (epoch ms); undefined when it reports no
 * quota and is not a 429. The wrappers record one for every refused request; the proxy can do the same.
 * @example quotaObservation(429, response.headers, Date.now())?.reported.retryAfterSeconds // 20
 */
export function quotaObservation(
  status: number,
  headers: HeaderBag,
  now: number,
): QuotaObservation | undefined {
  const kept: Record<string, string> = {};
  const keep = (value: unknown, key: string) => {
    const name = key.toLowerCase();
    const text = Array.isArray(value) ? value[0] : value;
    if (QUOTA_HEADER.test(name) && (typeof text === 'string' || typeof text === 'number'))
      kept[name] = String(text);
  };
  if (typeof (headers as { forEach?: unknown }).forEach === 'function' && !Array.isArray(headers))
    (headers as { forEach(callback: (value: string, key: string) => void): void }).forEach(keep);
  else for (const [key, value] of Object.entries(headers)) keep(value, key);
  const reported = readRateLimitHeaders(kept, now);
  const refused = status === 429;
  if (!refused && Object.keys(reported).length === 0) return undefined;
  return { status, refused, headers: kept, reported };
}
