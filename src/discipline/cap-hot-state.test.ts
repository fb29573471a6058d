import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { charsEstimateCounter } from '../tokens/chars-estimate-counter.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { capHotState } from './cap-hot-state.js';
import { buildHotState, formatHotStateJson } from './hot-state.js';

const o200k = createTokenCounter();
const constraints = Array.from({ length: 500 }, (_, i) => `constraint ${i}: keep the public API stable`);
const big = buildHotState({
  session_id: 's1',
  session_key: 'agent:main',
  run_id: 'r1',
  risk_level: 'high',
  constraints,
});
const throwing: TokenCounter = {
  name: 'broken',
  estimate: false,
  count() {
    throw new Error('tokenizer unavailable');
  },
};

describe('capHotState', () => {
  it('truncates 500 constraints capped at 50 tokens to the minimal state, within the cap', () => {
    const capped = capHotState(big, 50, o200k);
    expect(capped.truncated).toBe(true);
    expect(capped.fits).toBe(true);
    expect(capped.state).toEqual({
      session_id: 's1',
      session_key: 'agent:main',
      run_id: 'r1',
      risk_level: 'high',
    });
    expect(capped.tokens).toBe(o200k.count(formatHotStateJson(capped.state)));
    expect(capped.tokens).toBeLessThanOrEqual(50);
    expect(capped.counter).toBe('o200k_base');
  });

  it('keeps a state that fits, the cap included', () => {
    const state = buildHotState({ session_id: 's1', objective: 'Fix the failing test' });
    const tokens = o200k.count(formatHotStateJson(state));
    expect(capHotState(state, tokens, o200k)).toEqual({
      state,
      tokens,
      truncated: false,
      fits: true,
      counter: 'o200k_base',
    });
    expect(capHotState(state, tokens - 1, o200k).truncated).toBe(true);
  });

  it('says the minimal state does not fit either when the cap is below it', () => {
    const capped = capHotState(big, 1, o200k);
    expect(capped.truncated).toBe(true);
    expect(capped.fits).toBe(false);
  });

  it('fails closed when the counter throws', () => {
    const capped = capHotState(big, 1000, throwing);
    expect(capped).toMatchObject({ truncated: true, fits: false, tokens: null, counter: 'broken' });
  });

  it('counts with o200k by default and reports another counter by name', () => {
    expect(capHotState(big, 50).counter).toBe('o200k_base');
    expect(capHotState(big, 50, charsEstimateCounter).counter).toBe('chars/4-estimate');
  });

  it('rejects a cap that is not a non-negative integer', () => {
    expect(() => capHotState(big, -1, o200k)).toThrow(BarometerValidationError);
    expect(() => capHotState(big, Number.NaN, o200k)).toThrow(BarometerValidationError);
  });
});
