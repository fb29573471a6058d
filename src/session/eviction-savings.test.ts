import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../usage/usage-record.js';
import type { Evicted } from './eviction-savings.js';
import { SessionMonitor } from './session-monitor.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const usage = (promptTokens: number): UsageRecord => ({
  available: true,
  source: 'manual',
  promptTokens,
  completionTokens: 100,
  totalTokens: promptTokens + 100,
  cachedReadTokens: 0,
  cachedWriteTokens: 0,
  reasoningTokens: 0,
});
const evicted = (tokensFreed: number, subTask: string): Evicted => ({
  items: 3,
  tokensFreed,
  subTask,
  boundary: 'command: git commit -qm "first part read"',
  archive: { sessionId: 's', taskId: subTask },
});

async function session() {
  let now = T0;
  const monitor = new SessionMonitor({ now: () => now });
  await monitor.create({ id: 's', model: 'claude-sonnet-4-5', agent: 'claude-code' });
  const call = async (prompt: number) => {
    now += 1000;
    await monitor.postUsage('s', { usage: usage(prompt) });
  };
  return { monitor, call };
}

describe('what barometer’s evictions saved', () => {
  it('counts each eviction’s freed tokens once per call recorded after it', async () => {
    const { monitor, call } = await session();
    for (let index = 0; index < 4; index++) await call(40_000 + index * 1000);
    await monitor.recordCompaction('s', {
      trigger: 'barometer-proxy',
      before: 43_000,
      after: 23_000,
      evicted: evicted(20_000, 'subtask-1'),
    });
    expect((await monitor.view('s')).evictions).toEqual({
      evictions: 1,
      items: 3,
      tokensFreed: 20_000,
      tokensNotResent: 0,
    });
    for (let index = 0; index < 3; index++) await call(24_000);
    await monitor.recordCompaction('s', {
      trigger: 'barometer-proxy',
      before: 24_000,
      after: 19_000,
      evicted: evicted(5_000, 'subtask-2'),
    });
    await call(20_000);
    await call(21_000);
    const view = await monitor.view('s');
    // The first eviction was carried by the 5 calls after it, the second by 2: 20,000 × 5 + 5,000 × 2.
    expect(view.evictions?.tokensNotResent).toBe(20_000 * 5 + 5_000 * 2);
    expect(view.evictions?.tokensFreed).toBe(25_000);
    expect(view.evictions?.evictions).toBe(2);
    // Each eviction is a marker with what it removed, at the calls made before it.
    const markers = view.markers.filter((marker) => marker.evicted);
    expect(markers.map((marker) => [marker.index, marker.evicted?.subTask])).toEqual([
      [4, 'subtask-1'],
      [7, 'subtask-2'],
    ]);
    expect(markers[0]?.detail).toBe('barometer evicted 3 items (20000 tokens) of subtask-1');
  });

  it('stops counting once the agent’s own compaction summarised the tombstones away', async () => {
    const { monitor, call } = await session();
    await call(30_000);
    await monitor.recordCompaction('s', {
      trigger: 'barometer-proxy',
      before: 30_000,
      after: 20_000,
      evicted: evicted(10_000, 'subtask-1'),
    });
    await call(21_000);
    await call(22_000);
    await monitor.recordCompaction('s', { trigger: 'auto', before: 22_000, after: 4_000 });
    await call(5_000);
    await call(6_000);
    expect((await monitor.view('s')).evictions?.tokensNotResent).toBe(10_000 * 2);
  });

  it('answers null before any eviction, and a session without one reads as before', async () => {
    const { monitor, call } = await session();
    await call(30_000);
    await monitor.recordCompaction('s', { trigger: 'barometer', before: 30_000, after: 25_000 });
    const view = await monitor.view('s');
    expect(view.evictions).toBeNull();
    expect(view.markers[0]?.evicted).toBeUndefined();
  });
});
