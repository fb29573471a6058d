import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, wrapLanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../session/session.js';
import {
  anthropicRateLimitHeaders,
  type CassetteServer,
  OPENAI_RATE_LIMIT_HEADERS,
  replay,
  startCassetteServer,
} from '../test-helpers/cassette-server.js';
import { loadCassette } from '../usage/test-helpers/traces.js';
import { barometerMiddleware } from './ai-sdk.js';

/**
 * The middleware over the AI SDK's real OpenAI and Anthropic providers (`@ai-sdk/openai`, `@ai-sdk/anthropic`),
 * talking HTTP to a local server that answers with recorded responses: what the provider puts on the wire from the
 * merged provider options, and the response headers it hands the middleware.
 */

const completion = loadCassette('test_multiple_agent_tool_calls.yaml').find((recorded) =>
  recorded.uri.endsWith('/chat/completions'),
)!;
const [chatStream] = loadCassette('test_run_stream_sync_streams_real_model.yaml');
const [message] = loadCassette('test_anthropic_compaction_usage_with_cache.yaml');

const T0 = Date.parse('2026-11-22T12:00:00Z');
let server: CassetteServer;
beforeAll(async () => {
  server = await startCassetteServer((request) => {
    if (request.path.endsWith('/v1/messages'))
      return replay(message!, {
        ...anthropicRateLimitHeaders(new Date(T0 + 8000)),
        'anthropic-ratelimit-input-tokens-remaining': '4000',
      });
    const headers = { ...OPENAI_RATE_LIMIT_HEADERS, 'x-ratelimit-remaining-tokens': '12000' };
    if (request.body?.stream === true) return replay(chatStream!, headers);
    // The recorded completion is gpt-4o-mini's; the API answers with the model it was asked for, and a session
    // follows the model its calls name, so the answer names the requested model.
    const served = replay(completion, headers);
    const asked = request.body?.model;
    return typeof asked === 'string'
      ? { ...served, body: JSON.stringify({ ...JSON.parse(served.body), model: asked }) }
      : served;
  });
});
afterAll(() => server.close());

describe('barometerMiddleware with @ai-sdk/openai', () => {
  it('records usage and the rate-limit headers, then sends reasoning_effort "low" once the quota runs short', async () => {
    const session = new Session({ model: 'gpt-5' }, { now: () => T0 });
    const openai = createOpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` });
    const model = wrapLanguageModel({
      model: openai.chat('gpt-5'),
      middleware: barometerMiddleware({ session }),
    });
    await generateText({ model, prompt: 'What is the capital of England?' });
    expect(session.state.lastPrompt).toBe(104);
    // 12,000 of 200,000 tokens left (the headers): 6%, so a reasoning model's thinking is lowered.
    expect(session.signals().quotas).toContainEqual(
      expect.objectContaining({ dimension: 'tokens', limit: 200000, left: 12000, source: 'headers' }),
    );
    expect(session.lastVerdict?.thinking).toEqual({ reasoning_effort: 'low' });
    const before = server.requests.length;
    await generateText({ model, prompt: 'And of France?' });
    expect(server.requests[before]?.body).toMatchObject({ model: 'gpt-5', reasoning_effort: 'low' });
  });

  it('records a streamed call from its finish part', async () => {
    const session = new Session({ model: 'gpt-4o-mini' }, { now: () => T0 });
    const openai = createOpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` });
    const model = wrapLanguageModel({
      model: openai.chat('gpt-4o-mini'),
      middleware: barometerMiddleware({ session }),
    });
    const result = streamText({ model, prompt: 'What is the capital of the UK?' });
    await result.consumeStream();
    expect(session.generations).toBe(1);
    expect(session.state.lastPrompt).toBe(53);
  });
});

describe('barometerMiddleware with @ai-sdk/anthropic', () => {
  it('lowers a thinking budget the call asked for: thinking.budget_tokens 8192 on the wire', async () => {
    // 4,000 of 30,000 input tokens a minute left after the first call (the headers): 13%.
    const session = new Session(
      { model: 'claude-sonnet-4-6', rateLimits: { inputTokensPerMinute: 30_000 } },
      { now: () => T0 },
    );
    const anthropic = createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${server.url}/v1` });
    const model = wrapLanguageModel({
      model: anthropic('claude-sonnet-4-6'),
      middleware: barometerMiddleware({ session }),
    });
    const providerOptions = { anthropic: { thinking: { type: 'enabled' as const, budgetTokens: 24_576 } } };
    await generateText({ model, prompt: 'Now say hello.', providerOptions });
    expect(session.signals().quotas).toContainEqual(
      expect.objectContaining({ dimension: 'input', limit: 30000, left: 4000, source: 'headers' }),
    );
    expect(session.lastVerdict?.thinking).toEqual({ thinking: { type: 'enabled', budget_tokens: 8192 } });
    expect(server.requests.at(-1)?.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 24_576 },
    });
    await generateText({ model, prompt: 'Again.', providerOptions });
    expect(server.requests.at(-1)?.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 8192 },
    });
  });
});
