import { describe, expect, it } from 'vitest';
import { normalizeGemini } from './normalize-gemini.js';
import { parseServerSentEvents } from './server-sent-events.js';
import { loadCassette } from './test-helpers/traces.js';

describe('normalizeGemini on the recorded thinking stream', () => {
  // test_google_model_thinking_part_iter.yaml: gemini-2.5-pro streamGenerateContent?alt=sse; each chunk
  // repeats the cumulative usageMetadata. The last: prompt 34, candidates 469, thoughts 787, total 1290.
  const [response] = loadCassette('test_google_model_thinking_part_iter.yaml');
  const sse = response!.body as string;

  it('reads the final chunk: thoughts count as completion and as reasoning', () => {
    expect(normalizeGemini(sse)).toEqual({
      available: true,
      source: 'gemini',
      promptTokens: 34,
      completionTokens: 469 + 787,
      totalTokens: 1290,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 787,
      model: 'gemini-2.5-pro',
    });
  });

  it('reads the same stream given as an array of chunks', () => {
    expect(normalizeGemini(parseServerSentEvents(sse))).toEqual(normalizeGemini(sse));
  });

  it('reads a chunk that has only thought so far (candidatesTokenCount omitted, i.e. 0)', () => {
    const [first] = parseServerSentEvents(sse);
    expect(normalizeGemini(first)).toMatchObject({
      promptTokens: 34,
      completionTokens: 68,
      totalTokens: 102,
      reasoningTokens: 68,
    });
  });
});

describe('normalizeGemini on the recorded generateContent responses', () => {
  // test_multiple_agent_tool_calls.yaml: interactions 1 and 2 are gemini-2.0-flash-exp:generateContent.
  const [toolCall, answer] = loadCassette('test_multiple_agent_tool_calls.yaml');

  it('reads the function-call response: 23 prompt, 5 candidates, 28 total', () => {
    expect(toolCall!.uri).toContain('gemini-2.0-flash-exp:generateContent');
    expect(normalizeGemini(toolCall!.body)).toEqual({
      available: true,
      source: 'gemini',
      promptTokens: 23,
      completionTokens: 5,
      totalTokens: 28,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
      model: 'gemini-2.0-flash-exp',
    });
  });

  it('reads the answer: 35 prompt, 8 candidates, 43 total', () => {
    expect(normalizeGemini(answer!.body)).toMatchObject({
      promptTokens: 35,
      completionTokens: 8,
      totalTokens: 43,
    });
  });
});

describe('normalizeGemini on documented shapes', () => {
  it('reads cached content and tool-use prompt tokens', () => {
    const usageMetadata = {
      promptTokenCount: 12000,
      cachedContentTokenCount: 8000,
      toolUsePromptTokenCount: 300,
      candidatesTokenCount: 200,
      thoughtsTokenCount: 100,
      totalTokenCount: 12600,
    };
    expect(normalizeGemini({ usageMetadata })).toMatchObject({
      promptTokens: 12300,
      cachedReadTokens: 8000,
      completionTokens: 300,
      reasoningTokens: 100,
      totalTokens: 12600,
    });
    expect(normalizeGemini(usageMetadata)).toMatchObject({ promptTokens: 12300 });
  });

  it('never turns a missing usageMetadata into zeros', () => {
    expect(normalizeGemini({ candidates: [] })).toMatchObject({ available: false, source: 'gemini' });
    expect(normalizeGemini({ usageMetadata: {} })).toMatchObject({
      available: false,
      reason: 'usageMetadata.promptTokenCount is missing',
    });
    expect(normalizeGemini([{ candidates: [] }])).toMatchObject({
      available: false,
      reason: 'no chunk of the stream carries usageMetadata',
    });
  });
});
