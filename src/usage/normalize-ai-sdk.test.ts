import { describe, expect, it } from 'vitest';
import { normalizeAiSdk } from './normalize-ai-sdk.js';

// Fixtures follow the AI SDK's documented LanguageModelUsage shapes: a 1,200-token prompt of which
// 1,000 were read from cache, and 300 output tokens of which 200 were reasoning.
const expected = {
  available: true,
  source: 'ai-sdk',
  promptTokens: 1200,
  completionTokens: 300,
  totalTokens: 1500,
  cachedReadTokens: 1000,
  reasoningTokens: 200,
};

describe('normalizeAiSdk', () => {
  it('reads v6 usage with input and output token details', () => {
    const usage = {
      inputTokens: 1200,
      inputTokenDetails: { noCacheTokens: 200, cacheReadTokens: 1000, cacheWriteTokens: 0 },
      outputTokens: 300,
      outputTokenDetails: { textTokens: 100, reasoningTokens: 200 },
      totalTokens: 1500,
    };
    expect(normalizeAiSdk(usage)).toEqual({ ...expected, cachedWriteTokens: 0 });
  });

  it('reads v5 usage with reasoningTokens and cachedInputTokens', () => {
    const usage = {
      inputTokens: 1200,
      outputTokens: 300,
      totalTokens: 1500,
      reasoningTokens: 200,
      cachedInputTokens: 1000,
    };
    expect(normalizeAiSdk(usage)).toEqual({ ...expected, cachedWriteTokens: 0 });
  });

  it('reads the provider-level spec usage with nested totals, cache writes included', () => {
    const usage = {
      inputTokens: { total: 1200, noCache: 150, cacheRead: 1000, cacheWrite: 50 },
      outputTokens: { total: 300, text: 100, reasoning: 200 },
    };
    expect(normalizeAiSdk(usage)).toEqual({ ...expected, cachedWriteTokens: 50 });
  });

  it('reads v4 promptTokens/completionTokens', () => {
    expect(normalizeAiSdk({ promptTokens: 1200, completionTokens: 300, totalTokens: 1500 })).toEqual({
      ...expected,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
    });
  });

  it('reads the usage of a generateText result, with the model from response.modelId', () => {
    const result = {
      text: 'Hello',
      usage: { inputTokens: 1200, outputTokens: 300, totalTokens: 1500 },
      totalUsage: { inputTokens: 2000, outputTokens: 500, totalTokens: 2500 },
      response: { modelId: 'gpt-4o-2024-08-06', timestamp: new Date('2026-03-01T10:00:00Z') },
    };
    expect(normalizeAiSdk(result)).toMatchObject({
      promptTokens: 1200,
      completionTokens: 300,
      model: 'gpt-4o-2024-08-06',
      timestamp: '2026-03-01T10:00:00.000Z',
    });
  });

  it('says usage is unavailable when the provider reported none (undefined in v5, NaN in v4)', () => {
    expect(
      normalizeAiSdk({ inputTokens: undefined, outputTokens: undefined, totalTokens: undefined }),
    ).toMatchObject({
      available: false,
      reason: 'inputTokens is missing',
    });
    expect(
      normalizeAiSdk({ promptTokens: Number.NaN, completionTokens: Number.NaN, totalTokens: Number.NaN }),
    ).toMatchObject({
      available: false,
      reason: 'promptTokens is not a non-negative integer (got NaN)',
    });
    expect(normalizeAiSdk({ inputTokens: 10 })).toMatchObject({
      available: false,
      reason: 'outputTokens is missing',
    });
    expect(normalizeAiSdk({ text: 'no usage here' })).toMatchObject({ available: false });
    expect(normalizeAiSdk(undefined)).toMatchObject({ available: false, source: 'ai-sdk' });
  });
});
