import { describe, expect, it } from 'vitest';
import { normalizeOpenAIResponses } from './normalize-openai-responses.js';
import { loadCassette } from './test-helpers/traces.js';

describe('normalizeOpenAIResponses on the recorded compaction chain', () => {
  // test_openai_responses_compact_with_auto_previous_response_id_chain.yaml: responses interleaved
  // with explicit /responses/compact calls; figures read from each interaction's usage block.
  const responses = loadCassette('test_openai_responses_compact_with_auto_previous_response_id_chain.yaml');
  const expected = [
    { uri: '/v1/responses', prompt: 14, completion: 9, total: 23 },
    { uri: '/v1/responses', prompt: 36, completion: 9, total: 45 },
    { uri: '/v1/responses/compact', prompt: 141, completion: 183, total: 324 },
    { uri: '/v1/responses', prompt: 276, completion: 8, total: 284 },
    { uri: '/v1/responses/compact', prompt: 117, completion: 193, total: 310 },
    { uri: '/v1/responses', prompt: 285, completion: 9, total: 294 },
    { uri: '/v1/responses/compact', prompt: 117, completion: 186, total: 303 },
    { uri: '/v1/responses', prompt: 278, completion: 165, total: 443 },
  ];

  it('holds the eight exchanges listed', () => {
    expect(responses.map((response) => new URL(response.uri).pathname)).toEqual(
      expected.map((entry) => entry.uri),
    );
  });

  it.each(expected.map((entry, index) => [index, entry] as const))('reads exchange %i', (index, entry) => {
    const record = normalizeOpenAIResponses(responses[index]!.body);
    expect(record).toMatchObject({
      available: true,
      source: 'openai-responses',
      promptTokens: entry.prompt,
      completionTokens: entry.completion,
      totalTokens: entry.total,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
    });
    // The compaction object names no model; the responses name gpt-4.1-2025-04-14.
    expect(record.model).toBe(entry.uri === '/v1/responses' ? 'gpt-4.1-2025-04-14' : undefined);
  });

  it('stamps the response creation time (created_at 1776203679)', () => {
    expect(normalizeOpenAIResponses(responses[0]!.body).timestamp).toBe('2026-04-14T21:54:39.000Z');
  });
});

describe('normalizeOpenAIResponses on documented shapes', () => {
  const usage = {
    input_tokens: 5000,
    input_tokens_details: { cached_tokens: 4096 },
    output_tokens: 900,
    output_tokens_details: { reasoning_tokens: 640 },
    total_tokens: 5900,
  };

  it('reads cached input and reasoning output from the details', () => {
    expect(normalizeOpenAIResponses({ model: 'o4-mini', usage })).toMatchObject({
      promptTokens: 5000,
      cachedReadTokens: 4096,
      completionTokens: 900,
      reasoningTokens: 640,
      totalTokens: 5900,
      model: 'o4-mini',
    });
  });

  it('reads a stream from its response.completed event', () => {
    const events = [
      { type: 'response.created', response: { model: 'o4-mini', usage: null } },
      { type: 'response.output_text.delta', delta: 'Hi' },
      { type: 'response.completed', response: { model: 'o4-mini', usage } },
    ];
    expect(normalizeOpenAIResponses(events)).toMatchObject({
      available: true,
      promptTokens: 5000,
      model: 'o4-mini',
    });
    const sse = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
    expect(normalizeOpenAIResponses(sse)).toEqual(normalizeOpenAIResponses(events));
  });

  it('says a stream cut before response.completed has no usage', () => {
    const record = normalizeOpenAIResponses([
      { type: 'response.created', response: { model: 'o4-mini', usage: null } },
    ]);
    expect(record).toMatchObject({
      available: false,
      reason: 'no event of the stream carries usage',
      model: 'o4-mini',
    });
  });

  it('never turns a missing usage into zeros', () => {
    expect(normalizeOpenAIResponses({ id: 'resp_1', usage: null })).toMatchObject({ available: false });
    expect(normalizeOpenAIResponses({ usage: { input_tokens: 3 } })).toMatchObject({
      available: false,
      reason: 'usage.output_tokens is missing',
    });
    expect(normalizeOpenAIResponses(7)).toMatchObject({ available: false });
  });
});
