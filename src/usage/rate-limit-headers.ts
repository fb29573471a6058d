/** What a provider's response headers say about one quota dimension. */
export interface ReportedLimit {
  limit?: number;
  remaining?: number;
  /** When the quota is full again (epoch ms). */
  resetAt?: number;
}

/** The quotas a response's headers report, per dimension; an empty object when they report none. */
export interface ReportedQuota {
  requests?: ReportedLimit;
  input?: ReportedLimit;
  output?: ReportedLimit;
  tokens?: ReportedLimit;
  /** `retry-after` (or `retry-after-ms`), in seconds. */
  retryAfterSeconds?: number;
}

export type HeaderBag =
  | Record<string, string | readonly string[] | number | undefined>
  | { forEach(callback: (value: string, key: string) => void): void };

/** The header names, lower-cased, of each provider's quota dimensions: [limit, remaining, reset]. */
const ANTHROPIC = {
  requests: [
    'anthropic-ratelimit-requests-limit',
    'anthropic-ratelimit-requests-remaining',
    'anthropic-ratelimit-requests-reset',
  ],
  input: [
    'anthropic-ratelimit-input-tokens-limit',
    'anthropic-ratelimit-input-tokens-remaining',
    'anthropic-ratelimit-input-tokens-reset',
  ],
  output: [
    'anthropic-ratelimit-output-tokens-limit',
    'anthropic-ratelimit-output-tokens-remaining',
    'anthropic-ratelimit-output-tokens-reset',
  ],
  tokens: [
    'anthropic-ratelimit-tokens-limit',
    'anthropic-ratelimit-tokens-remaining',
    'anthropic-ratelimit-tokens-reset',
  ],
} as const;
const OPENAI = {
  requests: ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'],
  tokens: ['x-ratelimit-limit-tokens', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'],
} as const;

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
const MS_PER_UNIT: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** OpenAI's reset durations: `6m0s`, `1s`, `12ms`, `59.5s`, `1h2m3s`; a bare number is seconds. */
export function durationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/^(?:\d+(?:\.\d+)?(?:ms|h|m|s))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(DURATION_PART))
    total += Number(match[1]) * (MS_PER_UNIT[match[2] as string] ?? 0);
  return total;
}

/** The headers by lower-cased name (the first value of a repeated one). */
export function lowerCased(headers: HeaderBag): Map<string, string> {
  const map = new Map<string, string>();
  const put = (key: string, value: unknown) => {
    const text = Array.isArray(value) ? value[0] : value;
    if (typeof text === 'string' || typeof text === 'number') map.set(key.toLowerCase(), String(text));
  };
  if (typeof (headers as { forEach?: unknown }).forEach === 'function' && !Array.isArray(headers)) {
    (headers as { forEach(callback: (value: string, key: string) => void): void }).forEach((value, key) => {
      put(key, value);
    });
  } else {
    for (const [key, value] of Object.entries(headers)) put(key, value);
  }
  return map;
}

function count(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

function dimension(
  headers: Map<string, string>,
  names: readonly [string, string, string],
  now: number,
  reset: 'time' | 'duration',
): ReportedLimit | undefined {
  const limit = count(headers.get(names[0]));
  const remaining = count(headers.get(names[1]));
  const resetText = headers.get(names[2]);
  let resetAt: number | undefined;
  if (resetText !== undefined) {
    if (reset === 'time') {
      const at = Date.parse(resetText);
      if (Number.isFinite(at)) resetAt = at;
    } else {
      const ms = durationMs(resetText);
      if (ms !== undefined) resetAt = now + ms;
    }
  }
  if (limit === undefined && remaining === undefined) return undefined;
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(remaining === undefined ? {} : { remaining }),
    ...(resetAt === undefined ? {} : { resetAt }),
  };
}

/**
 * The quotas a provider's response headers report, read at `now` (epoch ms):
 * - Anthropic (`anthropic-ratelimit-{requests,input-tokens,output-tokens,tokens}-{limit,remaining,reset}`): the
 *   reset is an RFC 3339 time at which the bucket is full again;
 * - OpenAI (`x-ratelimit-{limit,remaining,reset}-{requests,tokens}`): the reset is a duration (`6m0s`) until the
 *   limit is back to its initial state;
 * - `retry-after` in seconds, or `retry-after-ms`.
 * Header names are matched case-insensitively; a value that is not a whole number (or a time) is ignored.
 */
export function readRateLimitHeaders(headers: HeaderBag, now: number): ReportedQuota {
  const map = lowerCased(headers);
  const quota: ReportedQuota = {};
  for (const key of ['requests', 'input', 'output', 'tokens'] as const) {
    const reported = dimension(map, ANTHROPIC[key], now, 'time');
    if (reported) quota[key] = reported;
  }
  for (const key of ['requests', 'tokens'] as const) {
    if (quota[key]) continue;
    const reported = dimension(map, OPENAI[key], now, 'duration');
    if (reported) quota[key] = reported;
  }
  const retryMs = count(map.get('retry-after-ms'));
  const retry = map.get('retry-after');
  if (retryMs !== undefined) quota.retryAfterSeconds = retryMs / 1000;
  else if (retry !== undefined && /^\d+(?:\.\d+)?$/.test(retry.trim()))
    quota.retryAfterSeconds = Number(retry.trim());
  return quota;
}
