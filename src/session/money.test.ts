import { describe, expect, it } from 'vitest';
import { priceOfModel } from '../models/resolve-profile.js';
import { normalizeAnthropic } from '../usage/normalize-anthropic.js';
import type { SessionLog } from '../usage/session-log.js';
import { costOfUsage } from '../usage/usage-cost.js';
import { replaySessionLog } from './replay.js';
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

describe('money: one price for a call, in a live session and in replay', () => {
  const calls = [
    call(2000, 30_000, 0, 400, 'claude-opus-4-6'),
    call(300, 1000, 30_000, 200, 'claude-opus-4-6'),
    // The user switched to Haiku: these are billed at Haiku's prices, not the session's first model's.
    call(500, 31_000, 0, 300, 'claude-haiku-4-5'),
    call(100, 0, 31_500, 150, 'claude-haiku-4-5'),
  ];

  it('prices each call at its own model: the live total equals the replay of the same calls', async () => {
    const monitor = new SessionMonitor({ now: () => T0 });
    await monitor.create({ id: 'switch', model: 'claude-opus-4-6', agent: 'claude-code' });
    let live = 0;
    for (const [index, usage] of calls.entries())
      live += (await monitor.postUsage('switch', { usage, timestamp: T0 + index * 1000 })).costUsd ?? 0;
    const log: SessionLog = {
      format: 'claude-code',
      calls: calls.map((usage, index) => ({
        index,
        timestamp: new Date(T0 + index * 1000).toISOString(),
        model: (usage as { model: string }).model,
        usage,
      })),
      compactions: [],
      skippedLines: [],
    };
    const replayed = replaySessionLog({ ...log, model: 'claude-haiku-4-5' });
    // Anthropic's pricing page: opus-4-6 $5 in, $6.25 5m write, $0.50 read, $25 out; haiku-4-5 $1, $1.25, $0.10, $5.
    const opus =
      (2000 * 5 + 30_000 * 6.25 + 400 * 25 + 300 * 5 + 1000 * 6.25 + 30_000 * 0.5 + 200 * 25) / 1e6;
    const haiku = (500 * 1 + 31_000 * 1.25 + 300 * 5 + 100 * 1 + 31_500 * 0.1 + 150 * 5) / 1e6;
    expect(live).toBeCloseTo(opus + haiku, 10);
    expect(replayed.summary.costUsd).toBeCloseTo(live, 6);
    const [summary] = await monitor.list();
    expect(summary?.signals.costUsd).toBeCloseTo(live, 6);
  });

  it('prices 1-hour cache writes at twice the input price, 5-minute ones at the cache-write price', () => {
    const record = normalizeAnthropic({
      model: 'claude-sonnet-4-5',
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 3000,
        cache_read_input_tokens: 0,
        output_tokens: 20,
        cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
      },
    });
    expect(record).toMatchObject({ cachedWriteTokens: 3000, cachedWrite1hTokens: 2000 });
    // $3 input, $3.75 5-minute write, $6 1-hour write (2 × $3), $15 output per million.
    expect(costOfUsage(record, priceOfModel('claude-sonnet-4-5'))).toBeCloseTo(
      (10 * 3 + 1000 * 3.75 + 2000 * 6 + 20 * 15) / 1e6,
      12,
    );
  });
});
