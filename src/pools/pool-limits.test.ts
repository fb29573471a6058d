import { describe, expect, it } from 'vitest';
import { ceilingShare, poolPressure, priorityLimits, resolvePoolConfig } from './pool-limits.js';
import { DEFAULT_PRIORITY_CEILINGS } from './pool-schemas.js';

const figures = {
  tokenBudget: 10_000,
  tokensPerMinute: null,
  requestsPerMinute: null,
  priorityCeilings: { ...DEFAULT_PRIORITY_CEILINGS },
  used: 0,
  reserved: 0,
  lastMinute: null,
};

describe('ceilingShare', () => {
  it('rounds down to whole tokens, but not below an integer a rounding error away', () => {
    expect(ceilingShare(10_000, 0.7)).toBe(7000);
    expect(ceilingShare(100, 0.57)).toBe(57);
    expect(ceilingShare(999, 0.57)).toBe(569);
    expect(ceilingShare(3, 0.5)).toBe(1);
    expect(ceilingShare(1e15, 0.85)).toBe(850_000_000_000_000);
  });

  it('computes every limit per priority once', () => {
    expect(
      priorityLimits(resolvePoolConfig({ id: 'p', tokenBudget: 10_000, requestsPerMinute: 10 })),
    ).toEqual({
      budget: { low: 5000, normal: 7000, high: 8500, urgent: 10_000 },
      tokensPerMinute: null,
      requestsPerMinute: { low: 5, normal: 7, high: 8, urgent: 10 },
    });
  });
});

describe('poolPressure', () => {
  it('maps (used + reserved) / budget onto the ceilings: LOW < 0.5 ≤ MODERATE < 0.7 ≤ HIGH < 0.85 ≤ CRITICAL', () => {
    const at = (used: number, reserved = 0) => poolPressure({ ...figures, used, reserved });
    expect(at(4999)).toEqual({ level: 'LOW', usedFraction: 0.4999 });
    expect(at(2500, 2500)).toEqual({ level: 'MODERATE', usedFraction: 0.5 });
    expect(at(6999).level).toBe('MODERATE');
    expect(at(6000, 1000)).toEqual({ level: 'HIGH', usedFraction: 0.7 });
    expect(at(8500).level).toBe('CRITICAL');
    expect(at(12_000)).toEqual({ level: 'CRITICAL', usedFraction: 1.2 });
  });

  it('takes the most pressed limit, and follows custom ceilings', () => {
    expect(
      poolPressure({
        ...figures,
        used: 1000,
        tokensPerMinute: 1000,
        requestsPerMinute: 100,
        lastMinute: { tokens: 600, requests: 90 },
      }),
    ).toEqual({ level: 'CRITICAL', usedFraction: 0.9 });
    expect(
      poolPressure({
        ...figures,
        used: 3000,
        priorityCeilings: { low: 0.2, normal: 0.3, high: 0.9, urgent: 1 },
      }).level,
    ).toBe('HIGH');
  });

  it('is LOW for a pool with per-minute limits only and an empty window', () => {
    expect(
      poolPressure({
        ...figures,
        tokenBudget: null,
        tokensPerMinute: 100,
        lastMinute: { tokens: 0, requests: 0 },
      }),
    ).toEqual({ level: 'LOW', usedFraction: 0 });
  });
});
