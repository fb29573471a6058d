import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../session/session.js';
import { SessionMonitor } from '../session/session-monitor.js';
import {
  type CassetteServer,
  type ServedResponse,
  startCassetteServer,
} from '../test-helpers/cassette-server.js';
import { wrapAnthropic } from './anthropic.js';
import { wrapOpenAI } from './openai.js';

// Every response informs the quota, refusals included, and a wrapper with `waitOnQuota` waits as the verdict says.
// The real `openai` and `@anthropic-ai/sdk` clients against a local server that answers as each provider documents.

const refusal = (headers: Record<string, string>): ServedResponse => ({
  status: 429,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit_error' } }),
});
const completion = (): ServedResponse => ({
  headers: {
    'content-type': 'application/json',
    'x-ratelimit-limit-tokens': '30000',
    // 100 left: the next request (120 tokens, 144 with the margin) waits a moment for the refill.
    'x-ratelimit-remaining-tokens': '100',
    'x-ratelimit-reset-tokens': '1s',
  },
  body: JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'London.' },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 104, completion_tokens: 16, total_tokens: 120 },
  }),
});
const chunk = (content: string) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-2',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  })}\n\n`;

let server: CassetteServer;
/** What the server answers next, by path; the default is a completion. */
const next: { openai: ServedResponse[]; anthropic: ServedResponse[] } = { openai: [], anthropic: [] };
beforeAll(async () => {
  server = await startCassetteServer((request) => {
    const queue = request.path.startsWith('/v1/messages') ? next.anthropic : next.openai;
    return queue.shift() ?? completion();
  });
});
afterAll(() => server.close());

const openaiClient = () => new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
const anthropicClient = () => new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, maxRetries: 0 });
const messages = [{ role: 'user' as const, content: 'What is the capital of England?' }];

describe('a refused request (429) is a quota observation', () => {
  it('openai: records the headers and retry-after (no generation); the verdict waits', async () => {
    next.openai.push(
      refusal({
        'x-ratelimit-limit-tokens': '30000',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '30s',
        'retry-after': '20',
      }),
    );
    const session = new Session({ model: 'gpt-4o-mini' });
    const openai = wrapOpenAI(openaiClient(), { session });
    await expect(openai.chat.completions.create({ model: 'gpt-4o-mini', messages })).rejects.toBeInstanceOf(
      OpenAI.RateLimitError,
    );
    expect(session.generations).toBe(0);
    expect(openai.barometer.verdict).toMatchObject({ action: 'wait', waitSeconds: 20 });
    expect(session.state.reported).toMatchObject({
      tokens: { limit: 30_000, remaining: 0 },
      retryAfterSeconds: 20,
    });
  });

  it('anthropic: records the headers and retry-after of a monitor session; the verdict waits', async () => {
    next.anthropic.push(
      refusal({
        'anthropic-ratelimit-input-tokens-limit': '30000',
        'anthropic-ratelimit-input-tokens-remaining': '0',
        'anthropic-ratelimit-input-tokens-reset': new Date(Date.now() + 30_000).toISOString(),
        'retry-after': '15',
      }),
    );
    const monitor = new SessionMonitor();
    const { id } = await monitor.create({ model: 'claude-sonnet-4-6' });
    const anthropic = wrapAnthropic(anthropicClient(), { session: { monitor, sessionId: id } });
    await expect(
      anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, messages }),
    ).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    const view = await monitor.view(id);
    expect(view.generations).toBe(0);
    expect(view.verdict).toMatchObject({ action: 'wait', waitSeconds: 15 });
    expect(anthropic.barometer.verdict).toMatchObject({ action: 'wait', waitSeconds: 15 });
    await monitor.close();
  });
});

describe('waitOnQuota', () => {
  it('waits the verdict’s wait before the next call, and says why (openai)', async () => {
    const session = new Session({ model: 'gpt-4o-mini' });
    const openai = wrapOpenAI(openaiClient(), { session, waitOnQuota: true });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(session.lastVerdict).toMatchObject({ action: 'wait' });
    const before = server.requests.length;
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(server.requests.length).toBe(before + 1);
    expect(openai.barometer.lastWait?.seconds).toBeGreaterThan(0);
    expect(openai.barometer.lastWait?.reason).toMatch(/^wait 0\.1 s rather than compress: tokens per minute/);
  });

  it('ends the wait when the call is aborted: the request is never sent (anthropic)', async () => {
    next.anthropic.push(refusal({ 'retry-after': '30' }));
    const session = new Session({ model: 'claude-sonnet-4-6' });
    const anthropic = wrapAnthropic(anthropicClient(), { session, waitOnQuota: true });
    await expect(
      anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, messages }),
    ).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    expect(session.lastVerdict).toMatchObject({ action: 'wait', waitSeconds: 30 });
    const before = server.requests.length;
    const controller = new AbortController();
    const call = anthropic.messages.create(
      { model: 'claude-sonnet-4-6', max_tokens: 64, messages },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(server.requests.length).toBe(before);
    expect(anthropic.barometer.lastWait?.reason).toContain(
      'the provider refused a request and asked to retry after',
    );
  });

  it('does not wait without the option (openai)', async () => {
    next.openai.push(refusal({ 'retry-after': '30' }));
    const session = new Session({ model: 'gpt-4o-mini' });
    const openai = wrapOpenAI(openaiClient(), { session });
    await expect(openai.chat.completions.create({ model: 'gpt-4o-mini', messages })).rejects.toThrow();
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(openai.barometer.lastWait).toBeNull();
    expect(session.generations).toBe(1);
  });
});

describe('a stream stopped early keeps what arrived and says so', () => {
  it('openai: the aborted chat stream is recorded as stopped, not as "the stream holds no JSON chunks"', async () => {
    next.openai.push({
      headers: { 'content-type': 'text/event-stream' },
      body: chunk('Lon') + chunk('don'),
      hold: true,
    });
    const session = new Session({ model: 'gpt-4o-mini' });
    const openai = wrapOpenAI(openaiClient(), { session });
    const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
    let read = 0;
    for await (const _ of stream) {
      if (++read === 2) break;
    }
    await expect.poll(() => session.generations).toBe(1);
    expect(openai.barometer.lastCall?.usage).toMatchObject({
      available: false,
      reason:
        'the stream was stopped after 2 events, before its usage arrived (OpenAI sends it in the last event)',
    });
    expect(openai.barometer.lastCall?.note).toBe('the stream was stopped after 2 events');
  });

  it("anthropic: an aborted stream keeps message_start's input figures, and says so", async () => {
    const start = {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 1200,
          cache_read_input_tokens: 30_000,
          cache_creation_input_tokens: 0,
          output_tokens: 1,
        },
      },
    };
    const delta = {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'Hello' },
    };
    next.anthropic.push({
      headers: { 'content-type': 'text/event-stream' },
      body:
        `event: message_start\ndata: ${JSON.stringify(start)}\n\n` +
        `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n` +
        `event: content_block_delta\ndata: ${JSON.stringify(delta)}\n\n`,
      hold: true,
    });
    const session = new Session({ model: 'claude-sonnet-4-6' });
    const anthropic = wrapAnthropic(anthropicClient(), { session });
    const stream = await anthropic.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages,
      stream: true,
    });
    for await (const event of stream) {
      if (event.type === 'content_block_delta') break;
    }
    await expect.poll(() => session.generations).toBe(1);
    expect(anthropic.barometer.lastCall?.usage).toMatchObject({ available: true, promptTokens: 31_200 });
    expect(anthropic.barometer.lastCall?.note).toMatch(/^the stream was stopped after 3 events/);
  });
});
