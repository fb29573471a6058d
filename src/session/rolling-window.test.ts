import { describe, expect, it } from 'vitest';
import { RollingWindow } from './rolling-window.js';

describe('RollingWindow', () => {
  it('sums the tokens of the last window and forgets older ones', () => {
    const window = new RollingWindow(60_000, 60);
    window.add(0, 100);
    window.add(30_000, 200);
    window.add(59_000, 300);
    expect(window.sum(59_000)).toBe(600);
    // At 60 s the bucket of time 0 has left the window.
    expect(window.sum(60_000)).toBe(500);
    expect(window.sum(119_000)).toBe(0);
  });

  it('stays exact for a steady stream far longer than the window (regression: merged entries never expired)', () => {
    const window = new RollingWindow(60_000, 60);
    // 5,000 tokens every 2 s: always exactly 30 calls, 150,000 tokens, in the last minute.
    for (let call = 0; call < 1_000; call++) {
      const at = call * 2_000;
      window.add(at, 5_000);
      if (call >= 30) expect(window.sum(at)).toBe(150_000);
    }
  });

  it('measures a five-minute window in ten-second buckets', () => {
    const window = new RollingWindow(300_000, 30);
    for (let call = 0; call < 600; call++) window.add(call * 5_000, 1_000);
    // The last 300 s hold 60 calls.
    expect(window.sum(599 * 5_000)).toBe(60_000);
  });

  it('counts a late record in its own bucket while that is inside the window, and drops older ones', () => {
    const window = new RollingWindow(60_000, 60);
    window.add(50_000, 1);
    window.add(40_000, 2);
    window.add(-30_000, 4);
    expect(window.sum(50_000)).toBe(3);
    expect(window.sum(100_500)).toBe(1);
  });

  it('lists non-empty buckets with their start times', () => {
    const window = new RollingWindow(60_000, 60);
    window.add(10_500, 7);
    window.add(12_100, 3);
    expect(window.entries(20_000)).toEqual([
      { at: 10_000, tokens: 7 },
      { at: 12_000, tokens: 3 },
    ]);
  });
});
