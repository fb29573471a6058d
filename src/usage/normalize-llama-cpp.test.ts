import { describe, expect, it } from 'vitest';
import { normalizeLlamaCpp } from './normalize-llama-cpp.js';

// A /completion answer in the server README's shape: a 5-token prompt of which 4 were reused from the
// KV cache (timings.prompt_n = 1 evaluated, cache_n = 4), 51 tokens predicted. tokens_cached is the
// slot position after generation (5 + 51 − 1), not a cache hit.
const NATIVE = {
  content: '\n\nI am Gemma…',
  stop: true,
  model: 'gemma-3-4b-it',
  tokens_predicted: 51,
  tokens_evaluated: 5,
  tokens_cached: 55,
  truncated: false,
  timings: { cache_n: 4, prompt_n: 1, prompt_ms: 54.9, predicted_n: 51, predicted_ms: 2310.6 },
};

describe('normalizeLlamaCpp', () => {
  it('reads tokens_evaluated (whole prompt) and tokens_predicted, cache hit from timings.cache_n', () => {
    expect(normalizeLlamaCpp(NATIVE)).toEqual({
      available: true,
      source: 'llama-cpp',
      promptTokens: 5,
      completionTokens: 51,
      totalTokens: 56,
      cachedReadTokens: 4,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
      model: 'gemma-3-4b-it',
    });
  });

  it('rebuilds the prompt from timings alone: evaluated prompt_n plus reused cache_n', () => {
    expect(normalizeLlamaCpp({ timings: NATIVE.timings })).toMatchObject({
      promptTokens: 5,
      completionTokens: 51,
      cachedReadTokens: 4,
    });
  });

  it('prefers the OpenAI-compatible usage object', () => {
    const response = {
      object: 'chat.completion',
      created: 1700000000,
      model: 'gpt-3.5-turbo',
      choices: [],
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
      timings: { cache_n: 12, prompt_n: 8, predicted_n: 10 },
    };
    expect(normalizeLlamaCpp(response)).toMatchObject({
      source: 'llama-cpp',
      promptTokens: 20,
      completionTokens: 10,
      totalTokens: 30,
      cachedReadTokens: 12,
      timestamp: '2023-11-14T22:13:20.000Z',
    });
  });

  it('reads a /completion SSE stream from its final (stop: true) chunk', () => {
    const partial = { content: 'Hel', stop: false, id_slot: 0 };
    const sse = `data: ${JSON.stringify(partial)}\n\ndata: ${JSON.stringify(NATIVE)}\n\n`;
    expect(normalizeLlamaCpp(sse)).toEqual(normalizeLlamaCpp(NATIVE));
    expect(normalizeLlamaCpp([partial])).toMatchObject({
      available: false,
      reason: 'no chunk of the stream carries usage or timings',
    });
  });

  it('says a response without any figures has no usage', () => {
    expect(normalizeLlamaCpp({ content: 'hi', stop: true })).toMatchObject({
      available: false,
      reason: 'the response carries no usage, tokens_evaluated or timings',
    });
    expect(normalizeLlamaCpp({ tokens_evaluated: 5 })).toMatchObject({
      available: false,
      reason: 'tokens_predicted is missing',
    });
    expect(normalizeLlamaCpp(3.5)).toMatchObject({ available: false });
  });
});
