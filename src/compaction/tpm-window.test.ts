import { describe, expect, it } from 'vitest';
import { HeadroomValidationError } from '../errors/validation.js';
import { TpmWindow, tokensInWindow } from './tpm-window.js';

describe('TpmWindow', () => {
  it('sums the tokens of the last 60 seconds', () => {
    const window = new TpmWindow();
    window.record(0, 100);
    window.record(30_000, 200);
    window.record(59_000, 300);
    expect(window.used(59_999)).toBe(600);
    // At 60,000 the event at 0 is exactly 60 s old: out of the window (now − 60 s, now].
    expect(window.used(60_000)).toBe(500);
    expect(window.used(90_000)).toBe(300);
    expect(window.used(119_000)).toBe(0);
  });

  it('says how many tokens a limit leaves, negative when over', () => {
    const window = new TpmWindow();
    window.record(1_000, 700_000);
    window.record(2_000, 400_000);
    expect(window.left(10_000, 1_000_000)).toBe(-100_000);
    expect(window.left(61_500, 1_000_000)).toBe(600_000);
  });

  it('keeps at most maxEvents events, merging the oldest so usage is never understated', () => {
    const window = new TpmWindow({ maxEvents: 4 });
    for (let second = 0; second < 10; second += 1) window.record(second * 1000, 10);
    const events = window.events(9_000);
    expect(events.length).toBeLessThanOrEqual(4);
    expect(window.used(9_000)).toBe(100);
    // The merged events sit at the later time: at 65 s, the 6 events from 0–5 s would have left exactly,
    // the merged ones stay a little longer (conservative), never shorter.
    expect(window.used(65_000)).toBeGreaterThanOrEqual(40);
  });

  it('places an out-of-order event at the latest time seen', () => {
    const window = new TpmWindow();
    window.record(10_000, 5);
    window.record(1_000, 7);
    expect(window.events(10_000)).toEqual([
      { at: 10_000, tokens: 5 },
      { at: 10_000, tokens: 7 },
    ]);
    expect(window.used(69_999)).toBe(12);
  });

  it('holds memory bounded over a long run', () => {
    const window = new TpmWindow();
    for (let index = 0; index < 100_000; index += 1) window.record(index * 100, 1);
    // 600 events fit in 60 s at one event per 100 ms.
    expect(window.events(9_999_900)).toHaveLength(600);
  });

  it('rejects negative tokens and bad options', () => {
    expect(() => new TpmWindow().record(0, -1)).toThrow(HeadroomValidationError);
    expect(() => new TpmWindow({ windowMs: 0 })).toThrow(HeadroomValidationError);
  });
});

describe('tokensInWindow', () => {
  it('counts events later than now (a lagging clock must not hide usage)', () => {
    expect(
      tokensInWindow(
        [
          { at: 100_000, tokens: 1 },
          { at: 40_000, tokens: 2 },
          { at: 39_999, tokens: 4 },
        ],
        99_999,
      ),
    ).toBe(3);
  });
});
