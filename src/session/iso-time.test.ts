import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes, for any time a date can hold', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  it('writes what toISOString writes around second, year and epoch boundaries, in any order', () => {
    const times = [
      0, -1, 1, 999, 1000, 1001, -999, -1000, -1001, 1_795_383_463_672, 1_795_383_463_000, 1_795_383_463_999,
      -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15,
    ];
    for (const ms of [...times, ...times.reverse()]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('truncates a fraction of a millisecond as a date does', () => {
    for (const ms of [1_795_383_463_672.9, 0.5, -0.5, -1000.25]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('throws the RangeError of toISOString for a time a date cannot hold', () => {
    for (const ms of [Number.NaN, 8.64e15 + 1, Number.POSITIVE_INFINITY]) {
      expect(() => isoTime(ms)).toThrow(RangeError);
    }
  });
});
