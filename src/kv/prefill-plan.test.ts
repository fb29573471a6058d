import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { prefillPlan } from './prefill-plan.js';

describe('prefillPlan', () => {
  it('fits a prefill no larger than the free cells, in ceil(tokens / nBatch) calls', () => {
    expect(prefillPlan({ remaining: 421, tokens: 421, nBatch: 64 })).toEqual({
      tokens: 421,
      chunks: 7,
      fits: true,
      committed: 421,
    });
  });

  it('says what a larger prefill leaves behind: the whole chunks that found their cells (lloyal: 500 on 421 → 384)', () => {
    // 64-token chunks: six take 384 cells, the seventh needs 64 of the 37 left and fails.
    expect(prefillPlan({ remaining: 421, tokens: 500, nBatch: 64 })).toMatchObject({
      fits: false,
      committed: 384,
    });
    // The last, shorter chunk (500 = 7 × 64 + 52) fails on 12 free cells after seven whole ones.
    expect(prefillPlan({ remaining: 460, tokens: 500, nBatch: 64 })).toMatchObject({
      fits: false,
      committed: 448,
    });
    expect(prefillPlan({ remaining: 63, tokens: 64, nBatch: 64 })).toMatchObject({
      fits: false,
      committed: 0,
    });
  });

  it('fits anything in an unbounded context', () => {
    expect(prefillPlan({ remaining: Number.POSITIVE_INFINITY, tokens: 10_000, nBatch: 512 }).fits).toBe(true);
  });

  it('names the bad field', () => {
    expect(() => prefillPlan({ remaining: 10, tokens: 1.5, nBatch: 4 })).toThrow(BarometerValidationError);
    expect(() => prefillPlan({ remaining: 10, tokens: 1, nBatch: 0 })).toThrow(/nBatch/);
    expect(() => prefillPlan({ remaining: -1, tokens: 1, nBatch: 4 })).toThrow(/remaining/);
  });
});
