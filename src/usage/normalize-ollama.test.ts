import { describe, expect, it } from 'vitest';
import { normalizeOllama } from './normalize-ollama.js';

// The final object of /api/generate as Ollama's API documentation shows it.
const FINAL = {
  model: 'llama3.2',
  created_at: '2023-08-04T19:22:45.499127Z',
  response: '',
  done: true,
  context: [1, 2, 3],
  total_duration: 10706818083,
  load_duration: 6338219291,
  prompt_eval_count: 26,
  prompt_eval_duration: 130079000,
  eval_count: 259,
  eval_duration: 4232710000,
};

describe('normalizeOllama', () => {
  it('reads prompt_eval_count and eval_count of the final object', () => {
    expect(normalizeOllama(FINAL)).toEqual({
      available: true,
      source: 'ollama',
      promptTokens: 26,
      completionTokens: 259,
      totalTokens: 285,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
      model: 'llama3.2',
      timestamp: '2023-08-04T19:22:45.499Z',
    });
  });

  it('reads a stream from its final (done: true) object, as an array or as NDJSON text', () => {
    const partial = {
      model: 'llama3.2',
      created_at: '2023-08-04T08:52:19.385406455-07:00',
      response: 'The',
      done: false,
    };
    expect(normalizeOllama([partial, FINAL])).toMatchObject({ promptTokens: 26, completionTokens: 259 });
    const ndjson = `${JSON.stringify(partial)}\n${JSON.stringify(FINAL)}\n`;
    expect(normalizeOllama(ndjson)).toEqual(normalizeOllama(FINAL));
  });

  it('says a stream without its final object has no usage', () => {
    const partial = { model: 'llama3.2', response: 'The', done: false };
    expect(normalizeOllama([partial])).toMatchObject({ available: false, model: 'llama3.2' });
    expect(normalizeOllama(partial)).toMatchObject({ available: false });
  });

  it('does not invent a prompt size when Ollama omitted prompt_eval_count (whole prompt cached)', () => {
    const { prompt_eval_count: _omitted, ...cached } = FINAL;
    const record = normalizeOllama(cached);
    expect(record.available).toBe(false);
    if (!record.available) expect(record.reason).toContain('cache');
  });

  it('reads the OpenAI-compatible endpoint’s usage object', () => {
    const response = {
      id: 'chatcmpl-123',
      object: 'chat.completion',
      created: 1700000000,
      model: 'llama3.2',
      choices: [],
      usage: { prompt_tokens: 31, completion_tokens: 12, total_tokens: 43 },
    };
    expect(normalizeOllama(response)).toMatchObject({
      available: true,
      source: 'ollama',
      promptTokens: 31,
      completionTokens: 12,
      totalTokens: 43,
      timestamp: '2023-11-14T22:13:20.000Z',
    });
  });

  it('reports garbage as unavailable', () => {
    expect(normalizeOllama('')).toMatchObject({ available: false, source: 'ollama' });
    expect(normalizeOllama([1, 2])).toMatchObject({
      available: false,
      reason: 'the stream holds no JSON chunks',
    });
  });
});
