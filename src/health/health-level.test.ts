import { describe, expect, it } from 'vitest';
import { healthLevel } from './health-level.js';
import { healthThresholds } from './health-thresholds.js';

describe('healthLevel', () => {
  const thresholds = healthThresholds({ contextLength: 272_000, optimalMaxTokens: 200_000 });

  it('is caution at 210,000 and healthy at 120,000 (appendix vectors)', () => {
    expect(healthLevel(210_000, thresholds)).toBe('caution');
    expect(healthLevel(120_000, thresholds)).toBe('healthy');
  });

  it('is critical only above the critical threshold', () => {
    expect(healthLevel(244_800, thresholds)).toBe('caution');
    expect(healthLevel(244_801, thresholds)).toBe('critical');
  });

  it('is caution only above the optimal threshold', () => {
    expect(healthLevel(200_000, thresholds)).toBe('healthy');
    expect(healthLevel(200_001, thresholds)).toBe('caution');
  });

  it('is unknown when usage is unavailable or not a count', () => {
    expect(healthLevel(undefined, thresholds)).toBe('unknown');
    expect(healthLevel(Number.NaN, thresholds)).toBe('unknown');
    expect(healthLevel(-1, thresholds)).toBe('unknown');
  });

  it('never reaches critical without a window or a critical threshold', () => {
    expect(healthLevel(5_000_000, healthThresholds({}))).toBe('caution');
  });
});
