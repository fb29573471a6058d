import { describe, expect, it } from 'vitest';
import { RollingWindow } from './rolling-window.js';

describe('RollingWindow', () => {
  it('sums the tokens of the last window and forgets older ones', () => {
    const window = new RollingWindow(60_000);
    window.add(0, 100);
    window.add(30_000, 200);
    window.add(59_000, 300);
    expect(window.sum(59_000)).toBe(600);
    // At 60 s the entry of time 0 is exactly one window old: out.
    expect(window.sum(60_000)).toBe(500);
    expect(window.sum(119_000)).toBe(0);
  });

  it('keeps sums exact when more calls than its capacity fall in the window', () => {
    const window = new RollingWindow(60_000, 4);
    for (let index = 0; index < 10; index++) window.add(index * 1000, 10);
    expect(window.sum(10_000)).toBe(100);
    expect(window.entries(10_000)).toHaveLength(4);
  });

  it('sums a shorter window out of the same ring', () => {
    const window = new RollingWindow(300_000);
    window.add(0, 100);
    window.add(200_001, 200);
    window.add(250_000, 300);
    expect(window.sum(260_000)).toBe(600);
    expect(window.sum(260_000, 60_000)).toBe(500);
    expect(window.entries(260_000, 30_000)).toEqual([{ at: 250_000, tokens: 300 }]);
  });

  it('treats a time earlier than the last as the latest, so that out-of-order records are not lost', () => {
    const window = new RollingWindow(60_000);
    window.add(50_000, 1);
    window.add(40_000, 2);
    expect(window.sum(100_000)).toBe(3);
  });
});
