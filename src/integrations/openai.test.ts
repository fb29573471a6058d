import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../session/session.js';
import { SessionMonitor } from '../session/session-monitor.js';
import {
  type CassetteServer,
  OPENAI_RATE_LIMIT_HEADERS,
  replay,
  startCassetteServer,
  withoutStreamUsage,
} from '../test-helpers/cassette-server.js';
import { parseServerSentEvents } from '../usage/server-sent-events.js';
import { loadCassette } from '../usage/test-helpers/traces.js';
import { wrapOpenAI } from './openai.js';

// Recorded responses (test/fixtures/traces/api-cassettes): a chat completion, a chat stream whose usage is in its
// last chunk (recorded with include_usage), and two Responses API answers.
const completion = loadCassette('test_multiple_agent_tool_calls.yaml').find((recorded) =>
  recorded.uri.endsWith('/chat/completions'),
)!;
const [chatStream] = loadCassette('test_run_stream_sync_streams_real_model.yaml');
const [response] = loadCassette('test_openai_responses_compact_with_auto_previous_response_id_chain.yaml');
const streamedChunks = parseServerSentEvents(chatStream!.body as string);

let server: CassetteServer;
beforeAll(async () => {
  server = await startCassetteServer((request) => {
    const body = request.body ?? {};
    if (request.path.endsWith('/responses')) {
      if (body.stream !== true) return replay(response!, OPENAI_RATE_LIMIT_HEADERS);
      // No streamed Responses call is recorded: the recorded response, in the two events that frame it
      // (`response.created`, `response.completed`, as the SDK's ResponseStreamEvent types name them).
      const recorded = response!.body as Record<string, unknown>;
      const events = [
        {
          type: 'response.created',
          sequence_number: 0,
          response: { ...recorded, status: 'in_progress', usage: null },
        },
        { type: 'response.completed', sequence_number: 1, response: recorded },
      ];
      return {
        headers: { 'content-type': 'text/event-stream; charset=utf-8', ...OPENAI_RATE_LIMIT_HEADERS },
        body: events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''),
      };
    }
    if (body.stream === true) {
      const served = replay(chatStream!, OPENAI_RATE_LIMIT_HEADERS);
      const asked = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      return asked ? served : { ...served, body: withoutStreamUsage(served.body) };
    }
    return replay(completion, OPENAI_RATE_LIMIT_HEADERS);
  });
});
afterAll(() => server.close());

const client = () => new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
const messages = [{ role: 'user' as const, content: 'What is the capital of England?' }];
const quotaFromHeaders = expect.objectContaining({
  dimension: 'tokens',
  limit: 200000,
  left: 150000,
  source: 'headers',
});

describe('wrapOpenAI', () => {
  it('records a chat completion’s usage and rate-limit headers; the completion is the one recorded', async () => {
    const session = new Session({ model: 'gpt-4o-mini' });
    const openai = wrapOpenAI(client(), { session });
    const result = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect({ ...result }).toEqual(completion.body);
    expect(openai.barometer.lastCall?.usage).toMatchObject({
      available: true,
      source: 'openai-chat',
      promptTokens: 104,
      completionTokens: 16,
    });
    expect(session.generations).toBe(1);
    expect(session.signals().quotas).toContainEqual(quotaFromHeaders);
    expect(openai.barometer.verdict).toBe(session.lastVerdict);
    expect(openai.barometer.lastCall?.costUsd).toBeGreaterThan(0);
  });

  it('asks for a stream’s usage and hides what that adds, so the caller reads the stream it asked for', async () => {
    const session = new Session({ model: 'gpt-4o-mini' });
    const openai = wrapOpenAI(client(), { session });
    const before = server.requests.length;
    const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
    const chunks: unknown[] = [];
    const generations: number[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      generations.push(session.generations);
    }
    expect(server.requests[before]?.body?.stream_options).toEqual({ include_usage: true });
    // What OpenAI sends a request that did not ask for usage: every chunk but the last, none with `usage`.
    expect(chunks).toEqual(parseServerSentEvents(withoutStreamUsage(chatStream!.body as string)));
    expect(chunks).toHaveLength(streamedChunks.length - 1);
    // Recorded once the body ended, before the loop over the stream ended.
    expect(generations.at(-1)).toBe(0);
    expect(session.generations).toBe(1);
    expect(openai.barometer.lastCall?.usage).toMatchObject({ promptTokens: 53, completionTokens: 15 });
  });

  it('leaves a stream that asks for its usage untouched', async () => {
    const session = new Session({ model: 'gpt-4o-mini' });
    const openai = wrapOpenAI(client(), { session });
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: unknown[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks).toEqual(streamedChunks);
    expect(openai.barometer.lastCall?.usage).toMatchObject({ promptTokens: 53, completionTokens: 15 });
  });

  it('with streamUsage: false, leaves the request alone and records the usage as unavailable', async () => {
    const session = new Session({ model: 'gpt-4o-mini' });
    const openai = wrapOpenAI(client(), { session, streamUsage: false });
    const before = server.requests.length;
    const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
    for await (const _ of stream) {
      // read to the end
    }
    expect(server.requests[before]?.body?.stream_options).toBeUndefined();
    expect(openai.barometer.lastCall?.usage).toMatchObject({ available: false });
    expect(session.health().level).toBe('unknown');
  });

  it('records the calls of the SDK’s helpers, which go through the same client', async () => {
    const session = new Session({ model: 'gpt-4o-mini' });
    const openai = wrapOpenAI(client(), { session });
    const runner = openai.chat.completions.stream({ model: 'gpt-4o-mini', messages });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.[0]?.function.name).toBe('get_capital');
    expect(session.generations).toBe(1);
    expect(openai.barometer.lastCall?.usage).toMatchObject({ promptTokens: 53 });
  });

  it('records Responses API calls, plain and streamed', async () => {
    const session = new Session({ model: 'gpt-5' });
    const openai = wrapOpenAI(client(), { session });
    const recorded = response!.body as { usage: { input_tokens: number; output_tokens: number } };
    const plain = await openai.responses.create({ model: 'gpt-5', input: 'hello' });
    expect(plain.usage).toEqual(recorded.usage);
    expect(openai.barometer.lastCall?.usage).toMatchObject({
      source: 'openai-responses',
      promptTokens: recorded.usage.input_tokens,
      completionTokens: recorded.usage.output_tokens,
    });
    const stream = await openai.responses.create({ model: 'gpt-5', input: 'hello', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual(['response.created', 'response.completed']);
    expect(session.generations).toBe(2);
    expect(session.signals().quotas).toContainEqual(quotaFromHeaders);
  });

  it('reports to a monitor’s session, and leaves the client it was given unchanged', async () => {
    const monitor = new SessionMonitor();
    await monitor.create({ id: 'openai-1', model: 'gpt-4o-mini' });
    const original = client();
    const openai = wrapOpenAI(original, { session: { monitor, sessionId: 'openai-1' } });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await original.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect((await monitor.view('openai-1')).generations).toBe(1);
    expect('barometer' in original).toBe(false);
    expect(openai).toBeInstanceOf(OpenAI);
  });

  it('does not record a failed call, and lets its error through as the SDK raises it', async () => {
    const failing = await startCassetteServer(() => ({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '1', ...OPENAI_RATE_LIMIT_HEADERS },
      body: JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests' } }),
    }));
    try {
      const session = new Session({ model: 'gpt-4o-mini' });
      const openai = wrapOpenAI(
        new OpenAI({ apiKey: 'sk-test', baseURL: `${failing.url}/v1`, maxRetries: 0 }),
        {
          session,
        },
      );
      await expect(openai.chat.completions.create({ model: 'gpt-4o-mini', messages })).rejects.toBeInstanceOf(
        OpenAI.RateLimitError,
      );
      expect(session.generations).toBe(0);
    } finally {
      await failing.close();
    }
  });
});
