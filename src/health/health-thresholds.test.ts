import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../models/resolve-profile.js';
import { healthThresholds } from './health-thresholds.js';

describe('healthThresholds', () => {
  it('gives critical 244,800 for limit 272,000 and optimal 200,000 (appendix vector)', () => {
    expect(healthThresholds({ contextLength: 272_000, optimalMaxTokens: 200_000 })).toEqual({
      limit: 272_000,
      optimal: 200_000,
      critical: 244_800,
    });
  });

  it('defaults optimal to 100,000 and leaves limit and critical unknown without a window', () => {
    expect(healthThresholds({})).toEqual({ limit: undefined, optimal: 100_000, critical: undefined });
    expect(healthThresholds()).toEqual({ limit: undefined, optimal: 100_000, critical: undefined });
  });

  it('takes context_length before input_length, and input_length when it is the only one', () => {
    expect(healthThresholds({ contextLength: 400_000, inputLength: 272_000 }).limit).toBe(400_000);
    expect(healthThresholds({ inputLength: 128_000 })).toMatchObject({ limit: 128_000, critical: 115_200 });
  });

  it('measures against the effective window when the profile has one', () => {
    // Codex on gpt-5.3-codex: 258,400 · 0.9 = 232,560.
    expect(healthThresholds({ effectiveWindow: 258_400, contextLength: 400_000 })).toMatchObject({
      limit: 258_400,
      critical: 232_560,
    });
  });

  it('floors 90% of the limit', () => {
    // 200,001 · 0.9 = 180,000.9
    expect(healthThresholds({ contextLength: 200_001 }).critical).toBe(180_000);
  });

  it('uses configured thresholds as given', () => {
    expect(
      healthThresholds({ contextLength: 200_000, optimalMaxTokens: 80_000, criticalMaxTokens: 150_000 }),
    ).toEqual({ limit: 200_000, optimal: 80_000, critical: 150_000 });
  });

  it('gives a Claude Code session on claude-opus-4-6 a critical line of 150,300', () => {
    // effective window 167,000 · 0.9 = 150,300, not 900,000 from the listed 1M.
    const profile = resolveProfile('claude-opus-4-6', { agent: 'claude-code' });
    expect(profile).toBeDefined();
    expect(healthThresholds(profile)).toEqual({ limit: 167_000, optimal: 100_000, critical: 150_300 });
  });
});
