import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { evaluatePressure, evaluateResolved, safeEvaluatePressure, viability } from './evaluate.js';
import { parsePressureInput } from './parse.js';
import { resolvePressureInput } from './resolve-input.js';
import { PressureInputSchema, PressureReportSchema } from './schemas.js';
import type { PressureInput } from './types.js';

const now = Date.UTC(2026, 1, 17, 15, 30, 45, 123);
const evaluate = (input: PressureInput) => evaluatePressure(input, { now });

/** Seed 000's "Sample Test Input". */
const SAMPLE: PressureInput = {
  memoryUsedPercent: 72,
  tokenBurnRatePerMin: 55,
  contextDriftPercent: 68,
  sessionAgeSeconds: 2700,
  tokenBudgetTotal: 100000,
  tokenBudgetUsed: 62000,
  contextWindowMaxBytes: 200000,
  contextWindowUsedBytes: 144000,
  systemMode: 'production',
};

describe('evaluatePressure on the seed sample', () => {
  it('gives viability 36, HIGH, compress with memory_warning and elevated_drift', () => {
    // (1-.72)*40 + (1-.55)*40 + (1-.68)*20 = 11.2 + 18 + 6.4 = 35.6
    const report = evaluate(SAMPLE);
    expect(report.pressure.sessionViability).toBe(36);
    expect(report.pressure.level).toBe('HIGH');
    expect(report.pressure.suggestedAction).toBe('compress');
    expect(report.pressure.thresholdsExceeded).toEqual(['memory_warning', 'elevated_drift']);
    expect(report.pressure.estimatedTokensRemaining).toBe(38000);
    // 38000 / 55 = 690.909…
    expect(report.pressure.estimatedMinutesRemaining).toBe(690.9);
    // 55 / 35 = 1.5714…
    expect(report.pressure.burnRateAcceleration).toBe(1.57);
    expect(report.pressure.recommendations).toEqual({
      shouldCompress: true,
      shouldOptimize: true,
      shouldTerminate: false,
      priority: 'high',
    });
    expect(report.metadata).toEqual({ systemMode: 'production', agentProfile: 'balanced' });
  });

  it('stamps whole seconds in UTC', () => {
    expect(evaluate(SAMPLE).timestamp).toBe('2026-02-17T15:30:45Z');
    expect(evaluatePressure(SAMPLE, { now: new Date(now) }).timestamp).toBe('2026-02-17T15:30:45Z');
  });
});

describe('evaluatePressure on the seed examples, recomputed with the equation', () => {
  // The seed printed 88, 62, 38 and 18; its own equation gives these (DESIGN.md).
  const cases = [
    {
      name: 'example 1',
      memory: 30,
      burn: 25,
      drift: 10,
      used: 28000,
      viability: 76,
      level: 'LOW',
      action: 'continue',
    },
    {
      name: 'example 2',
      memory: 55,
      burn: 38,
      drift: 25,
      used: 42500,
      viability: 58,
      level: 'MODERATE',
      action: 'optimize',
    },
    {
      name: 'example 3',
      memory: 72,
      burn: 62,
      drift: 58,
      used: 72000,
      viability: 35,
      level: 'HIGH',
      action: 'compress',
    },
    {
      name: 'example 4',
      memory: 88,
      burn: 94,
      drift: 81,
      used: 91500,
      viability: 11,
      level: 'CRITICAL',
      action: 'terminate',
    },
  ] as const;
  for (const c of cases) {
    it(`${c.name} gives viability ${c.viability} (${c.level}, ${c.action})`, () => {
      const report = evaluate({
        memoryUsedPercent: c.memory,
        tokenBurnRatePerMin: c.burn,
        contextDriftPercent: c.drift,
        tokenBudgetUsed: c.used,
      });
      expect(report.pressure.sessionViability).toBe(c.viability);
      expect(report.pressure.level).toBe(c.level);
      expect(report.pressure.suggestedAction).toBe(c.action);
    });
  }

  it('keeps the seed acceleration figures, which are right', () => {
    expect(evaluate({ tokenBurnRatePerMin: 25 }).pressure.burnRateAcceleration).toBe(0.71);
    expect(evaluate({ tokenBurnRatePerMin: 38 }).pressure.burnRateAcceleration).toBe(1.09);
    expect(evaluate({ tokenBurnRatePerMin: 62 }).pressure.burnRateAcceleration).toBe(1.77);
    expect(evaluate({ tokenBurnRatePerMin: 94 }).pressure.burnRateAcceleration).toBe(2.69);
  });

  it('example 4 exceeds memory_critical, token_budget_5_percent, drift_critical and eol_approaching', () => {
    // 8500 tokens left at 94/min = 90.4 minutes: not eol. With 300 left: 3.2 minutes.
    const report = evaluate({
      memoryUsedPercent: 88,
      tokenBurnRatePerMin: 94,
      contextDriftPercent: 81,
      tokenBudgetUsed: 99700,
    });
    expect(report.pressure.thresholdsExceeded).toEqual([
      'memory_critical',
      'token_budget_5_percent',
      'drift_critical',
      'eol_approaching',
    ]);
  });
});

describe('levels', () => {
  it('takes the level from the unrounded viability', () => {
    // memory 0, drift 0, burn 62.6 → 40 + 14.96 + 20 = 74.96: rounds to 75 but is MODERATE.
    const report = evaluate({ memoryUsedPercent: 0, contextDriftPercent: 0, tokenBurnRatePerMin: 62.6 });
    expect(report.pressure.sessionViability).toBe(75);
    expect(report.pressure.level).toBe('MODERATE');
  });
  it('puts 75 in LOW, 50 in MODERATE, 25 in HIGH and below 25 in CRITICAL', () => {
    expect(viability(62.5, 0, 0)).toBe(75);
    expect(
      evaluate({ memoryUsedPercent: 62.5, tokenBurnRatePerMin: 0, contextDriftPercent: 0 }).pressure.level,
    ).toBe('LOW');
    // 0 + 40 + 10 = 50
    expect(
      evaluate({ memoryUsedPercent: 100, tokenBurnRatePerMin: 0, contextDriftPercent: 50 }).pressure.level,
    ).toBe('MODERATE');
    expect(
      evaluate({ memoryUsedPercent: 100, tokenBurnRatePerMin: 100, contextDriftPercent: 0 }).pressure.level,
    ).toBe('CRITICAL');
    expect(
      evaluate({ memoryUsedPercent: 100, tokenBurnRatePerMin: 37.5, contextDriftPercent: 100 }).pressure
        .level,
    ).toBe('HIGH');
  });
  it('treats burn above 100 as 100 in the equation and in the reported rate', () => {
    const report = evaluate({ tokenBurnRatePerMin: 180, memoryUsedPercent: 0, contextDriftPercent: 0 });
    expect(report.pressure.sessionViability).toBe(60);
    expect(report.pressure.tokenBurnRate).toBe(100);
    expect(report.pressure.burnRateAcceleration).toBe(5.14);
  });
});

describe('thresholds are tiers, the more severe replacing the milder', () => {
  const codes = (input: PressureInput) =>
    evaluate({ contextDriftPercent: 0, ...input }).pressure.thresholdsExceeded;
  it('flags memory_warning between 65 and 80 percent and memory_critical above 80', () => {
    expect(codes({ memoryUsedPercent: 65 })).toEqual([]);
    expect(codes({ memoryUsedPercent: 65.1 })).toEqual(['memory_warning']);
    expect(codes({ memoryUsedPercent: 80 })).toEqual(['memory_warning']);
    expect(codes({ memoryUsedPercent: 80.1 })).toEqual(['memory_critical']);
  });
  it('flags token budget at under 10 and under 5 percent remaining', () => {
    expect(codes({ tokenBudgetUsed: 90000 })).toEqual([]);
    expect(codes({ tokenBudgetUsed: 90001, tokenBurnRatePerMin: 1 })).toEqual(['token_budget_10_percent']);
    expect(codes({ tokenBudgetUsed: 95000, tokenBurnRatePerMin: 1 })).toEqual(['token_budget_10_percent']);
    expect(codes({ tokenBudgetUsed: 95001, tokenBurnRatePerMin: 1 })).toEqual(['token_budget_5_percent']);
  });
  it('flags elevated_drift above 50 up to 75 and drift_critical above 75', () => {
    expect(codes({ contextDriftPercent: 50 })).toEqual([]);
    expect(codes({ contextDriftPercent: 75 })).toEqual(['elevated_drift']);
    expect(codes({ contextDriftPercent: 76 })).toEqual(['drift_critical']);
  });
  it('flags session_too_long above two hours', () => {
    expect(codes({ sessionAgeSeconds: 7200 })).toEqual([]);
    expect(codes({ sessionAgeSeconds: 7201 })).toEqual(['session_too_long']);
  });
  it('flags eol_approaching under 10 reported minutes', () => {
    // 399 / 40 = 9.975 → reported 10: not under 10.
    expect(codes({ tokenBudgetTotal: 1000, tokenBudgetUsed: 601, tokenBurnRatePerMin: 40 })).toEqual([]);
    // 300 / 40 = 7.5
    expect(codes({ tokenBudgetTotal: 1000, tokenBudgetUsed: 700, tokenBurnRatePerMin: 40 })).toEqual([
      'eol_approaching',
    ]);
  });
});

describe('minutes', () => {
  it('rounds minutes to one decimal and compares the rounded figure', () => {
    // 398 / 40 = 9.95 → Math.round(99.5)/10 = 10 → not eol; 397/40 = 9.925 → 9.9 → eol.
    const at10 = evaluate({
      tokenBudgetTotal: 1000,
      tokenBudgetUsed: 602,
      tokenBurnRatePerMin: 40,
      contextDriftPercent: 0,
    });
    expect(at10.pressure.estimatedMinutesRemaining).toBe(10);
    expect(at10.pressure.thresholdsExceeded).not.toContain('eol_approaching');
    const below = evaluate({
      tokenBudgetTotal: 1000,
      tokenBudgetUsed: 603,
      tokenBurnRatePerMin: 40,
      contextDriftPercent: 0,
    });
    expect(below.pressure.estimatedMinutesRemaining).toBe(9.9);
    expect(below.pressure.thresholdsExceeded).toContain('eol_approaching');
  });
  it('terminates when the reported minutes are under 5', () => {
    // 199 / 40 = 4.975 → 5.0: not under 5; 198/40 = 4.95 → 5.0 (Math.round(49.5) = 50); 197/40 = 4.925 → 4.9.
    const five = evaluate({
      memoryUsedPercent: 0,
      contextDriftPercent: 0,
      tokenBudgetTotal: 1000,
      tokenBudgetUsed: 801,
      tokenBurnRatePerMin: 40,
    });
    expect(five.pressure.estimatedMinutesRemaining).toBe(5);
    expect(five.pressure.recommendations.shouldTerminate).toBe(false);
    const under = evaluate({
      memoryUsedPercent: 0,
      contextDriftPercent: 0,
      tokenBudgetTotal: 1000,
      tokenBudgetUsed: 803,
      tokenBurnRatePerMin: 40,
    });
    expect(under.pressure.estimatedMinutesRemaining).toBe(4.9);
    expect(under.pressure.recommendations.shouldTerminate).toBe(true);
    expect(under.pressure.suggestedAction).toBe('terminate');
  });
  it('reports null minutes when a vanishing burn would give infinite minutes', () => {
    expect(evaluate({ tokenBurnRatePerMin: 5e-324 }).pressure.estimatedMinutesRemaining).toBeNull();
    expect(evaluate({ tokenBurnRatePerMin: 3.6e-304 }).pressure.estimatedMinutesRemaining).toBeNull();
  });
  it('reports null minutes when nothing burns, and no eol', () => {
    const report = evaluate({ tokenBurnRatePerMin: 0, tokenBudgetUsed: 99999 });
    expect(report.pressure.estimatedMinutesRemaining).toBeNull();
    expect(report.pressure.thresholdsExceeded).not.toContain('eol_approaching');
    expect(report.pressure.burnRateAcceleration).toBe(0);
  });
});

describe('recommendations and the suggested action', () => {
  it('optimizes when burn exceeds 1.5 times the mode baseline', () => {
    // demo baseline 15: burn 23 > 22.5 → optimize at LOW.
    const report = evaluate({
      systemMode: 'demo',
      tokenBurnRatePerMin: 23,
      memoryUsedPercent: 0,
      contextDriftPercent: 0,
    });
    expect(report.pressure.level).toBe('LOW');
    expect(report.pressure.recommendations.shouldOptimize).toBe(true);
    expect(report.pressure.suggestedAction).toBe('optimize');
    expect(report.pressure.burnRateAcceleration).toBe(1.53);
    const diagnostic = evaluate({
      systemMode: 'diagnostic',
      tokenBurnRatePerMin: 23,
      memoryUsedPercent: 0,
      contextDriftPercent: 0,
    });
    expect(diagnostic.pressure.suggestedAction).toBe('continue');
    expect(diagnostic.pressure.burnRateAcceleration).toBe(0.29);
  });
  it('yields optimize, not compress, for memory above 70 at MODERATE', () => {
    // memory 72, burn 0, drift 0 → 11.2 + 40 + 20 = 71.2 MODERATE; compress flag set by memory.
    const report = evaluate({ memoryUsedPercent: 72, tokenBurnRatePerMin: 0, contextDriftPercent: 0 });
    expect(report.pressure.level).toBe('MODERATE');
    expect(report.pressure.recommendations.shouldCompress).toBe(true);
    expect(report.pressure.suggestedAction).toBe('optimize');
  });
  it('terminates above 95 percent memory whatever the level', () => {
    const report = evaluate({ memoryUsedPercent: 96, tokenBurnRatePerMin: 0, contextDriftPercent: 0 });
    expect(report.pressure.level).toBe('MODERATE');
    expect(report.pressure.recommendations.shouldTerminate).toBe(true);
    expect(report.pressure.suggestedAction).toBe('terminate');
  });
  it('maps each level to its priority', () => {
    expect(
      evaluate({ memoryUsedPercent: 0, tokenBurnRatePerMin: 0, contextDriftPercent: 0 }).pressure
        .recommendations.priority,
    ).toBe('low');
    expect(evaluate(SAMPLE).pressure.recommendations.priority).toBe('high');
    expect(
      evaluate({ memoryUsedPercent: 100, tokenBurnRatePerMin: 100, contextDriftPercent: 100 }).pressure
        .recommendations.priority,
    ).toBe('urgent');
  });
});

describe('agentProfile', () => {
  const at = (memoryUsedPercent: number, agentProfile: PressureInput['agentProfile']) =>
    evaluate({ memoryUsedPercent, agentProfile, tokenBurnRatePerMin: 0, contextDriftPercent: 0 }).pressure
      .recommendations.shouldCompress;
  it('minimal compresses above 60 percent memory', () => {
    expect(at(60, 'minimal')).toBe(false);
    expect(at(61, 'minimal')).toBe(true);
  });
  it('balanced compresses above 70 percent memory', () => {
    expect(at(70, 'balanced')).toBe(false);
    expect(at(71, 'balanced')).toBe(true);
  });
  it('aggressive compresses above 80 percent memory', () => {
    expect(at(80, 'aggressive')).toBe(false);
    expect(at(81, 'aggressive')).toBe(true);
  });
});

describe('memory derived from bytes', () => {
  it('derives memory percent from the byte figures when memoryUsedPercent is absent', () => {
    expect(
      evaluate({ contextWindowUsedBytes: 150000, contextWindowMaxBytes: 200000 }).pressure.memoryPressure,
    ).toBe(75);
    expect(evaluate({ contextWindowUsedBytes: 180000 }).pressure.memoryPressure).toBe(90);
  });
  it('lets an explicit memoryUsedPercent win', () => {
    expect(evaluate({ memoryUsedPercent: 10, contextWindowUsedBytes: 150000 }).pressure.memoryPressure).toBe(
      10,
    );
  });
  it('uses the default 45 when neither is given', () => {
    expect(evaluate({}).pressure.memoryPressure).toBe(45);
  });
});

describe('validation', () => {
  it('throws a BarometerValidationError naming the field, value and range', () => {
    try {
      evaluate({ memoryUsedPercent: 120 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(BarometerValidationError);
      expect((error as BarometerValidationError).issues).toEqual([
        expect.objectContaining({ field: 'memoryUsedPercent', value: 120, allowed: { min: 0, max: 100 } }),
      ]);
    }
  });
  it('rejects tokenBudgetUsed above tokenBudgetTotal, saying when the used figure is a default', () => {
    const given = safeEvaluatePressure({ tokenBudgetTotal: 5000, tokenBudgetUsed: 6000 }, { now });
    expect(given.ok).toBe(false);
    const defaulted = safeEvaluatePressure({ tokenBudgetTotal: 5000 }, { now });
    expect(defaulted).toMatchObject({ ok: false, issues: [{ field: 'tokenBudgetUsed', value: 35000 }] });
    if (!defaulted.ok) expect(defaulted.issues[0]?.message).toContain('default');
  });
  it('rejects null for a value, never defaulting it silently (regression: ?? treated null as absent)', () => {
    for (const field of [
      'tokenBurnRatePerMin',
      'contextDriftPercent',
      'tokenBudgetUsed',
      'systemMode',
      'agentProfile',
    ]) {
      const result = safeEvaluatePressure({ [field]: null } as never, { now });
      expect(result).toMatchObject({ ok: false, issues: [{ field }] });
      expect(() => evaluate({ [field]: null } as never)).toThrow(BarometerValidationError);
    }
  });
  it('rejects NaN, infinities and unknown enum values', () => {
    expect(safeEvaluatePressure({ contextDriftPercent: Number.NaN }, { now }).ok).toBe(false);
    expect(safeEvaluatePressure({ sessionAgeSeconds: Number.POSITIVE_INFINITY }, { now }).ok).toBe(false);
    // A name that exists on Object.prototype must not slip through a table look-up.
    expect(() => evaluate({ systemMode: 'toString' as never })).toThrow(BarometerValidationError);
    expect(() => evaluate({ agentProfile: 'constructor' as never })).toThrow(BarometerValidationError);
    expect(safeEvaluatePressure({ systemMode: 'staging' as never }, { now })).toMatchObject({
      ok: false,
      issues: [{ field: 'systemMode', allowed: { values: ['demo', 'production', 'diagnostic'] } }],
    });
  });
});

const inputArbitrary = fc.record(
  {
    memoryUsedPercent: fc.double({ min: 0, max: 100, noNaN: true }),
    tokenBurnRatePerMin: fc.double({ min: 0, max: 200, noNaN: true }),
    contextDriftPercent: fc.double({ min: 0, max: 100, noNaN: true }),
    sessionAgeSeconds: fc.integer({ min: 0, max: 100_000 }),
    tokenBudgetTotal: fc.constant(100_000),
    tokenBudgetUsed: fc.integer({ min: 0, max: 100_000 }),
    systemMode: fc.constantFrom('demo', 'production', 'diagnostic' as const),
    agentProfile: fc.constantFrom('minimal', 'balanced', 'aggressive' as const),
  },
  { requiredKeys: [] },
);

const LEVEL_RANK = { LOW: 0, MODERATE: 1, HIGH: 2, CRITICAL: 3 } as const;

describe('properties', () => {
  it('keeps viability within [0, 100]', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const { sessionViability } = evaluate(input).pressure;
        return sessionViability >= 0 && sessionViability <= 100;
      }),
    );
  });
  it('never lowers pressure when memory, burn or drift rises', () => {
    const field = fc.constantFrom('memoryUsedPercent', 'tokenBurnRatePerMin', 'contextDriftPercent' as const);
    fc.assert(
      fc.property(
        inputArbitrary,
        field,
        fc.double({ min: 0, max: 100, noNaN: true }),
        (input, name, increase) => {
          const max = name === 'tokenBurnRatePerMin' ? 200 : 100;
          const base = { memoryUsedPercent: 50, tokenBurnRatePerMin: 50, contextDriftPercent: 50, ...input };
          const raised = { ...base, [name]: Math.min(max, base[name] + increase) };
          const before = evaluate(base).pressure;
          const after = evaluate(raised).pressure;
          return (
            after.sessionViability <= before.sessionViability &&
            LEVEL_RANK[after.level] >= LEVEL_RANK[before.level]
          );
        },
      ),
    );
  });
  it('gives the same report through evaluatePressure as through resolvePressureInput and evaluateResolved', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const resolved = resolvePressureInput(input);
        if (!resolved.ok) return;
        expect(evaluate(input)).toEqual(evaluateResolved(resolved.value, { now }));
      }),
    );
  });
  it('accepts a JSON body by its compiled check exactly when the zod schema accepts it', () => {
    const anyValue = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.string(),
      fc.constant(null),
      fc.boolean(),
      fc.constantFrom('demo', 'production', 'minimal'),
    );
    const body = fc.dictionary(
      fc.constantFrom(
        'memoryUsedPercent',
        'tokenBurnRatePerMin',
        'tokenBudgetUsed',
        'systemMode',
        'agentProfile',
        'other',
      ),
      anyValue,
    );
    fc.assert(
      fc.property(fc.oneof(body, inputArbitrary), (raw) => {
        const viaParse = parsePressureInput(raw, 'body');
        const viaZod = PressureInputSchema.safeParse(raw);
        const viaResolve = viaZod.success ? resolvePressureInput(viaZod.data) : undefined;
        expect(viaParse.ok).toBe(viaZod.success && viaResolve!.ok);
      }),
    );
  });
  it('gives identical output for identical input', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        expect(evaluate({ ...input })).toEqual(evaluate({ ...input }));
      }),
    );
  });
  it('always has every output field, matching the report schema', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const parsed = PressureReportSchema.safeParse(evaluate(input));
        return parsed.success;
      }),
    );
  });
});

describe('evaluatePressure without options', () => {
  it('stamps the report with the clock when no time is given', () => {
    const before = Date.now();
    const report = evaluatePressure({ memoryUsedPercent: 72 });
    const stamped = Date.parse(report.timestamp);
    // The report's time has one-second resolution.
    expect(stamped).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(stamped).toBeLessThanOrEqual(Date.now());
    expect(report.pressure.memoryPressure).toBe(72);
  });
});

describe('evaluatePressure refuses what it does not know', () => {
  it('names an unknown key instead of answering with a default (the contract suite found it)', () => {
    expect(() => evaluatePressure({ memoryUsedPercnt: 99 } as never, { now: 0 })).toThrow(/memoryUsedPercnt/);
    const result = safeEvaluatePressure({ memoryUsedPercnt: 99 } as never, { now: 0 });
    expect(result).toMatchObject({
      ok: false,
      issues: [{ field: 'memoryUsedPercnt', message: 'unknown parameter' }],
    });
  });

  it('words a range error as the HTTP API does', () => {
    expect(safeEvaluatePressure({ memoryUsedPercent: 120 }, { now: 0 })).toMatchObject({
      ok: false,
      issues: [{ field: 'memoryUsedPercent', message: 'must be from 0 to 100' }],
    });
  });
});
