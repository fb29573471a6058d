import { describe, expect, it } from 'vitest';
import { normalizeAnthropic, serverCompaction } from './normalize-anthropic.js';
import { parseServerSentEvents } from './server-sent-events.js';
import { loadCassette } from './test-helpers/traces.js';

/*
 * Reading of the two compaction cassettes (context_management compact_20260112, trigger 50,000 input
 * tokens, a ~55K-token prompt):
 * - usage.iterations[0] (type 'compaction') is the summarising pass: it read the whole conversation,
 *   100 uncached + 55,096 cached (written in one recording, read in the other) = 55,196 tokens, and
 *   wrote the summary (131 / 83 tokens).
 * - usage.iterations[1] (type 'message') is the answer, produced from the compacted context
 *   (229 / 181 tokens), and the top-level usage equals this last pass.
 * So the top-level prompt is the context after compaction, and the cost is the sum of the passes.
 */
describe('normalizeAnthropic on the recorded server-side compaction (JSON response)', () => {
  const [response] = loadCassette('test_anthropic_compaction_usage_with_cache.yaml');
  const record = normalizeAnthropic(response!.body);

  it('reports the final pass at top level: 229 prompt, 5 completion', () => {
    expect(record).toMatchObject({
      available: true,
      source: 'anthropic',
      promptTokens: 229,
      completionTokens: 5,
      totalTokens: 234,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
      model: 'claude-sonnet-4-6',
    });
  });

  it('lists both passes, the compaction pass reading 100 + 55,096 written to cache', () => {
    expect(record.available && record.iterations).toEqual([
      {
        type: 'compaction',
        promptTokens: 55196,
        completionTokens: 131,
        cachedReadTokens: 0,
        cachedWriteTokens: 55096,
      },
      { type: 'message', promptTokens: 229, completionTokens: 5, cachedReadTokens: 0, cachedWriteTokens: 0 },
    ]);
  });

  it('summarises the compaction: 55,196 tokens before, 229 after, billed as the sum', () => {
    expect(serverCompaction(record)).toEqual({
      compactions: 1,
      contextBeforeTokens: 55196,
      contextAfterTokens: 229,
      summaryTokens: 131,
      billedPromptTokens: 55196 + 229,
      billedCompletionTokens: 131 + 5,
    });
  });
});

describe('normalizeAnthropic on the recorded server-side compaction (SSE stream)', () => {
  const [response] = loadCassette('test_anthropic_compaction_usage_with_cache_streaming.yaml');
  const sse = response!.body as string;

  it('merges message_start and message_delta: the delta’s final figures win', () => {
    // message_start: input 100, cache_read 55,096, output 7 (the compaction pass, provisional);
    // message_delta: input 181, cache_read 0, cache_creation 0, output 8 (final, cumulative).
    expect(normalizeAnthropic(sse)).toMatchObject({
      available: true,
      source: 'anthropic',
      promptTokens: 181,
      completionTokens: 8,
      totalTokens: 189,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      model: 'claude-sonnet-4-6',
    });
  });

  it('lists the passes from the message_delta, the compaction pass reading 55,096 from cache', () => {
    const record = normalizeAnthropic(sse);
    expect(record.available && record.iterations).toEqual([
      {
        type: 'compaction',
        promptTokens: 55196,
        completionTokens: 83,
        cachedReadTokens: 55096,
        cachedWriteTokens: 0,
      },
      { type: 'message', promptTokens: 181, completionTokens: 8, cachedReadTokens: 0, cachedWriteTokens: 0 },
    ]);
    expect(serverCompaction(record)).toMatchObject({
      contextBeforeTokens: 55196,
      contextAfterTokens: 181,
      summaryTokens: 83,
    });
  });

  it('reads the same stream given as an array of events', () => {
    const events = parseServerSentEvents(sse);
    expect(events.map((event) => (event as { type: string }).type)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(normalizeAnthropic(events)).toEqual(normalizeAnthropic(sse));
  });

  it('reads a stream cut after message_start with its provisional figures', () => {
    const [start] = parseServerSentEvents(sse);
    expect(normalizeAnthropic([start])).toMatchObject({
      available: true,
      promptTokens: 100 + 55096,
      completionTokens: 7,
    });
    expect(normalizeAnthropic(start)).toMatchObject({ promptTokens: 55196 });
  });
});

describe('normalizeAnthropic on documented shapes', () => {
  it('adds cache read and cache creation to input_tokens', () => {
    const usage = {
      input_tokens: 3,
      cache_read_input_tokens: 11442,
      cache_creation_input_tokens: 15005,
      output_tokens: 9,
    };
    expect(normalizeAnthropic({ model: 'claude-opus-4-6', usage })).toMatchObject({
      promptTokens: 26450,
      cachedReadTokens: 11442,
      cachedWriteTokens: 15005,
      completionTokens: 9,
      totalTokens: 26459,
    });
    expect(normalizeAnthropic(usage)).toMatchObject({ promptTokens: 26450 });
  });

  it('has no iterations and no server compaction for an ordinary response', () => {
    const record = normalizeAnthropic({ usage: { input_tokens: 10, output_tokens: 2, iterations: [] } });
    expect(record.available && record.iterations).toBeUndefined();
    expect(serverCompaction(record)).toBeUndefined();
  });

  it('reports a stream that ended in an error', () => {
    const record = normalizeAnthropic([
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]);
    expect(record).toMatchObject({ available: false, reason: 'the stream ended with an error: Overloaded' });
  });

  it('never turns a missing usage into zeros', () => {
    expect(normalizeAnthropic({ type: 'message', content: [] })).toMatchObject({ available: false });
    expect(normalizeAnthropic({ usage: { output_tokens: 4 } })).toMatchObject({
      available: false,
      reason: 'usage.input_tokens is missing',
    });
    expect(normalizeAnthropic('not json at all')).toMatchObject({ available: false });
  });
});
