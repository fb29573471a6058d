import { describe, expect, it } from 'vitest';
import { anthropicMinimumCacheableTokens, claudeModelKey } from './anthropic-cache-rules.js';
import { geminiMinimumCacheableTokens } from './gemini-prompt-cache.js';
import { openAiCacheRules } from './openai-cache-rules.js';

describe('anthropicMinimumCacheableTokens: the guide list "Cache limitations"', () => {
  it.each([
    ['claude-opus-5', 512],
    ['claude-fable-5', 512],
    ['claude-mythos-5', 512],
    ['claude-mythos-preview', 2048],
    ['claude-opus-4-7', 2048],
    ['claude-opus-4-6', 4096],
    ['claude-opus-4-5-20251101', 4096],
    ['claude-opus-4-8', 1024],
    ['claude-sonnet-5', 1024],
    ['claude-sonnet-4-6', 1024],
    ['claude-sonnet-4-5-20250929', 1024],
    ['claude-opus-4-1-20250805', 1024],
    ['claude-opus-4-20250514', 1024],
    ['claude-sonnet-4-0', 1024],
    ['claude-haiku-4-5-20251001', 4096],
    ['claude-3-5-haiku-20241022', 2048],
    ['claude-3-haiku-20240307', 2048],
    ['claude-3-7-sonnet-20250219', 1024],
    ['claude-opus-5-5', 512],
    ['claude-opus-5-5[1m]', 512],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 1024],
    ['anthropic/claude-opus-4.6', 4096],
  ])('%s → %d', (model, minimum) => {
    expect(anthropicMinimumCacheableTokens(model)).toBe(minimum);
  });

  it('gives a model the list does not name its highest minimum, 4,096', () => {
    expect(anthropicMinimumCacheableTokens('claude-haiku-5-5')).toBe(4096);
    expect(anthropicMinimumCacheableTokens('some-other-model')).toBe(4096);
    expect(claudeModelKey('some-other-model')).toBeNull();
  });
});

describe('openAiCacheRules: "Summary of model differences"', () => {
  it('GPT-5.6 and later families cache at message breakpoints, 1,024 tokens, 30 minutes', () => {
    for (const model of ['gpt-5.6', 'gpt-5.6-sol', 'gpt-6-astra', 'openai/gpt-5.7'])
      expect(openAiCacheRules(model)).toEqual({
        kind: 'breakpoints',
        minimumTokens: 1024,
        lifetimeMs: 1_800_000,
      });
  });

  it('GPT-5.5 and GPT-5.5 Pro: 2,048-token intervals, "24h" only', () => {
    for (const model of ['gpt-5.5', 'gpt-5.5-pro'])
      expect(openAiCacheRules(model)).toEqual({
        kind: 'intervals',
        intervalTokens: 2048,
        minimumTokens: 1024,
        retentions: ['24h'],
      });
  });

  it('earlier models: 128-token steps from 1,024; "24h" by default where extended retention is listed', () => {
    expect(openAiCacheRules('gpt-5.1-codex')).toMatchObject({
      intervalTokens: 128,
      retentions: ['24h', 'in_memory'],
    });
    expect(openAiCacheRules('gpt-4.1-2025-04-14')).toMatchObject({ retentions: ['24h', 'in_memory'] });
    expect(openAiCacheRules('gpt-5.3-codex')).toMatchObject({
      intervalTokens: 128,
      minimumTokens: 1024,
      retentions: ['in_memory'],
    });
    expect(openAiCacheRules('gpt-4o-mini')).toMatchObject({ kind: 'intervals', retentions: ['in_memory'] });
  });
});

describe('geminiMinimumCacheableTokens: the context caching page', () => {
  it.each([
    ['gemini-4-argon', 4096],
    ['gemini-3.8-flash', 4096],
    ['gemini-3.5-flash', 4096],
    ['gemini-3.1-pro-preview', 4096],
    ['gemini-2.5-flash', 2048],
    ['models/gemini-2.5-pro', 2048],
    ['gemini-2.5-flash-lite', 2048],
    ['gemini-3-flash-preview', 4096],
    ['gemini-flash-latest', 4096],
  ])('%s → %d', (model, minimum) => {
    expect(geminiMinimumCacheableTokens(model)).toBe(minimum);
  });

  it('models before 2.5 have no implicit caching', () => {
    expect(geminiMinimumCacheableTokens('gemini-2.0-flash')).toBeNull();
    expect(geminiMinimumCacheableTokens('gemini-1.5-pro')).toBeNull();
  });
});
