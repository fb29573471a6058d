import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { type ThinkingBudgetInput, thinkingBudget } from './thinking-budget.js';

describe('thinkingBudget (appendix vectors)', () => {
  it('keeps 24,576 with 1,000,000 TPM left', () => {
    expect(thinkingBudget({ tpmLeft: 1_000_000, provider: 'anthropic' })).toMatchObject({
      lowered: false,
      budgetTokens: 24_576,
      params: { thinking: { type: 'enabled', budget_tokens: 24_576 } },
    });
  });
  it('lowers to 8,192 with 199,999 TPM left', () => {
    expect(thinkingBudget({ tpmLeft: 199_999, provider: 'anthropic' })).toMatchObject({
      lowered: true,
      level: 'low',
      budgetTokens: 8192,
      params: { thinking: { type: 'enabled', budget_tokens: 8192 } },
    });
  });
  it('is low with 0 TPM left, and with a negative figure (over quota)', () => {
    expect(thinkingBudget({ tpmLeft: 0, provider: 'openai' }).level).toBe('low');
    expect(thinkingBudget({ tpmLeft: -5, provider: 'openai' }).lowered).toBe(true);
  });
  it('is not lowered at exactly 200,000', () => {
    expect(thinkingBudget({ tpmLeft: 200_000, provider: 'gemini' }).lowered).toBe(false);
  });
});

describe('provider parameters', () => {
  it('sets OpenAI reasoning_effort low when lowered, medium otherwise', () => {
    expect(thinkingBudget({ tpmLeft: 10, provider: 'openai' }).params).toEqual({ reasoning_effort: 'low' });
    expect(thinkingBudget({ tpmLeft: 1e6, provider: 'openai' }).params).toEqual({
      reasoning_effort: 'medium',
    });
  });
  it('sets the Gemini thinking level, LOW when lowered and HIGH otherwise, and never the budget with it', () => {
    expect(thinkingBudget({ tpmLeft: 10, provider: 'gemini' }).params).toEqual({
      thinkingConfig: { thinkingLevel: 'LOW' },
    });
    expect(thinkingBudget({ tpmLeft: 1e6, provider: 'gemini' }).params).toEqual({
      thinkingConfig: { thinkingLevel: 'HIGH' },
    });
  });
  it('sets the Gemini 2.5 thinkingBudget (≤ 8192 when lowered) when asked for the budget control', () => {
    const low = thinkingBudget({ tpmLeft: 10, provider: 'gemini', geminiControl: 'budget' });
    expect(low.params).toEqual({ thinkingConfig: { thinkingBudget: 8192 } });
    const high = thinkingBudget({
      tpmLeft: Number.POSITIVE_INFINITY,
      provider: 'gemini',
      geminiControl: 'budget',
    });
    expect(high.params).toEqual({ thinkingConfig: { thinkingBudget: 24_576 } });
  });
  it('takes the threshold from lowBelow', () => {
    expect(thinkingBudget({ tpmLeft: 250_000, provider: 'openai', lowBelow: 300_000 }).lowered).toBe(true);
  });
  it('rejects an unknown provider and a NaN figure', () => {
    expect(() =>
      thinkingBudget({ tpmLeft: 1, provider: 'mistral' } as unknown as ThinkingBudgetInput),
    ).toThrow(BarometerValidationError);
    expect(() => thinkingBudget({ tpmLeft: Number.NaN, provider: 'openai' })).toThrow(/tpmLeft/);
  });
});
