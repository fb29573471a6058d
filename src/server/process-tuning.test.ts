import { describe, expect, it } from 'vitest';
import { SERVICE_V8_FLAGS, tuneServiceProcess, V8_DEFAULTS_ENV } from './process-tuning.js';

describe('tuneServiceProcess', () => {
  it('turns allocation-site pretenuring off for the service', () => {
    expect(tuneServiceProcess({})).toEqual(['--no-allocation-site-pretenuring']);
    expect(SERVICE_V8_FLAGS).toEqual(['--no-allocation-site-pretenuring']);
  });

  it(`leaves V8 as it is when ${V8_DEFAULTS_ENV} is set, and not when it is empty`, () => {
    expect(tuneServiceProcess({ [V8_DEFAULTS_ENV]: '1' })).toEqual([]);
    expect(tuneServiceProcess({ [V8_DEFAULTS_ENV]: '' })).toEqual(['--no-allocation-site-pretenuring']);
  });
});
