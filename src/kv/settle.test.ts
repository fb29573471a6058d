import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { contextPressure } from './context-pressure.js';
import { settle } from './settle.js';

// 14,000 of 16,384 cells: remaining 2,384, headroom 1,360 (appendix vector).
const roomy = contextPressure({ nCtx: 16384, cellsUsed: 14000 });
// 15,800 of 16,384: remaining 584 ≥ hardLimit 128 (not critical), headroom −440.
const overBudget = contextPressure({ nCtx: 16384, cellsUsed: 15800 });
const unbounded = contextPressure({ nCtx: 0, cellsUsed: 50_000 });

describe('settle', () => {
  it('accepts results in order while the shrinking headroom holds them', () => {
    const result = settle(roomy, [
      { id: 'a', tokens: 1000 },
      { id: 'b', tokens: 300 },
      { id: 'c', tokens: 100 },
    ]);
    // 1000 ≤ 1360 → 360 left; 300 ≤ 360 → 60 left; 100 > 60.
    expect(result.accepted).toEqual(['a', 'b']);
    expect(result.rejected).toEqual(['c']);
    expect(result.headroomAfter).toBe(60);
    expect(result.decisions.map((decision) => [decision.code, decision.headroomBefore])).toEqual([
      ['fits', 1360],
      ['fits', 360],
      ['exceeds_headroom', 60],
    ]);
  });

  it('rejects every result after the first that does not fit', () => {
    const result = settle(roomy, [
      { id: 'big', tokens: 2000 },
      { id: 'small', tokens: 10 },
    ]);
    expect(result.accepted).toEqual([]);
    expect(result.decisions.map((decision) => decision.code)).toEqual([
      'exceeds_headroom',
      'after_rejection',
    ]);
    expect(result.headroomAfter).toBe(1360);
  });

  it('accepts a result that exactly fills the headroom', () => {
    expect(settle(roomy, [{ id: 'exact', tokens: 1360 }]).accepted).toEqual(['exact']);
  });

  it('rejects everything, even an empty result, when headroom is negative', () => {
    const result = settle(overBudget, [
      { id: 'empty', tokens: 0 },
      { id: 'x', tokens: 5 },
    ]);
    expect(result.rejected).toEqual(['empty', 'x']);
    expect(result.decisions[0]?.reason).toContain('headroom of -440');
  });

  it('accepts everything when the context has no limit', () => {
    const result = settle(unbounded, [{ id: 'huge', tokens: 10_000_000 }]);
    expect(result.accepted).toEqual(['huge']);
    expect(result.headroomAfter).toBe(Number.POSITIVE_INFINITY);
  });

  it('names a bad token count', () => {
    try {
      settle(roomy, [{ id: 'a', tokens: -1 }]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(BarometerValidationError);
      expect((error as BarometerValidationError).issues[0]?.field).toBe('[0].tokens');
    }
  });
});

describe('settle against a prefill that would half-commit', () => {
  it('says would_half_commit when a result exceeds the free cells, with what nBatch chunks would write', () => {
    // 603 of 1,024 cells with no soft limit: 421 free.
    const pressure = contextPressure({ nCtx: 1024, cellsUsed: 603, softLimit: 0, nBatch: 64 });
    const result = settle(pressure, [
      { id: 'small', tokens: 21 },
      { id: 'big', tokens: 500 },
    ]);
    expect(result.decisions.map((decision) => decision.code)).toEqual(['fits', 'would_half_commit']);
    // After 'small', 400 cells are free: 500 tokens in chunks of 64 would write six (384) and fail.
    expect(result.decisions[1]?.reason).toContain('500 tokens exceed the 400 free KV cells');
    expect(result.decisions[1]?.reason).toContain('384 written in chunks of 64');
  });

  it('keeps exceeds_headroom for a result that fits the cells but not the soft limit', () => {
    const pressure = contextPressure({ nCtx: 1024, cellsUsed: 603, softLimit: 256 });
    expect(settle(pressure, [{ id: 'mid', tokens: 300 }]).decisions[0]?.code).toBe('exceeds_headroom');
  });
});
