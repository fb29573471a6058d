import { describe, expect, it } from 'vitest';
import { thinkingBudgetBytes, withThinkingBudget } from './thinking-bytes.js';

const body = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

describe('thinkingBudgetBytes', () => {
  it('finds the top-level budget of Claude Code’s thinking, not a nested one of the same name', () => {
    const request = {
      model: 'claude-sonnet-4-5',
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'a "budget_tokens": 5 in text, \\" and "thinking": {}' }],
        },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }] },
      ],
      tools: [{ name: 'x', input_schema: { properties: { thinking: { budget_tokens: 3 } } } }],
      max_tokens: 32000,
      thinking: { budget_tokens: 31999, type: 'enabled', display: 'omitted' },
      stream: true,
    };
    const bytes = body(request);
    const found = thinkingBudgetBytes(bytes);
    expect(found?.budgetTokens).toBe(31999);
    const lowered = withThinkingBudget(bytes, found!, 8192);
    // Only the figure changed: the same JSON with the budget lowered, byte for byte as JSON.stringify writes it.
    expect(lowered.toString()).toBe(
      JSON.stringify({ ...request, thinking: { budget_tokens: 8192, type: 'enabled', display: 'omitted' } }),
    );
  });

  it('reads spaced JSON too', () => {
    const bytes = Buffer.from(
      '{ "model" : "m", "thinking" : { "type" : "enabled" , "budget_tokens" : 20000 } }',
    );
    const found = thinkingBudgetBytes(bytes);
    expect(withThinkingBudget(bytes, found!, 8192).toString()).toBe(
      '{ "model" : "m", "thinking" : { "type" : "enabled" , "budget_tokens" : 8192 } }',
    );
  });

  it('finds nothing in a request without budgeted thinking', () => {
    expect(thinkingBudgetBytes(body({ model: 'm', messages: [] }))).toBeUndefined();
    expect(thinkingBudgetBytes(body({ thinking: { type: 'disabled' } }))).toBeUndefined();
    expect(thinkingBudgetBytes(body({ thinking: { type: 'adaptive' } }))).toBeUndefined();
    expect(thinkingBudgetBytes(Buffer.from('not json'))).toBeUndefined();
    expect(
      thinkingBudgetBytes(Buffer.from('{"thinking": {"type": "enabled", "budget_tokens": 1')),
    ).toBeUndefined();
  });
});
