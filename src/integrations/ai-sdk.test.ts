import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import {
  generateText,
  type ModelMessage,
  simulateReadableStream,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RECAP_HEADING } from '../compaction/build-recap.js';
import { Session } from '../session/session.js';
import { SessionMonitor } from '../session/session-monitor.js';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import { barometerMiddleware, barometerPrepareStep, barometerStopWhen } from './ai-sdk.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-ai-sdk-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const T0 = Date.parse('2026-11-22T12:00:00Z');
let tick = 0;
/** A clock that moves a second per reading, so that updates are ordered and the tests do not depend on now. */
const now = () => T0 + 1000 * tick++;

/** The spec's usage object, as a provider reports it. */
function usage(input: number, output = 80) {
  return {
    inputTokens: { total: input, noCache: input - 1000, cacheRead: 1000, cacheWrite: 0 },
    outputTokens: { total: output, text: output - 20, reasoning: 20 },
  };
}

function textResult(
  input: number,
  headers: Record<string, string> = {},
  text = 'ok',
): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usage(input),
    warnings: [],
    response: { id: 'resp', modelId: 'gpt-5-2026-01-01', timestamp: new Date(T0), headers },
  };
}

/** A mock model (the AI SDK's own) answering with these prompt sizes in turn; the last one repeats. */
function mockModel(sizes: number[], provider = 'openai.chat', headers: Record<string, string> = {}) {
  let call = 0;
  return new MockLanguageModelV3({
    provider,
    modelId: 'gpt-5',
    doGenerate: async () => textResult(sizes[Math.min(call++, sizes.length - 1)] as number, headers),
  });
}

/** A conversation of `turns` tool turns, long enough for a compaction to be worth it. */
function conversation(turns: number): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push(
      { role: 'user', content: `Step ${turn}: read src/module${turn}.ts` },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: `c${turn}`, toolName: 'read_file', input: { path: `m${turn}` } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${turn}`,
            toolName: 'read_file',
            output: {
              type: 'text',
              value: `export const f${turn} = (x: number) => x * ${turn};\n`.repeat(60),
            },
          },
        ],
      },
      { role: 'assistant', content: `Module ${turn} multiplies by ${turn}.` },
    );
  }
  return messages;
}

const owned = (prompt: LanguageModelV3CallOptions['prompt']) =>
  prompt.filter((message) => message.role === 'system' && message.providerOptions?.barometer?.reminder);

describe('barometerMiddleware', () => {
  describe('after each call', () => {
    it('records a generation’s usage and response headers before the caller has the result', async () => {
      const session = new Session({ model: 'gpt-5' }, { now });
      const middleware = barometerMiddleware({ session });
      const model = wrapLanguageModel({
        model: mockModel([4200], 'openai.chat', {
          'x-ratelimit-limit-tokens': '30000',
          'x-ratelimit-remaining-tokens': '25000',
          'x-ratelimit-reset-tokens': '10s',
        }),
        middleware,
      });
      await generateText({ model, prompt: 'hello' });
      expect(session.generations).toBe(1);
      expect(middleware.barometer.lastCall?.usage).toMatchObject({
        available: true,
        source: 'ai-sdk',
        promptTokens: 4200,
        completionTokens: 80,
        cachedReadTokens: 1000,
        reasoningTokens: 20,
        model: 'gpt-5-2026-01-01',
      });
      expect(session.signals().quotas).toContainEqual(
        expect.objectContaining({ dimension: 'tokens', limit: 30000, left: 25000, source: 'headers' }),
      );
      expect(middleware.barometer.verdict).toBe(session.lastVerdict);
    });

    it('records a stream’s usage from its finish part, before the caller reads that part', async () => {
      const session = new Session({ model: 'gpt-5' }, { now });
      const chunks: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'r', modelId: 'gpt-5-2026-01-01', timestamp: new Date(T0) },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'hi' },
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(3000, 12) },
      ];
      const model = wrapLanguageModel({
        model: new MockLanguageModelV3({
          provider: 'openai.responses',
          doStream: async () => ({
            stream: simulateReadableStream({ chunks }),
            response: {
              headers: { 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '59' },
            },
          }),
        }),
        middleware: barometerMiddleware({ session }),
      });
      const result = streamText({ model, prompt: 'hello' });
      const seen: number[] = [];
      for await (const part of result.fullStream)
        if (part.type === 'finish-step') seen.push(session.generations);
      expect(seen).toEqual([1]);
      expect(session.state.lastPrompt).toBe(3000);
      expect(session.signals().quotas).toContainEqual(
        expect.objectContaining({ dimension: 'requests', limit: 60, left: 59, source: 'headers' }),
      );
    });

    it('reports to a monitor’s session by id', async () => {
      const monitor = new SessionMonitor({ now });
      await monitor.create({ id: 'agent-1', model: 'gpt-5' });
      const middleware = barometerMiddleware({ session: { monitor, sessionId: 'agent-1' } });
      await generateText({
        model: wrapLanguageModel({ model: mockModel([5000]), middleware }),
        prompt: 'hi',
      });
      const view = await monitor.view('agent-1');
      expect(view.generations).toBe(1);
      expect(view.signals.lastPromptTokens).toBe(5000);
      expect(middleware.barometer.verdict).toEqual(view.verdict);
    });

    it('never fails the call: an unknown session goes to onError', async () => {
      const errors: unknown[] = [];
      const middleware = barometerMiddleware({
        session: { monitor: new SessionMonitor(), sessionId: 'nobody' },
        onError: (error) => errors.push(error),
      });
      const result = await generateText({
        model: wrapLanguageModel({ model: mockModel([100]), middleware }),
        prompt: 'hi',
      });
      expect(result.text).toBe('ok');
      expect(errors).toHaveLength(2); // reading the verdict before, recording after
      expect(middleware.barometer.lastError).toMatchObject({ code: 'BR_ERR_SESSION_NOT_FOUND' });
    });
  });

  describe('before each call', () => {
    it('adds the context_health reminder as one system message of its own while it is active', async () => {
      const session = new Session({ model: 'gpt-5', optimalMaxTokens: 1000 }, { now });
      const mock = mockModel([1500, 1600, 500]);
      const model = wrapLanguageModel({
        model: mock,
        middleware: barometerMiddleware({ session, compact: false }),
      });
      for (const prompt of ['one', 'two', 'three', 'four'])
        await generateText({ model, system: 'Be brief.', prompt });
      const calls = mock.doGenerateCalls;
      expect(owned(calls[0]!.prompt)).toEqual([]);
      // Caution after the first call: the reminder, with the figures of the latest prompt, once.
      expect(owned(calls[1]!.prompt)).toHaveLength(1);
      expect(owned(calls[2]!.prompt)).toEqual([
        {
          role: 'system',
          content: expect.stringContaining('The last prompt was 1,600 tokens'),
          providerOptions: { barometer: { reminder: 'context_health' } },
        },
      ]);
      // Healthy again (500 tokens): the reminder is gone.
      expect(owned(calls[3]!.prompt)).toEqual([]);
    });

    it('puts the reminder last for OpenAI models and after the system messages for the others', async () => {
      for (const [provider, where] of [
        ['openai.chat', 'last'],
        ['anthropic.messages', 'after-system'],
        ['google.generative-ai', 'after-system'],
      ] as const) {
        const session = new Session({ model: 'gpt-5', optimalMaxTokens: 1000 }, { now });
        const mock = mockModel([1500], provider);
        const model = wrapLanguageModel({
          model: mock,
          middleware: barometerMiddleware({ session, compact: false }),
        });
        await generateText({ model, system: 'Be brief.', prompt: 'one' });
        await generateText({ model, system: 'Be brief.', prompt: 'two' });
        const roles = mock.doGenerateCalls[1]!.prompt.map((message) =>
          message.providerOptions?.barometer ? 'reminder' : message.role,
        );
        expect(roles).toEqual(
          where === 'last' ? ['system', 'user', 'reminder'] : ['system', 'reminder', 'user'],
        );
      }
    });

    it('replaces a reminder it added before instead of adding a second', async () => {
      const session = new Session({ model: 'gpt-5', optimalMaxTokens: 1000 }, { now });
      session.update({
        usage: {
          available: true,
          source: 'manual',
          promptTokens: 1500,
          completionTokens: 10,
          totalTokens: 1510,
          cachedReadTokens: 0,
          cachedWriteTokens: 0,
          reasoningTokens: 0,
        },
      });
      const middleware = barometerMiddleware({ session, compact: false });
      const stale = {
        role: 'system' as const,
        content: 'Context health: caution. (an older text)',
        providerOptions: { barometer: { reminder: 'context_health' } },
      };
      const params = await middleware.transformParams!({
        type: 'generate',
        params: { prompt: [stale, { role: 'user', content: [{ type: 'text', text: 'go' }] }] },
        model: mockModel([1]),
      });
      expect(owned(params.prompt)).toEqual([{ ...stale, content: session.health().reminder!.text }]);
    });

    it('merges the verdict’s thinking into the call’s provider options, never raising them', async () => {
      // 10,000 tokens a minute, 8,580 used: under 20% left, so a reasoning model's thinking is lowered.
      const session = new Session({ model: 'gpt-5', rateLimits: { tokensPerMinute: 10_000 } }, { now });
      const mock = mockModel([8500]);
      // The next 8,580 do not fit the 1,420 left: the verdict also says wait (a minute), which this test is not about.
      const middleware = barometerMiddleware({ session, waitOnQuota: false });
      const model = wrapLanguageModel({ model: mock, middleware });
      await generateText({ model, prompt: 'one', providerOptions: { openai: { user: 'u1' } } });
      expect(session.lastVerdict?.thinking).toEqual({ reasoning_effort: 'low' });
      await generateText({ model, prompt: 'two', providerOptions: { openai: { user: 'u1' } } });
      expect(mock.doGenerateCalls[1]!.providerOptions).toEqual({
        openai: { user: 'u1', reasoningEffort: 'low' },
      });
      expect(middleware.barometer.lastThinking).toEqual(['reasoningEffort default → low']);
      await generateText({
        model,
        prompt: 'three',
        providerOptions: { openai: { reasoningEffort: 'minimal' } },
      });
      expect(mock.doGenerateCalls[2]!.providerOptions).toEqual({ openai: { reasoningEffort: 'minimal' } });
    });

    it('on wait, waits instead of compressing a cached conversation (2,000 of 30,000 tokens/min left, the found case)', async () => {
      const session = new Session({ model: 'gpt-5' }, { now });
      // 1,780 tokens a call (1,700 in, 80 out): they fit the 2,000 left, not with survival's 1.2 margin (2,136).
      const mock = mockModel([1700], 'openai.chat', {
        'x-ratelimit-limit-tokens': '30000',
        'x-ratelimit-remaining-tokens': '2000',
        'x-ratelimit-reset-tokens': '28s',
      });
      const middleware = barometerMiddleware({
        session,
        archive: new ArchiveStore({ root: join(root, 'wait') }),
      });
      const model = wrapLanguageModel({ model: mock, middleware });
      const history = conversation(5);
      await generateText({ model, messages: history });
      expect(session.lastVerdict).toMatchObject({ action: 'wait', waitSeconds: 0.2 });
      history.push({ role: 'user', content: 'Step 6: go on.' });
      await generateText({ model, messages: history });
      // Every message went out as it was: nothing compacted, the prompt cache holds.
      expect(mock.doGenerateCalls[1]!.prompt).toHaveLength(history.length);
      expect(middleware.barometer.lastCompaction).toBeNull();
      expect(middleware.barometer.lastWait).toMatchObject({
        reason: expect.stringMatching(
          /^wait 0\.2 s rather than compress: tokens per minute: 2000 left, 2136 needed/,
        ),
      });
    });

    it('ends a wait when the call is aborted: the model is not called', async () => {
      const session = new Session({ model: 'gpt-5', maxWaitSeconds: 120 }, { now });
      // 29,500 of 30,000 used, 30,000 refilling over 60 s: the next 1,780 (2,136 with the margin) wait ~3.3 s.
      const mock = mockModel([1700], 'openai.chat', {
        'x-ratelimit-limit-tokens': '30000',
        'x-ratelimit-remaining-tokens': '500',
        'x-ratelimit-reset-tokens': '59s',
      });
      const middleware = barometerMiddleware({ session });
      const model = wrapLanguageModel({ model: mock, middleware });
      await generateText({ model, prompt: 'one' });
      expect(session.lastVerdict?.action).toBe('wait');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      await expect(
        generateText({ model, prompt: 'two', abortSignal: controller.signal, maxRetries: 0 }),
      ).rejects.toThrow(/abort/i);
      expect(mock.doGenerateCalls).toHaveLength(1);
    });

    it('on compress, compacts the prompt (archive first), records the compaction, and keeps it on later calls', async () => {
      const monitor = new SessionMonitor({ now, archive: new ArchiveStore({ root: join(root, 'monitor') }) });
      await monitor.create({ id: 'run-7', model: 'gpt-5', optimalMaxTokens: 4000 });
      // The first call is over the optimal size: the verdict is compress. The compacted second call is small.
      const mock = mockModel([9000, 2500, 2600]);
      const attempts: unknown[] = [];
      const middleware = barometerMiddleware({
        session: { monitor, sessionId: 'run-7' },
        keepTurns: 2,
        onCompaction: (attempt) => attempts.push(attempt),
      });
      const model = wrapLanguageModel({ model: mock, middleware });
      const history = conversation(8);
      await generateText({ model, system: 'You are a coding agent.', messages: history });
      expect((await monitor.view('run-7')).verdict?.action).toBe('compress');

      history.push({ role: 'user', content: 'Step 9: summarise.' });
      await generateText({ model, system: 'You are a coding agent.', messages: history });
      const [full, compacted] = mock.doGenerateCalls.map((call) => call.prompt);
      expect(compacted![0]).toEqual(full![0]);
      expect(compacted![1]).toMatchObject({
        role: 'user',
        content: [{ type: 'text', text: expect.stringContaining(RECAP_HEADING) }],
        providerOptions: { barometer: { recap: 'recap-1' } },
      });
      // The kept turns verbatim (turn 8 and the new request), then the reminder (last, for an OpenAI model).
      expect(compacted!.slice(2, -1)).toEqual([
        ...full!.slice(-4),
        { role: 'user', content: [{ type: 'text', text: 'Step 9: summarise.' }] },
      ]);
      expect(compacted!.at(-1)).toMatchObject({
        providerOptions: { barometer: { reminder: 'context_health' } },
      });

      // Every replaced message is in the archive, exactly as the model was sent it.
      const archive = join(root, 'monitor', 'run-7', 'compaction-1.log');
      const records = await readArchiveFile(archive);
      expect(records.map((record) => JSON.parse(record.content))).toEqual(full!.slice(1, -4));
      expect(attempts).toEqual([{ ok: true, result: expect.objectContaining({ archives: [archive] }) }]);
      const view = await monitor.view('run-7');
      expect(view.markers.map((marker) => marker.type)).toContain('compaction');

      // The caller still sends the whole history: the same recap stands in for the same messages, archived once.
      history.push({ role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Thanks.' });
      await generateText({ model, system: 'You are a coding agent.', messages: history });
      // (The second call's 2,500 tokens are healthy: no reminder now.)
      const third = mock.doGenerateCalls[2]!.prompt;
      expect(third.slice(0, 2)).toEqual(compacted!.slice(0, 2));
      expect(third).toHaveLength(compacted!.length - 1 + 2);
      expect(await readdir(join(root, 'monitor', 'run-7'))).toEqual(['compaction-1.log']);
    });

    it('does not compact without an archive: nothing leaves a context that cannot be read back', async () => {
      const session = new Session({ model: 'gpt-5', optimalMaxTokens: 4000 }, { now });
      const mock = mockModel([9000]);
      const middleware = barometerMiddleware({ session });
      const model = wrapLanguageModel({ model: mock, middleware });
      await generateText({ model, messages: conversation(8) });
      await generateText({ model, messages: conversation(8) });
      expect(mock.doGenerateCalls[1]!.prompt.length).toBe(mock.doGenerateCalls[0]!.prompt.length + 1);
      expect(middleware.barometer.lastCompaction).toEqual({
        ok: false,
        reason: 'no archive: barometer compacts only what it can write to an archive first',
      });
    });
  });

  describe('spec v4', () => {
    it('reads v4 call options (its top-level reasoning level, its new part types) with the same hooks', async () => {
      const session = new Session(
        { model: 'claude-sonnet-4-6', rateLimits: { inputTokensPerMinute: 10_000 } },
        { now },
      );
      session.update({
        usage: {
          available: true,
          source: 'anthropic',
          promptTokens: 9000,
          completionTokens: 50,
          totalTokens: 9050,
          cachedReadTokens: 0,
          cachedWriteTokens: 0,
          reasoningTokens: 0,
        },
      });
      expect(session.lastVerdict?.thinking).toEqual({ thinking: { type: 'enabled', budget_tokens: 8192 } });
      const middleware = barometerMiddleware({ session });
      // LanguageModelV4CallOptions (@ai-sdk/provider 4): `reasoning`, and assistant `custom` / `reasoning-file` parts.
      const v4Params = {
        prompt: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', content: [{ type: 'custom', kind: 'anthropic.note' }] },
        ],
        reasoning: 'high',
      } as unknown as LanguageModelV3CallOptions;
      const params = (await middleware.transformParams!({
        type: 'stream',
        params: v4Params,
        model: mockModel([1], 'anthropic.messages'),
      })) as LanguageModelV3CallOptions & { reasoning?: string };
      expect(params.reasoning).toBe('low');
      expect(params.prompt).toEqual(v4Params.prompt);
    });
  });
});

describe('barometerStopWhen', () => {
  const lookTool = { look: tool({ inputSchema: z.object({}), execute: async () => 'seen' }) };
  const toolCall = (input: number): LanguageModelV3GenerateResult => ({
    ...textResult(input),
    content: [{ type: 'tool-call', toolCallId: `c${input}`, toolName: 'look', input: '{}' }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  });

  it('stops an agent loop on terminate (its token budget spent), not before', async () => {
    // 2,000 + 80 tokens a step against a budget of 5,000: after the second step the next would not fit.
    const session = new Session({ model: 'gpt-5', tokenBudget: 5000 }, { now });
    let step = 0;
    const mock = new MockLanguageModelV3({ doGenerate: async () => toolCall(2000 + step++) });
    const result = await generateText({
      model: wrapLanguageModel({ model: mock, middleware: barometerMiddleware({ session }) }),
      tools: lookTool,
      prompt: 'look around',
      stopWhen: [stepCountIs(10), barometerStopWhen({ session })],
    });
    expect(result.steps).toHaveLength(2);
    expect(session.lastVerdict?.action).toBe('terminate');
  });

  it('does not stop on compress', async () => {
    const session = new Session({ model: 'gpt-5', optimalMaxTokens: 1000 }, { now });
    const mock = new MockLanguageModelV3({ doGenerate: async () => toolCall(5000) });
    const result = await generateText({
      model: wrapLanguageModel({ model: mock, middleware: barometerMiddleware({ session }) }),
      tools: lookTool,
      prompt: 'look around',
      stopWhen: [stepCountIs(3), barometerStopWhen({ session })],
    });
    expect(session.lastVerdict?.action).toBe('compress');
    expect(result.steps).toHaveLength(3);
  });
});

describe('barometerPrepareStep', () => {
  it('compacts the step’s messages on compress and adds the reminder, for a model without the middleware', async () => {
    const session = new Session({ model: 'gpt-5', optimalMaxTokens: 4000 }, { now });
    session.update({
      usage: {
        available: true,
        source: 'manual',
        promptTokens: 9000,
        completionTokens: 10,
        totalTokens: 9010,
        cachedReadTokens: 0,
        cachedWriteTokens: 0,
        reasoningTokens: 0,
      },
    });
    const prepareStep = barometerPrepareStep({
      session,
      archive: new ArchiveStore({ root: join(root, 'prepare') }),
      keepTurns: 1,
    });
    const mock = mockModel([2000]);
    await generateText({ model: mock, messages: conversation(8), prepareStep });
    const prompt = mock.doGenerateCalls[0]!.prompt;
    expect(prompt[0]).toMatchObject({ role: 'user', providerOptions: { barometer: { recap: 'recap-1' } } });
    expect(prompt.slice(1, -1)).toHaveLength(4);
    expect(prompt.at(-1)).toMatchObject({
      role: 'system',
      providerOptions: { barometer: { reminder: 'context_health' } },
    });
    expect(prepareStep.barometer.lastCompaction).toMatchObject({ ok: true });
  });
});
