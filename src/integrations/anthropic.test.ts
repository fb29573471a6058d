import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../session/session.js';
import { SessionMonitor } from '../session/session-monitor.js';
import {
  anthropicRateLimitHeaders,
  type CassetteServer,
  replay,
  startCassetteServer,
} from '../test-helpers/cassette-server.js';
import { parseServerSentEvents } from '../usage/server-sent-events.js';
import { loadCassette } from '../usage/test-helpers/traces.js';
import { wrapAnthropic } from './anthropic.js';

// Recorded responses (test/fixtures/traces/api-cassettes): Anthropic server-side compaction, plain and streamed.
const [plain] = loadCassette('test_anthropic_compaction_usage_with_cache.yaml');
const [streamed] = loadCassette('test_anthropic_compaction_usage_with_cache_streaming.yaml');
const recordedEvents = parseServerSentEvents(streamed!.body as string);

const T0 = Date.parse('2026-11-22T12:00:00Z');
let server: CassetteServer;
beforeAll(async () => {
  server = await startCassetteServer((request) => {
    if (request.path.includes('/count_tokens'))
      return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input_tokens: 12 }) };
    const headers = anthropicRateLimitHeaders(new Date(T0 + 8000));
    return replay(request.body?.stream === true ? streamed! : plain!, headers);
  });
});
afterAll(() => server.close());

const client = () => new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, maxRetries: 0 });
const params = {
  model: 'claude-sonnet-4-6',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'Now say hello.' }],
};
const session = () => new Session({ model: 'claude-sonnet-4-6' }, { now: () => T0 });
const inputQuotaFromHeaders = expect.objectContaining({
  dimension: 'input',
  limit: 30000,
  left: 20000,
  source: 'headers',
});

describe('wrapAnthropic', () => {
  it('records a message’s usage (every server-side compaction pass) and rate-limit headers', async () => {
    const monitored = session();
    const anthropic = wrapAnthropic(client(), { session: monitored });
    const message = await anthropic.messages.create(params);
    expect({ ...message }).toEqual(plain!.body);
    expect(anthropic.barometer.lastCall?.usage).toMatchObject({
      source: 'anthropic',
      promptTokens: 229,
      completionTokens: 5,
      iterations: [
        { type: 'compaction', promptTokens: 55196, cachedWriteTokens: 55096 },
        { type: 'message', promptTokens: 229 },
      ],
    });
    expect(anthropic.barometer.lastCall?.events).toContainEqual(
      expect.objectContaining({ type: 'compaction', trigger: 'anthropic-server', before: 55196, after: 229 }),
    );
    expect(monitored.signals().quotas).toContainEqual(inputQuotaFromHeaders);
  });

  it('records a stream’s usage once it ends, and hands the caller the recorded events', async () => {
    const monitored = session();
    const anthropic = wrapAnthropic(client(), { session: monitored });
    const stream = await anthropic.messages.create({ ...params, stream: true });
    const events: unknown[] = [];
    for await (const event of stream) events.push(event);
    expect(events).toEqual(recordedEvents.filter((event) => (event as { type: string }).type !== 'ping'));
    expect(monitored.generations).toBe(1);
    expect(anthropic.barometer.lastCall?.usage).toMatchObject({
      promptTokens: 181,
      completionTokens: 8,
      iterations: [{ type: 'compaction', cachedReadTokens: 55096 }, { type: 'message' }],
    });
  });

  it('records messages.stream(), whose final message is the recorded one', async () => {
    const monitored = session();
    const anthropic = wrapAnthropic(client(), { session: monitored });
    const final = await anthropic.messages.stream(params).finalMessage();
    expect(final.content.map((block) => block.type)).toEqual(['compaction', 'text']);
    expect(monitored.generations).toBe(1);
    expect(monitored.signals().quotas).toContainEqual(inputQuotaFromHeaders);
  });

  it('records beta.messages too, and not the calls that use no model (token counting)', async () => {
    const monitored = session();
    const anthropic = wrapAnthropic(client(), { session: monitored });
    await anthropic.beta.messages.create(params);
    await anthropic.messages.countTokens({ model: params.model, messages: params.messages });
    expect(monitored.generations).toBe(1);
  });

  it('reports to a monitor’s session, and leaves the client it was given unchanged', async () => {
    const monitor = new SessionMonitor();
    await monitor.create({ id: 'claude-1', model: 'claude-sonnet-4-6' });
    const original = client();
    const anthropic = wrapAnthropic(original, { session: { monitor, sessionId: 'claude-1' } });
    await anthropic.messages.create(params);
    await original.messages.create(params);
    expect((await monitor.view('claude-1')).generations).toBe(1);
    expect(original.middleware).toEqual([]);
    expect('barometer' in original).toBe(false);
    expect(anthropic).toBeInstanceOf(Anthropic);
  });

  it('never fails the call: a session that cannot take the usage goes to onError', async () => {
    const errors: unknown[] = [];
    const anthropic = wrapAnthropic(client(), {
      session: { monitor: new SessionMonitor(), sessionId: 'missing' },
      onError: (error) => errors.push(error),
    });
    const message = await anthropic.messages.create(params);
    expect(message.id).toBe((plain!.body as { id: string }).id);
    expect(errors).toEqual([expect.objectContaining({ code: 'BR_ERR_SESSION_NOT_FOUND' })]);
  });
});
