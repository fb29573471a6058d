import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionMonitor } from '../session/session-monitor.js';
import { buildApp } from './app.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The value of one sample line `name{labels} value` of the exposition text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(?:\{([^}]*)\})? (.+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((label) => have.includes(label)) && have.length === wanted.length)
      return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('exposes requests, latency, sessions by health, verdicts, tokens by kind and cost in Prometheus text', async () => {
    app = await buildApp({ logLevel: 'silent', persistSessions: false, dashboard: false });
    await app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: { id: 'm', model: 'claude-sonnet-4-5' },
    });
    await app.inject({
      method: 'POST',
      url: '/api/v1/sessions/m/usage',
      payload: {
        format: 'anthropic',
        response: {
          model: 'claude-sonnet-4-5',
          usage: {
            input_tokens: 1000,
            cache_read_input_tokens: 120_000,
            cache_creation_input_tokens: 500,
            output_tokens: 300,
          },
        },
      },
    });
    await app.inject({ url: '/api/v1/pressure' });
    await app.inject({ url: '/nope' });
    const response = await app.inject({ url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = response.body;
    for (const name of [
      'barometer_http_requests_total',
      'barometer_http_request_duration_seconds',
      'barometer_sessions',
      'barometer_verdicts_total',
      'barometer_usage_tokens_total',
      'barometer_cost_usd_total',
      'barometer_compactions_total',
      'barometer_webhook_deliveries_total',
      'barometer_pool_reservations_total',
    ]) {
      expect(text).toContain(`# HELP ${name} `);
      expect(text).toMatch(new RegExp(`# TYPE ${name} (counter|gauge|histogram)`));
    }
    expect(
      sample(text, 'barometer_http_requests_total', {
        method: 'POST',
        route: '/api/v1/sessions/:id/usage',
        status: '200',
      }),
    ).toBe(1);
    expect(
      sample(text, 'barometer_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(1);
    expect(
      sample(text, 'barometer_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/v1/pressure',
      }),
    ).toBe(1);
    // The duration histogram's series, as prom-client writes them: every bound, cumulative, then +Inf.
    expect(text).toContain(
      'barometer_http_request_duration_seconds_bucket{le="5",method="GET",route="/api/v1/pressure"} 1\n' +
        'barometer_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/v1/pressure"} 1\n',
    );
    expect(text).toContain(
      'barometer_http_request_duration_seconds_bucket{le="0.0005",method="GET",route="unmatched"}',
    );
    // A route that answered nothing has no series, though its recorder was made when it was registered.
    expect(text).not.toContain('route="/api/v1/compact"');
    // 121,500 prompt tokens: 1,000 uncached, 120,000 read from the cache, 500 written to it; 300 output.
    expect(sample(text, 'barometer_usage_tokens_total', { kind: 'uncached' })).toBe(1000);
    expect(sample(text, 'barometer_usage_tokens_total', { kind: 'cache_read' })).toBe(120_000);
    expect(sample(text, 'barometer_usage_tokens_total', { kind: 'cache_write' })).toBe(500);
    expect(sample(text, 'barometer_usage_tokens_total', { kind: 'output' })).toBe(300);
    // claude-sonnet-4-5: 1,000 × 3 + 120,000 × 0.3 + 500 × 3.75 + 300 × 15 = 45,375 micro-dollars.
    expect(sample(text, 'barometer_cost_usd_total')).toBeCloseTo(0.045375, 9);
    expect(sample(text, 'barometer_sessions', { health: 'caution' })).toBe(1);
    expect(sample(text, 'barometer_verdicts_total', { action: 'compress' })).toBe(1);
  });

  it('counts usage posted between scrapes on top of what earlier scrapes showed', async () => {
    app = await buildApp({ logLevel: 'silent', persistSessions: false, dashboard: false });
    await app.inject({ method: 'POST', url: '/api/v1/sessions', payload: { id: 'm', model: 'gpt-4o' } });
    const post = () =>
      app!.inject({
        method: 'POST',
        url: '/api/v1/sessions/m/usage',
        payload: { promptTokens: 1000, completionTokens: 100, cachedReadTokens: 400 },
      });
    await post();
    const first = (await app.inject({ url: '/metrics' })).body;
    expect(sample(first, 'barometer_usage_tokens_total', { kind: 'uncached' })).toBe(600);
    expect(sample(first, 'barometer_usage_tokens_total', { kind: 'cache_write' })).toBe(0);
    await post();
    await post();
    const second = (await app.inject({ url: '/metrics' })).body;
    expect(sample(second, 'barometer_usage_tokens_total', { kind: 'uncached' })).toBe(1800);
    expect(sample(second, 'barometer_usage_tokens_total', { kind: 'cache_read' })).toBe(1200);
    expect(sample(second, 'barometer_usage_tokens_total', { kind: 'output' })).toBe(300);
    expect(sample(second, 'barometer_verdicts_total', { action: 'continue' })).toBe(3);
    // Read again without new usage: nothing is counted twice.
    expect((await app.inject({ url: '/metrics' })).body).toContain(
      'barometer_usage_tokens_total{kind="uncached"} 1800',
    );
  });

  it('counts each request once under its route pattern, whatever route, method or status, and unmatched ones apart', async () => {
    app = await buildApp({ logLevel: 'silent', persistSessions: false, dashboard: false });
    await app.inject({ method: 'POST', url: '/api/v1/sessions', payload: { id: 'a', model: 'gpt-4o' } });
    await app.inject({ method: 'POST', url: '/api/v1/sessions', payload: { id: 'a', model: 'gpt-4o' } });
    await app.inject({ url: '/api/v1/sessions/a' });
    await app.inject({ url: '/api/v1/sessions/nope' });
    await app.inject({ method: 'HEAD', url: '/api/v1/sessions/a' });
    await app.inject({ method: 'DELETE', url: '/nope/either' });
    await app.inject({ url: '/openapi.json' });
    const text = (await app.inject({ url: '/metrics' })).body;
    const requests = (labels: Record<string, string>) =>
      sample(text, 'barometer_http_requests_total', labels);
    expect(requests({ method: 'POST', route: '/api/v1/sessions', status: '201' })).toBe(1);
    expect(requests({ method: 'POST', route: '/api/v1/sessions', status: '409' })).toBe(1);
    expect(requests({ method: 'GET', route: '/api/v1/sessions/:id', status: '200' })).toBe(1);
    expect(requests({ method: 'GET', route: '/api/v1/sessions/:id', status: '404' })).toBe(1);
    expect(requests({ method: 'HEAD', route: '/api/v1/sessions/:id', status: '200' })).toBe(1);
    expect(requests({ method: 'DELETE', route: 'unmatched', status: '404' })).toBe(1);
    expect(requests({ method: 'GET', route: '/openapi.json', status: '200' })).toBe(1);
    // Every request counted once: the counts sum to the requests made before this scrape.
    const counted = text
      .split('\n')
      .filter((line) => line.startsWith('barometer_http_requests_total{'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    expect(counted).toBe(7);
    expect(
      sample(text, 'barometer_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/v1/sessions',
      }),
    ).toBe(2);
  });
});

describe("GET /metrics: the proxy's receipts", () => {
  it('counts each receipt, its two costs and its two prompts, and the calls whose cache reads departed', async () => {
    app = await buildApp({ logLevel: 'silent', persistSessions: false, dashboard: false });
    await app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: { id: 'r', model: 'claude-sonnet-4-5' },
    });
    const monitor = (app as unknown as { barometerMonitor: SessionMonitor }).barometerMonitor;
    const tokens = (prompt: number, read: number, write: number) => ({
      promptTokens: prompt,
      cacheReadTokens: read,
      cacheWrite5mTokens: write,
      cacheWrite1hTokens: 0,
    });
    const sent = tokens(100_000, 90_000, 10_000);
    // As predicted, then a call where the provider read 40,000 tokens less than the model said (a miss).
    for (const reported of [sent, tokens(100_000, 50_000, 50_000)])
      await monitor.recordReceipt('r', {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        wouldHave: tokens(100_000, 0, 100_000),
        predicted: sent,
        reported,
        completionTokens: 200,
      });
    const text = (await app.inject({ url: '/metrics' })).body;
    expect(sample(text, 'barometer_proxy_receipt_calls_total', { outcome: 'priced' })).toBe(2);
    expect(sample(text, 'barometer_proxy_receipt_calls_total', { outcome: 'departed' })).toBe(1);
    // Anthropic's rules at $3 / $15 per million: writes 1.25×, reads 0.1× the input price.
    const output = (200 * 15) / 1e6;
    const wouldHave = 2 * ((100_000 * 3 * 1.25) / 1e6 + output);
    const billed =
      (90_000 * 0.3 + 10_000 * 3.75) / 1e6 + output + (50_000 * 0.3 + 50_000 * 3.75) / 1e6 + output;
    expect(sample(text, 'barometer_proxy_receipt_cost_usd_total', { side: 'would_have' })).toBeCloseTo(
      wouldHave,
      9,
    );
    expect(sample(text, 'barometer_proxy_receipt_cost_usd_total', { side: 'billed' })).toBeCloseTo(billed, 9);
    expect(sample(text, 'barometer_proxy_receipt_prompt_tokens_total', { side: 'would_have' })).toBe(200_000);
    expect(sample(text, 'barometer_proxy_receipt_prompt_tokens_total', { side: 'sent' })).toBe(200_000);
  });
});

describe('ServiceMetrics.close', () => {
  it('lets a closed service be collected (the default metrics GC observer held its registry, and so every session)', async () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    // Built and closed in a function of its own: nothing here holds the service afterwards.
    const closed = async () => {
      const service = await buildApp({ logLevel: 'silent', persistSessions: false, dashboard: false });
      await service.inject({
        method: 'POST',
        url: '/api/v1/sessions',
        payload: { id: 'kept', model: 'gpt-4o' },
      });
      const monitor = new WeakRef(service.barometerMonitor);
      await service.close();
      return monitor;
    };
    const monitor = await closed();
    await new Promise((resolve) => setTimeout(resolve, 10));
    collect();
    expect(monitor.deref()).toBeUndefined();
  });

  it('gauges each subscription window: used share, burn, minutes to its reset and to running out, whether it binds', async () => {
    const T0 = Date.parse('2026-12-03T10:00:00Z');
    let clock = T0;
    app = await buildApp(
      { logLevel: 'silent', persistSessions: false, dashboard: false },
      { now: () => clock },
    );
    await app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: { id: 'w', model: 'claude-sonnet-4-5' },
    });
    const reset = String((T0 + 120 * 60_000) / 1000);
    for (const [minute, fraction] of [
      [0, '0.2'],
      [30, '0.35'],
    ] as const) {
      clock = T0 + minute * 60_000;
      const posted = await app.inject({
        method: 'POST',
        url: '/api/v1/sessions/w/usage',
        payload: {
          promptTokens: 1000,
          completionTokens: 50,
          headers: {
            'anthropic-ratelimit-unified-5h-utilization': fraction,
            'anthropic-ratelimit-unified-5h-reset': reset,
          },
        },
      });
      expect(posted.statusCode).toBe(200);
    }
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const labels = { window: 'five_hour', label: '5h', source: 'headers' };
    // 20% → 35% in 30 min: 30 points an hour; 65% left lasts 130 min, past the reset 90 min away: it lasts.
    expect(sample(text, 'barometer_window_used_percent', labels)).toBe(35);
    expect(sample(text, 'barometer_window_burn_percent_per_hour', labels)).toBe(30);
    expect(sample(text, 'barometer_window_minutes_to_reset', labels)).toBe(90);
    expect(sample(text, 'barometer_window_minutes_remaining', labels)).toBe(130);
    expect(sample(text, 'barometer_window_binds', labels)).toBe(0);
    // Past its reset the window is gone until an answer reports its new period.
    clock = T0 + 121 * 60_000;
    const later = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(sample(later, 'barometer_window_used_percent', labels)).toBeUndefined();
  });
});
