import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import {
  ContextPressureJsonSchema,
  contextPressure,
  DEFAULT_HARD_LIMIT,
  DEFAULT_SOFT_LIMIT,
} from './context-pressure.js';

function validationError(run: () => unknown): BarometerValidationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(BarometerValidationError);
    return error as BarometerValidationError;
  }
  throw new Error('expected a BarometerValidationError');
}

describe('contextPressure appendix vectors (seed 001)', () => {
  it('gives remaining 584 and headroom −440 for 15,800 of 16,384 cells with the default soft limit', () => {
    const pressure = contextPressure({ nCtx: 16384, cellsUsed: 15800 });
    expect(pressure.remaining).toBe(584);
    expect(pressure.headroom).toBe(-440);
  });

  it('gives headroom 72 for the same cells with softLimit 512', () => {
    expect(contextPressure({ nCtx: 16384, cellsUsed: 15800, softLimit: 512 }).headroom).toBe(72);
  });

  it('gives remaining 2,384 and headroom 1,360 for 14,000 cells', () => {
    const pressure = contextPressure({ nCtx: 16384, cellsUsed: 14000 });
    expect(pressure.remaining).toBe(2384);
    expect(pressure.headroom).toBe(1360);
  });

  it('gives percentAvailable 50 at half, 100 without a limit and 0 when nothing remains', () => {
    expect(contextPressure({ nCtx: 16384, cellsUsed: 8192 }).percentAvailable).toBe(50);
    expect(contextPressure({ nCtx: 0, cellsUsed: 5000 }).percentAvailable).toBe(100);
    expect(contextPressure({ nCtx: 16384, cellsUsed: 16384 }).percentAvailable).toBe(0);
  });

  it('is unbounded when nCtx is 0: anything fits and nothing is critical', () => {
    const pressure = contextPressure({ nCtx: 0, cellsUsed: 5000 });
    expect(pressure.unbounded).toBe(true);
    expect(pressure.remaining).toBe(Number.POSITIVE_INFINITY);
    expect(pressure.headroom).toBe(Number.POSITIVE_INFINITY);
    expect(pressure.canFit(999_999)).toBe(true);
    expect(pressure.critical).toBe(false);
  });
});

describe('contextPressure', () => {
  it('defaults softLimit to 1024 and hardLimit to 128', () => {
    const pressure = contextPressure({ nCtx: 4096, cellsUsed: 0 });
    expect([pressure.softLimit, pressure.hardLimit]).toEqual([DEFAULT_SOFT_LIMIT, DEFAULT_HARD_LIMIT]);
    expect([DEFAULT_SOFT_LIMIT, DEFAULT_HARD_LIMIT]).toEqual([1024, 128]);
  });

  it('treats a negative nCtx as no limit', () => {
    expect(contextPressure({ nCtx: -1, cellsUsed: 10 }).unbounded).toBe(true);
  });

  it('never reports a negative percentAvailable', () => {
    expect(contextPressure({ nCtx: 100, cellsUsed: 150, softLimit: 0, hardLimit: 0 }).percentAvailable).toBe(
      0,
    );
  });

  it('fits a count equal to the headroom and not one more', () => {
    const pressure = contextPressure({ nCtx: 16384, cellsUsed: 14000 });
    expect(pressure.canFit(1360)).toBe(true);
    expect(pressure.canFit(1361)).toBe(false);
  });

  it('is critical when remaining drops below the hard limit', () => {
    expect(contextPressure({ nCtx: 16384, cellsUsed: 16384 - 127 }).critical).toBe(true);
    expect(contextPressure({ nCtx: 16384, cellsUsed: 16384 - 128 }).critical).toBe(false);
  });

  it('is frozen', () => {
    const pressure = contextPressure({ nCtx: 16384, cellsUsed: 100 });
    expect(Object.isFrozen(pressure)).toBe(true);
    expect(() => {
      (pressure as { cellsUsed: number }).cellsUsed = 0;
    }).toThrow(TypeError);
  });
});

describe('contextPressure with nBatch', () => {
  it('defaults hardLimit to nBatch', () => {
    // remaining 584: above the old default of 128 but below a 1024-cell batch.
    const pressure = contextPressure({ nCtx: 16384, cellsUsed: 15800, nBatch: 1024 });
    expect(pressure.hardLimit).toBe(1024);
    expect(pressure.critical).toBe(true);
  });

  it('accepts a hardLimit at or above nBatch', () => {
    expect(contextPressure({ nCtx: 16384, cellsUsed: 0, nBatch: 512, hardLimit: 512 }).hardLimit).toBe(512);
  });

  it('rejects a hardLimit below nBatch and says why', () => {
    const error = validationError(() =>
      contextPressure({ nCtx: 16384, cellsUsed: 0, hardLimit: 128, nBatch: 512 }),
    );
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatchObject({ field: 'hardLimit', value: 128, allowed: { min: 512 } });
    expect(error.issues[0]?.message).toContain('n_batch');
  });
});

describe('contextPressure input validation', () => {
  it('names a bad field', () => {
    expect(validationError(() => contextPressure({ nCtx: 16384, cellsUsed: -1 })).issues[0]?.field).toBe(
      'cellsUsed',
    );
    expect(validationError(() => contextPressure({ nCtx: 1.5, cellsUsed: 0 })).issues[0]?.field).toBe('nCtx');
  });

  it('rejects unknown keys', () => {
    const error = validationError(() => contextPressure({ nCtx: 10, cellsUsed: 0, soft: 5 } as never));
    expect(error.issues[0]).toMatchObject({ field: 'soft', message: 'unknown parameter' });
  });
});

describe('ContextPressure.toJSON', () => {
  it('writes infinite values as null with unbounded true', () => {
    const json = JSON.parse(JSON.stringify(contextPressure({ nCtx: 0, cellsUsed: 7 })));
    expect(json).toEqual({
      nCtx: 0,
      cellsUsed: 7,
      remaining: null,
      softLimit: 1024,
      hardLimit: 128,
      headroom: null,
      critical: false,
      percentAvailable: 100,
      unbounded: true,
    });
    expect(ContextPressureJsonSchema.safeParse(json).success).toBe(true);
  });

  it('writes finite values as numbers with unbounded false', () => {
    const json = contextPressure({ nCtx: 16384, cellsUsed: 14000, nBatch: 512 }).toJSON();
    expect(json).toMatchObject({
      remaining: 2384,
      headroom: 1360,
      hardLimit: 512,
      nBatch: 512,
      unbounded: false,
    });
    expect(ContextPressureJsonSchema.safeParse(json).success).toBe(true);
  });
});
