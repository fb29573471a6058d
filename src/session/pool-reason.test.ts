import { describe, expect, it } from 'vitest';
import { poolReason } from './pool-reason.js';

describe('the pool model of the verdict (seed 000: urgent > high > normal > low)', () => {
  it('says nothing for a session outside any pool', () => {
    expect(poolReason(null, 'normal')).toBeNull();
  });

  it('lets an agent below its ceiling continue', () => {
    const reason = poolReason(
      { poolId: 'team', level: 'MODERATE', usedFraction: 0.6, ceiling: 0.7 },
      'normal',
    );
    expect(reason).toMatchObject({ model: 'pool', action: 'continue' });
    expect(reason?.reason).toBe(
      'pool team holds 60% of its limits (MODERATE), below the normal ceiling of 70%',
    );
  });

  it('defers an agent at or over its ceiling, exactly at the boundary too', () => {
    for (const usedFraction of [0.7, 0.75]) {
      const reason = poolReason({ poolId: 'team', level: 'HIGH', usedFraction, ceiling: 0.7 }, 'normal');
      expect(reason).toMatchObject({ action: 'optimize', priority: 'normal' });
      expect(reason?.reason).toContain('at or over the normal ceiling of 70%');
    }
  });

  it('at a HIGH pool, defers the low-priority agent and lets the urgent one continue', () => {
    const standing = { poolId: 'team', level: 'HIGH' as const, usedFraction: 0.45 };
    expect(poolReason({ ...standing, ceiling: 0.5 }, 'low')).toMatchObject({ action: 'optimize' });
    expect(poolReason({ ...standing, ceiling: 1 }, 'urgent')).toMatchObject({ action: 'continue' });
    expect(poolReason({ ...standing, ceiling: 0.85 }, 'high')).toMatchObject({ action: 'continue' });
  });

  it('defers urgent work only when the budget is spent', () => {
    expect(
      poolReason({ poolId: 'p', level: 'CRITICAL', usedFraction: 0.99, ceiling: 1 }, 'urgent'),
    ).toMatchObject({ action: 'continue' });
    expect(
      poolReason({ poolId: 'p', level: 'CRITICAL', usedFraction: 1, ceiling: 1 }, 'urgent'),
    ).toMatchObject({
      action: 'optimize',
    });
  });
});
