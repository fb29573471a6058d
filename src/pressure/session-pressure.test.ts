import { describe, expect, it } from 'vitest';
import { evaluatePressure } from './evaluate.js';
import {
  burnOnRegulatorScale,
  evaluateSessionPressure,
  type SessionPressureInput,
} from './session-pressure.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

/** A session that measured everything but has no budget: the fields each test changes. */
function measured(overrides: Partial<SessionPressureInput> = {}): SessionPressureInput {
  return {
    memoryUsedPercent: 30,
    burnTokensPerMin: 0,
    tpmLimit: 100_000,
    driftPercent: 10,
    sessionAgeSeconds: 60,
    budget: null,
    now: NOW,
    ...overrides,
  };
}

describe('burnOnRegulatorScale (DESIGN.md 000, Units)', () => {
  it('makes the TPM limit 100 on the 0-200 scale, and caps at 200', () => {
    expect(burnOnRegulatorScale(50_000, 100_000)).toBe(50);
    expect(burnOnRegulatorScale(100_000, 100_000)).toBe(100);
    expect(burnOnRegulatorScale(450_000, 100_000)).toBe(200);
  });
  it('cannot scale without a TPM limit', () => expect(burnOnRegulatorScale(50_000, null)).toBeNull());
});

describe('evaluateSessionPressure', () => {
  it('counts what was not measured as 0, each with its note, and invents nothing', () => {
    const answer = evaluateSessionPressure(
      measured({ memoryUsedPercent: null, burnTokensPerMin: 80_000, tpmLimit: null, driftPercent: null }),
    );
    expect(answer.notes).toEqual([
      'memory not measured',
      'burn not scaled: no TPM limit',
      'drift not measured',
      'no token budget',
    ]);
    // viability = (1 − 0)·40 + (1 − 0)·40 + (1 − 0)·20 = 100.
    expect(answer.report.pressure).toMatchObject({
      sessionViability: 100,
      memoryPressure: 0,
      tokenBurnRate: 0,
      contextDrift: 0,
      level: 'LOW',
      suggestedAction: 'continue',
    });
  });

  it('reads the measured figures: memory, burn on the scale, drift', () => {
    const answer = evaluateSessionPressure(
      measured({ memoryUsedPercent: 72, burnTokensPerMin: 55_000, driftPercent: 68 }),
    );
    // The seed's sample {72, 55, 68}: viability 11.2 + 18 + 6.4 = 35.6 → 36, HIGH, compress.
    expect(answer.report.pressure).toMatchObject({
      sessionViability: 36,
      level: 'HIGH',
      suggestedAction: 'compress',
      thresholdsExceeded: ['memory_warning', 'elevated_drift'],
    });
    expect(answer.notes).toEqual(['no token budget']);
  });

  it('without a budget, reports no budget figures and fires no budget rule', () => {
    const pressure = evaluateSessionPressure(measured({ burnTokensPerMin: 90_000 })).report.pressure;
    expect(pressure.estimatedTokensRemaining).toBeNull();
    expect(pressure.estimatedMinutesRemaining).toBeNull();
    expect(pressure.thresholdsExceeded).not.toContain('token_budget_5_percent');
    expect(pressure.thresholdsExceeded).not.toContain('eol_approaching');
  });

  it('with a budget, judges its real share left and its real minutes at the measured burn', () => {
    // 5,000,000 tokens, 4,760,000 used: 240,000 left (4.8%), at 60,000 tokens/min: 4 minutes.
    const answer = evaluateSessionPressure(
      measured({ burnTokensPerMin: 60_000, budget: { total: 5_000_000, used: 4_760_000 } }),
    );
    expect(answer.tokensRemaining).toBe(240_000);
    expect(answer.minutesRemaining).toBe(4);
    expect(answer.report.pressure).toMatchObject({
      estimatedTokensRemaining: 240_000,
      estimatedMinutesRemaining: 4,
      suggestedAction: 'terminate',
    });
    expect(answer.report.pressure.thresholdsExceeded).toEqual(['token_budget_5_percent', 'eol_approaching']);
    expect(answer.terminateCauses).toEqual(['runway_under_5_minutes']);
  });

  it('names the terminate causes as data, in the rule order, and none when it does not terminate', () => {
    expect(evaluateSessionPressure(measured({ memoryUsedPercent: 97 })).terminateCauses).toEqual([
      'memory_over_95',
    ]);
    // memory 100, burn 200, drift 100: viability 0, CRITICAL.
    const critical = evaluateSessionPressure(
      measured({ memoryUsedPercent: 100, burnTokensPerMin: 300_000, driftPercent: 100 }),
    );
    expect(critical.report.pressure.level).toBe('CRITICAL');
    expect(critical.terminateCauses).toEqual(['critical_level', 'memory_over_95']);
    expect(evaluateSessionPressure(measured()).terminateCauses).toEqual([]);
  });

  it('agrees with the stateless regulator on the same figures when the session has them all', () => {
    // A TPM limit of 100 makes the measured tokens/min the seed's scale itself, and the budget lies in the seed's
    // range: the session's real figures and the seed's inputs are then the same figures.
    const session = evaluateSessionPressure(
      measured({
        memoryUsedPercent: 60,
        burnTokensPerMin: 40,
        tpmLimit: 100,
        driftPercent: 30,
        sessionAgeSeconds: 900,
        budget: { total: 100_000, used: 35_000 },
      }),
    ).report;
    const stateless = evaluatePressure(
      {
        memoryUsedPercent: 60,
        tokenBurnRatePerMin: 40,
        contextDriftPercent: 30,
        sessionAgeSeconds: 900,
        tokenBudgetTotal: 100_000,
        tokenBudgetUsed: 35_000,
      },
      { now: NOW },
    );
    expect(session).toEqual(stateless);
    expect(session.pressure.estimatedMinutesRemaining).toBe(1625);
  });
});
