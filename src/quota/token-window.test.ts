import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addTokens,
  emptyTokenWindow,
  type TokenWindow,
  TokenWindowSchema,
  type TokenWindowSpec,
  tokensInWindow,
  windowEntries,
  windowExpiryAtMost,
  windowTokens,
} from './token-window.js';

const MINUTE: TokenWindowSpec = { windowMs: 60_000, buckets: 60 };

function fill(spec: TokenWindowSpec, records: Array<[number, number]>): TokenWindow {
  let window = emptyTokenWindow(spec);
  for (const [at, tokens] of records) window = addTokens(window, spec, at, tokens);
  return window;
}

describe('token window', () => {
  it('sums the tokens of the last window and forgets older ones', () => {
    const window = fill(MINUTE, [
      [0, 100],
      [30_000, 200],
      [59_000, 300],
    ]);
    expect(windowTokens(window, MINUTE, 59_000)).toBe(600);
    // At 60 s the bucket of time 0 has left the window.
    expect(windowTokens(window, MINUTE, 60_000)).toBe(500);
    expect(windowTokens(window, MINUTE, 119_000)).toBe(0);
  });

  it('stays exact for a steady stream far longer than the window (regression: merged entries never expired)', () => {
    let window = emptyTokenWindow(MINUTE);
    // 5,000 tokens every 2 s: always exactly 30 calls, 150,000 tokens, in the last minute.
    for (let call = 0; call < 1_000; call++) {
      const at = call * 2_000;
      window = addTokens(window, MINUTE, at, 5_000);
      if (call >= 30) expect(windowTokens(window, MINUTE, at)).toBe(150_000);
    }
  });

  it('measures a five-minute window in ten-second buckets', () => {
    const spec = { windowMs: 300_000, buckets: 30 };
    let window = emptyTokenWindow(spec);
    for (let call = 0; call < 600; call++) window = addTokens(window, spec, call * 5_000, 1_000);
    // The last 300 s hold 60 calls.
    expect(windowTokens(window, spec, 599 * 5_000)).toBe(60_000);
  });

  it('counts a late record in its own bucket while that is inside the window, and drops older ones', () => {
    const window = fill(MINUTE, [
      [50_000, 1],
      [40_000, 2],
      [-30_000, 4],
    ]);
    expect(windowTokens(window, MINUTE, 50_000)).toBe(3);
    expect(windowTokens(window, MINUTE, 100_500)).toBe(1);
  });

  it('lists non-empty buckets with their start times', () => {
    const window = fill(MINUTE, [
      [10_500, 7],
      [12_100, 3],
    ]);
    expect(windowEntries(window, MINUTE, 20_000)).toEqual([
      { at: 10_000, tokens: 7 },
      { at: 12_000, tokens: 3 },
    ]);
  });

  it('leaves the window it was given untouched and stays plain JSON', () => {
    const before = fill(MINUTE, [[1_000, 5]]);
    const copy = JSON.parse(JSON.stringify(before));
    const after = addTokens(before, MINUTE, 2_000, 9);
    expect(before).toEqual(copy);
    expect(TokenWindowSchema.parse(JSON.parse(JSON.stringify(after)))).toEqual(after);
    expect(windowTokens(after, MINUTE, 2_000)).toBe(14);
  });

  it('refuses counts that are not a non-empty array of finite numbers >= 0, naming the field', () => {
    // The rule of z.array(z.number().min(0)).min(1), checked in one pass (decision 091).
    expect(TokenWindowSchema.safeParse({ latest: 3, counts: [0, 1.5, 42_900] }).success).toBe(true);
    for (const counts of [
      [],
      [0, -1],
      [0, '5'],
      [Number.NaN],
      [Number.POSITIVE_INFINITY],
      'nope',
      { 0: 1 },
      null,
    ]) {
      const parsed = TokenWindowSchema.safeParse({ latest: 3, counts });
      expect(parsed.success, JSON.stringify(counts)).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(['counts']);
    }
  });

  it('sums, walking the ring slot by slot, what its listed entries hold, at any time and any ring position', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: -200_000, max: 2_000_000 }), fc.integer({ min: 0, max: 50_000 })),
          { maxLength: 80 },
        ),
        fc.integer({ min: -300_000, max: 2_200_000 }),
        (records, now) => {
          const window = fill(MINUTE, records);
          const listed = windowEntries(window, MINUTE, now).reduce((sum, entry) => sum + entry.tokens, 0);
          expect(windowTokens(window, MINUTE, now)).toBe(listed);
        },
      ),
    );
  });

  it('leaves the window it is given as it was', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: -200_000, max: 2_000_000 }), fc.integer({ min: 0, max: 50_000 })),
          { maxLength: 80 },
        ),
        (records) => {
          let window = emptyTokenWindow(MINUTE);
          for (const [at, tokens] of records) {
            const before = JSON.stringify(window);
            const next = addTokens(window, MINUTE, at, tokens);
            expect(JSON.stringify(window)).toBe(before);
            expect(next.counts).not.toBe(window.counts);
            window = next;
          }
        },
      ),
    );
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

describe('windowExpiryAtMost', () => {
  // What the quota runway computed before, from the listed entries.
  function byEntries(window: TokenWindow, spec: TokenWindowSpec, now: number, maxTokens: number) {
    let used = windowTokens(window, spec, now);
    if (used <= maxTokens) return now;
    for (const entry of windowEntries(window, spec, now)) {
      used -= entry.tokens;
      if (used <= maxTokens) return entry.at + spec.windowMs;
    }
    return null;
  }

  it('gives the end of the oldest bucket whose expiry brings the window under the limit, as the entries do', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 300_000 }), fc.integer({ min: 0, max: 5000 })), {
          maxLength: 40,
        }),
        fc.integer({ min: 0, max: 400_000 }),
        fc.integer({ min: -10, max: 50_000 }),
        (records, now, maxTokens) => {
          const window = fill(MINUTE, records);
          expect(windowExpiryAtMost(window, MINUTE, now, maxTokens)).toBe(
            byEntries(window, MINUTE, now, maxTokens),
          );
        },
      ),
    );
  });

  it('gives the same answer when the caller passes the tokens it already read', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: -100_000, max: 200_000 }), fc.integer({ min: 0, max: 5_000 })), {
          maxLength: 60,
        }),
        fc.integer({ min: -100_000, max: 300_000 }),
        fc.integer({ min: -10, max: 50_000 }),
        (records, now, maxTokens) => {
          const window = fill(MINUTE, records);
          const used = windowTokens(window, MINUTE, now);
          expect(windowExpiryAtMost(window, MINUTE, now, maxTokens, used)).toBe(
            byEntries(window, MINUTE, now, maxTokens),
          );
        },
      ),
    );
  });

  it('answers now when the window already holds at most the limit, and null when it never will', () => {
    const window = fill(MINUTE, [[1000, 300]]);
    expect(windowExpiryAtMost(window, MINUTE, 2000, 300)).toBe(2000);
    expect(windowExpiryAtMost(window, MINUTE, 2000, 100)).toBe(61_000);
    expect(windowExpiryAtMost(emptyTokenWindow(MINUTE), MINUTE, 2000, -1)).toBeNull();
  });
});
