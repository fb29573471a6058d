import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { normalizeOpenAIChat, normalizeOpenAIChatStream } from './normalize-openai-chat.js';
import { parseServerSentEvents } from './server-sent-events.js';
import { loadCassette } from './test-helpers/traces.js';

describe('normalizeOpenAIChat on the recorded Chat Completions responses', () => {
  // test_multiple_agent_tool_calls.yaml: interactions 3 and 4 are api.openai.com/v1/chat/completions.
  const [, , toolCall, answer] = loadCassette('test_multiple_agent_tool_calls.yaml');

  it('reads the tool-call response: 104 prompt, 16 completion, 120 total, created 1742842885', () => {
    expect(toolCall!.uri).toBe('https://api.openai.com/v1/chat/completions');
    expect(normalizeOpenAIChat(toolCall!.body)).toEqual({
      available: true,
      source: 'openai-chat',
      promptTokens: 104,
      completionTokens: 16,
      totalTokens: 120,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
      model: 'gpt-4o-mini-2024-07-18',
      timestamp: '2025-03-24T19:01:25.000Z',
    });
  });

  it('reads the answer: 129 prompt, 9 completion, 138 total', () => {
    expect(normalizeOpenAIChat(answer!.body)).toMatchObject({
      available: true,
      promptTokens: 129,
      completionTokens: 9,
      totalTokens: 138,
      timestamp: '2025-03-24T19:01:26.000Z',
    });
  });

  it('reads the same response given as JSON text', () => {
    expect(normalizeOpenAIChat(JSON.stringify(toolCall!.body))).toEqual(normalizeOpenAIChat(toolCall!.body));
  });

  it('prefers the caller-given timestamp over the response time', () => {
    const record = normalizeOpenAIChat(toolCall!.body, { timestamp: '2026-01-01T00:00:00Z' });
    expect(record.timestamp).toBe('2026-01-01T00:00:00Z');
  });
});

describe('normalizeOpenAIChatStream on the recorded streams (usage only in the last chunk)', () => {
  // test_run_stream_sync_streams_real_model.yaml: two SSE streams with stream_options.include_usage.
  const [first, second] = loadCassette('test_run_stream_sync_streams_real_model.yaml');

  it('reads the SSE text of the first stream: 53 prompt, 15 completion, 68 total', () => {
    expect(typeof first!.body).toBe('string');
    expect(normalizeOpenAIChatStream(first!.body)).toEqual({
      available: true,
      source: 'openai-chat',
      promptTokens: 53,
      completionTokens: 15,
      totalTokens: 68,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
      model: 'gpt-4o-mini-2024-07-18',
      timestamp: '2026-07-02T01:30:17.000Z',
    });
  });

  it('reads the second stream: 78 prompt, 9 completion, 87 total', () => {
    expect(normalizeOpenAIChatStream(second!.body)).toMatchObject({
      promptTokens: 78,
      completionTokens: 9,
      totalTokens: 87,
    });
  });

  it('reads the same stream given as an array of parsed chunks, through normalizeOpenAIChat too', () => {
    const chunks = parseServerSentEvents(first!.body as string);
    expect(chunks).toHaveLength(8);
    expect(normalizeOpenAIChatStream(chunks)).toEqual(normalizeOpenAIChatStream(first!.body));
    expect(normalizeOpenAIChat(chunks)).toEqual(normalizeOpenAIChatStream(first!.body));
    expect(normalizeOpenAIChat(first!.body)).toEqual(normalizeOpenAIChatStream(first!.body));
  });

  it('says usage is unavailable when the stream lacks the final usage chunk', () => {
    const chunks = parseServerSentEvents(first!.body as string).slice(0, -1);
    const record = normalizeOpenAIChatStream(chunks);
    expect(record.available).toBe(false);
    if (!record.available) expect(record.reason).toContain('include_usage');
    expect(record.model).toBe('gpt-4o-mini-2024-07-18');
  });

  it('says an empty stream holds no chunks', () => {
    expect(normalizeOpenAIChatStream([])).toMatchObject({
      available: false,
      reason: 'the stream holds no JSON chunks',
    });
    expect(normalizeOpenAIChatStream('data: [DONE]\n\n')).toMatchObject({ available: false });
  });
});

describe('normalizeOpenAIChat on documented shapes', () => {
  it('reads cached and reasoning tokens from the details objects', () => {
    const usage = {
      prompt_tokens: 2006,
      completion_tokens: 300,
      total_tokens: 2306,
      prompt_tokens_details: { cached_tokens: 1920 },
      completion_tokens_details: { reasoning_tokens: 192 },
    };
    expect(normalizeOpenAIChat({ usage })).toMatchObject({
      promptTokens: 2006,
      cachedReadTokens: 1920,
      completionTokens: 300,
      reasoningTokens: 192,
      totalTokens: 2306,
    });
  });

  it('reads LiteLLM cache-write tokens and accepts a bare usage object', () => {
    const usage = { prompt_tokens: 3601, completion_tokens: 1142, cache_creation_input_tokens: 160 };
    expect(normalizeOpenAIChat(usage)).toMatchObject({
      promptTokens: 3601,
      cachedWriteTokens: 160,
      totalTokens: 4743,
    });
  });

  it('never turns a missing usage into zeros', () => {
    expect(normalizeOpenAIChat({ id: 'x', choices: [] })).toMatchObject({
      available: false,
      source: 'openai-chat',
    });
    expect(normalizeOpenAIChat({ usage: null })).toMatchObject({ available: false });
    const partial = normalizeOpenAIChat({ usage: { prompt_tokens: 10 } });
    expect(partial).toMatchObject({ available: false, reason: 'usage.completion_tokens is missing' });
    const negative = normalizeOpenAIChat({ usage: { prompt_tokens: -1, completion_tokens: 2 } });
    expect(negative).toMatchObject({
      available: false,
      reason: 'usage.prompt_tokens is not a non-negative integer (got -1)',
    });
  });

  it('reports garbage as unavailable without throwing', () => {
    for (const garbage of [undefined, null, 42, 'hello', true]) {
      const record = normalizeOpenAIChat(garbage);
      expect(record.available).toBe(false);
    }
  });

  it('throws on invalid options', () => {
    expect(() => normalizeOpenAIChat({}, { timestamp: 'yesterday' })).toThrow(BarometerValidationError);
    expect(() => normalizeOpenAIChat({}, { when: 1 } as never)).toThrow(/when: unknown parameter/);
  });
});
