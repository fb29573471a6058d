import { describe, expect, it } from 'vitest';
import { contextPressure } from './context-pressure.js';
import { produce } from './produce.js';

// 14,000 of 16,384 cells: remaining 2,384, headroom 1,360 (appendix vector).
const roomy = contextPressure({ nCtx: 16384, cellsUsed: 14000 });
// 15,800 of 16,384: remaining 584 ≥ hardLimit 128 (not critical), headroom −440.
const overBudget = contextPressure({ nCtx: 16384, cellsUsed: 15800 });
// remaining 1,024 = softLimit: headroom exactly 0.
const atZero = contextPressure({ nCtx: 16384, cellsUsed: 15360 });
// remaining 84 < hardLimit 128.
const critical = contextPressure({ nCtx: 16384, cellsUsed: 16300 });

describe('produce', () => {
  const calls = [
    { id: '1', name: 'search' },
    { id: '2', name: 'report', terminal: true },
    { id: '3', name: 'read_file', terminal: false },
  ];

  it('passes every call while there is headroom', () => {
    const result = produce(roomy, calls);
    expect(result).toMatchObject({
      action: 'produce',
      code: 'within_budget',
      passed: ['1', '2', '3'],
      cut: [],
    });
  });

  it('hard-cuts non-terminal calls and passes terminal ones when headroom is negative', () => {
    const result = produce(overBudget, calls);
    expect(result).toMatchObject({ action: 'produce', code: 'over_budget', passed: ['2'], cut: ['1', '3'] });
    expect(result.calls.map((call) => call.code)).toEqual(['over_budget', 'terminal', 'over_budget']);
  });

  it('treats a headroom of exactly 0 as over budget', () => {
    expect(atZero.headroom).toBe(0);
    expect(produce(atZero, calls).cut).toEqual(['1', '3']);
  });

  it('stops the agent before producing when critical, terminal calls included', () => {
    const result = produce(critical, calls);
    expect(result).toMatchObject({ action: 'stop', code: 'kv_critical', passed: [], cut: ['1', '2', '3'] });
    expect(result.reason).toContain('84 KV cells remain, below the hard limit of 128');
  });

  it('stops on an empty call list too', () => {
    expect(produce(critical, []).action).toBe('stop');
  });

  it('names a call without a name', () => {
    expect(() => produce(roomy, [{ id: '1', name: '' }])).toThrow(/\[0\]\.name/);
  });
});
