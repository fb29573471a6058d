import { describe, expect, it } from 'vitest';
import { normalizeAnthropic } from '../usage/normalize-anthropic.js';
import { SessionMonitor } from './session-monitor.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const call = (uncached: number, write: number, read: number, output: number, model = 'claude-sonnet-4-5') =>
  normalizeAnthropic({
    model,
    usage: {
      input_tokens: uncached,
      cache_creation_input_tokens: write,
      cache_read_input_tokens: read,
      output_tokens: output,
    },
  });

describe('money: each call priced, the session cumulative', () => {
  it('prices a call at the registry price and keeps the session cost and cache share', async () => {
    const monitor = new SessionMonitor({ now: () => T0 });
    await monitor.create({ id: 'money', model: 'claude-sonnet-4-5' });
    // models.dev: claude-sonnet-4-5 at $3 input, $3.75 cache write, $0.30 cache read, $15 output per million.
    const first = await monitor.postUsage('money', { usage: call(1000, 20_000, 0, 500), timestamp: T0 });
    // 1,000 × 3 + 20,000 × 3.75 + 500 × 15 = 3,000 + 75,000 + 7,500 = 85,500 micro-dollars.
    expect(first.costUsd).toBeCloseTo(0.0855, 10);
    const second = await monitor.postUsage('money', {
      usage: call(200, 0, 21_000, 300),
      timestamp: T0 + 5000,
    });
    // 200 × 3 + 21,000 × 0.3 + 300 × 15 = 600 + 6,300 + 4,500 = 11,400 micro-dollars.
    expect(second.costUsd).toBeCloseTo(0.0114, 10);
    expect(second.signals.costUsd).toBeCloseTo(0.0969, 10);
    // 21,000 of 42,200 prompt tokens were read from the cache: 49.8%.
    expect(second.signals.cacheHitPercent).toBe(49.8);
    const [summary] = await monitor.list();
    expect(summary?.signals).toMatchObject({ costUsd: 0.0969, cacheHitPercent: 49.8 });
  });

  it('answers null, never a guess, for a model without a price', async () => {
    const monitor = new SessionMonitor({ now: () => T0 });
    await monitor.create({ id: 'unpriced', model: 'my-local-model', contextWindow: 32_000 });
    const answer = await monitor.postUsage('unpriced', {
      usage: call(1000, 0, 0, 10, 'my-local-model'),
      timestamp: T0,
    });
    expect(answer.costUsd).toBeNull();
    expect(answer.signals.costUsd).toBeNull();
    expect(answer.signals.cacheHitPercent).toBe(0);
  });
});
