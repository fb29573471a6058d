import { describe, expect, it } from 'vitest';
import { durationMs, readRateLimitHeaders } from './rate-limit-headers.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('readRateLimitHeaders', () => {
  it("reads Anthropic's limits, remaining and RFC 3339 reset times per dimension", () => {
    const quota = readRateLimitHeaders(
      {
        'anthropic-ratelimit-requests-limit': '4000',
        'anthropic-ratelimit-requests-remaining': '3999',
        'anthropic-ratelimit-requests-reset': '2026-11-22T12:00:01Z',
        'anthropic-ratelimit-input-tokens-limit': '2000000',
        'anthropic-ratelimit-input-tokens-remaining': '1998000',
        'anthropic-ratelimit-input-tokens-reset': '2026-11-22T12:00:00.060Z',
        'anthropic-ratelimit-output-tokens-limit': '400000',
        'anthropic-ratelimit-output-tokens-remaining': '400000',
        'anthropic-ratelimit-output-tokens-reset': '2026-11-22T12:00:00Z',
        'retry-after': '7',
      },
      NOW,
    );
    expect(quota).toEqual({
      requests: { limit: 4000, remaining: 3999, resetAt: NOW + 1000 },
      input: { limit: 2_000_000, remaining: 1_998_000, resetAt: NOW + 60 },
      output: { limit: 400_000, remaining: 400_000, resetAt: NOW },
      retryAfterSeconds: 7,
    });
  });

  it("reads OpenAI's headers (any case, Headers objects too) with their reset durations", () => {
    const headers = new Headers({
      'X-RateLimit-Limit-Tokens': '150000',
      'X-RateLimit-Remaining-Tokens': '149984',
      'X-RateLimit-Reset-Tokens': '6m0s',
      'x-ratelimit-limit-requests': '30000',
      'x-ratelimit-remaining-requests': '29999',
      'x-ratelimit-reset-requests': '2ms',
    });
    expect(readRateLimitHeaders(headers, NOW)).toEqual({
      tokens: { limit: 150_000, remaining: 149_984, resetAt: NOW + 360_000 },
      requests: { limit: 30_000, remaining: 29_999, resetAt: NOW + 2 },
    });
  });

  it('ignores values that are not counts or times, and reports nothing without rate-limit headers', () => {
    expect(
      readRateLimitHeaders({ 'x-ratelimit-remaining-tokens': '-1', 'content-type': 'application/json' }, NOW),
    ).toEqual({});
    expect(
      readRateLimitHeaders({ 'x-ratelimit-remaining-tokens': '12', 'x-ratelimit-reset-tokens': 'soon' }, NOW),
    ).toEqual({
      tokens: { remaining: 12 },
    });
  });
});

describe('durationMs', () => {
  it.each([
    ['6m0s', 360_000],
    ['1s', 1000],
    ['12ms', 12],
    ['59.5s', 59_500],
    ['1h2m3s', 3_723_000],
    ['20', 20_000],
  ])('%s is %d ms', (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });

  it('is undefined for text that is not a duration', () => {
    expect(durationMs('6 minutes')).toBeUndefined();
  });
});
