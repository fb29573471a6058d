import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
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
import type { ArchiveSink } from '../compaction/archive-sink.js';
import { EvictionPolicy } from '../compaction/eviction-policy.js';
import { Session } from '../session/session.js';
import { SessionMonitor } from '../session/session-monitor.js';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { barometerMiddleware } from './ai-sdk.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-ai-sdk-policy-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const T0 = Date.parse('2026-11-22T12:00:00Z');
let tick = 0;
const now = () => T0 + 1000 * tick++;

/** One token per character: every size below can be worked out by hand from the texts. */
const chars: TokenCounter = { name: 'chars', estimate: true, count: (text) => text.length };

type Prompt = LanguageModelV3CallOptions['prompt'];

const SYSTEM = 'You are a coding agent.';
const REQUEST = 'Refactor modules a and b.';
/** A file's text: 6,000 characters, over minResultTokens (64) and, less a tombstone (40), over minFreedTokens (4,000). */
const fileText = (name: string) => `export const ${name} = (x: number) => x + 1;\n`.repeat(150);
const A = fileText('aa');
const B = fileText('bb');
const PLAN_1 = {
  todos: [
    { content: 'Read module a', status: 'in_progress' },
    { content: 'Read module b', status: 'pending' },
  ],
};
const PLAN_2 = {
  todos: [
    { content: 'Read module a', status: 'completed' },
    { content: 'Read module b', status: 'in_progress' },
  ],
};

function result(content: LanguageModelV3Content[], input = 1000): LanguageModelV3GenerateResult {
  const toolCalls = content.some((part) => part.type === 'tool-call');
  return {
    content,
    finishReason: toolCalls ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 20, text: 20, reasoning: 0 },
    },
    warnings: [],
    response: { id: 'resp', modelId: 'gpt-5-2026-01-01', timestamp: new Date(T0) },
  };
}

const call = (toolCallId: string, toolName: string, input: unknown): LanguageModelV3Content => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: JSON.stringify(input),
});

/**
 * The agent's answers, one per model call: a plan, a read of a.ts, the plan with its first item completed (the
 * boundary), a read of b.ts, a last word; then, for the next request, a last word again.
 */
function scriptedModel() {
  const script: LanguageModelV3Content[][] = [
    [call('t1', 'TodoWrite', PLAN_1)],
    [call('r1', 'read_file', { path: 'src/a.ts' })],
    [call('t2', 'TodoWrite', PLAN_2)],
    [call('r2', 'read_file', { path: 'src/b.ts' })],
    [{ type: 'text', text: 'Both modules read.' }],
    [{ type: 'text', text: 'Committed.' }],
  ];
  let index = 0;
  return new MockLanguageModelV3({
    provider: 'openai.chat',
    modelId: 'gpt-5',
    doGenerate: async () => result(script[Math.min(index++, script.length - 1)] as LanguageModelV3Content[]),
  });
}

const tools = {
  TodoWrite: tool({
    inputSchema: z.object({ todos: z.array(z.object({ content: z.string(), status: z.string() })) }),
    execute: async () => 'Todos updated.',
  }),
  read_file: tool({
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => (path === 'src/a.ts' ? A : B),
  }),
};

/** The agent's two requests: the tool loop (5 model calls), then "commit" after it (1 call). */
async function runAgent(model: Parameters<typeof generateText>[0]['model']) {
  const messages: ModelMessage[] = [{ role: 'user', content: REQUEST }];
  const first = await generateText({ model, system: SYSTEM, tools, messages, stopWhen: stepCountIs(10) });
  messages.push(...first.response.messages, { role: 'user', content: 'Now commit.' });
  await generateText({ model, system: SYSTEM, tools, messages, stopWhen: stepCountIs(10) });
}

type Part = {
  type: string;
  toolCallId?: string;
  input?: unknown;
  output?: { type: string; value?: unknown };
};
const partsOf = (prompt: Prompt): Part[] =>
  prompt.flatMap((message) => (Array.isArray(message.content) ? (message.content as Part[]) : []));
const resultOf = (prompt: Prompt, id: string) =>
  partsOf(prompt).find((part) => part.type === 'tool-result' && part.toolCallId === id)?.output;
const callOf = (prompt: Prompt, id: string) =>
  partsOf(prompt).find((part) => part.type === 'tool-call' && part.toolCallId === id);

/** The sizes the policy counts (history-item.ts `itemText`, one token per character). */
const callSize = (name: string, input: unknown) => `${name} ${JSON.stringify(input)}`.length;

describe('barometerMiddleware with the eviction policy', () => {
  it('evicts a completed sub-task at its boundary, archived byte for byte, and keeps it evicted', async () => {
    const archiveRoot = join(root, 'loop');
    const monitor = new SessionMonitor({ now, archive: new ArchiveStore({ root: archiveRoot }) });
    await monitor.create({ id: 'agent-1', model: 'gpt-5' });
    const mock = scriptedModel();
    const evictions: unknown[] = [];
    const middleware = barometerMiddleware({
      session: { monitor, sessionId: 'agent-1' },
      policy: new EvictionPolicy({}, chars),
      counter: chars,
      onEviction: (outcome) => evictions.push(outcome),
    });
    await runAgent(wrapLanguageModel({ model: mock, middleware }));
    const prompts = mock.doGenerateCalls.map((options) => options.prompt);
    expect(prompts).toHaveLength(6);

    // Calls 1–3: no boundary yet, a.ts's text is sent as it is.
    expect(resultOf(prompts[2] as Prompt, 'r1')).toEqual({ type: 'text', value: A });
    // Call 4: TodoWrite completed "Read module a": its sub-task (t1, r1, t2 and their results) is done. Only r1's
    // result is over minResultTokens; the arguments are all under minArgumentTokens; t2 is the latest plan.
    const archive = join(archiveRoot, 'agent-1', 'subtask-1.log');
    const tombstone = `[Task subtask-1 completed: output evicted to archive] ${archive}#r1:result`;
    const fourth = prompts[3] as Prompt;
    expect(resultOf(fourth, 'r1')).toEqual({ type: 'text', value: tombstone });
    // The pair is intact: the call is there with its own arguments, the result in its place.
    expect(callOf(fourth, 'r1')).toMatchObject({ toolName: 'read_file', input: { path: 'src/a.ts' } });
    expect(fourth).toHaveLength((prompts[2] as Prompt).length + 2);
    expect(resultOf(fourth, 't2')).toEqual({ type: 'text', value: 'Todos updated.' });

    // What left the prompt is in the archive, byte for byte.
    const records = await readArchiveFile(archive);
    expect(records).toEqual([
      expect.objectContaining({ itemId: 'r1:result', kind: 'tool-result', field: 'content', content: A }),
    ]);

    // Call 5 (no boundary): the eviction stands, and the whole of call 4's prompt is its prefix (the cache holds).
    const fifth = prompts[4] as Prompt;
    expect(fifth.slice(0, fourth.length)).toEqual(fourth);
    expect(resultOf(fifth, 'r2')).toEqual({ type: 'text', value: B });

    // Call 6: a new request is a boundary: r2's result goes too (subtask-2), r1's stays evicted.
    const sixth = prompts[5] as Prompt;
    const archive2 = join(archiveRoot, 'agent-1', 'subtask-2.log');
    expect(resultOf(sixth, 'r1')).toEqual({ type: 'text', value: tombstone });
    expect(resultOf(sixth, 'r2')).toEqual({
      type: 'text',
      value: `[Task subtask-2 completed: output evicted to archive] ${archive2}#r2:result`,
    });
    expect((await readArchiveFile(archive2)).map((record) => record.content)).toEqual([B]);
    // Each batch was archived once, though the agent loop sent the originals again on every call.
    expect((await readdir(join(archiveRoot, 'agent-1'))).sort()).toEqual(['subtask-1.log', 'subtask-2.log']);

    expect(evictions).toEqual([
      expect.objectContaining({ evicted: 1, archive, kept: 0, refused: null }),
      expect.objectContaining({ evicted: 1, archive: archive2, kept: 1, refused: null }),
    ]);
    expect(middleware.barometer.lastEviction).toMatchObject({
      evicted: 1,
      archived: [{ itemId: 'r2:result', kind: 'tool-result', location: `${archive2}#r2:result` }],
      boundary: { kind: 'user-request' },
    });
    // The evictions are compactions of the session.
    const view = await monitor.view('agent-1');
    expect(view.markers.filter((marker) => marker.type === 'compaction')).toHaveLength(2);
  });

  it('feeds the drift it measures to the session with the call’s usage', async () => {
    const session = new Session({ model: 'gpt-5' }, { now });
    const mock = scriptedModel();
    const middleware = barometerMiddleware({
      session,
      archive: new ArchiveStore({ root: join(root, 'drift') }),
      policy: new EvictionPolicy({}, chars),
      counter: chars,
    });
    const model = wrapLanguageModel({ model: mock, middleware });
    const messages: ModelMessage[] = [{ role: 'user', content: REQUEST }];
    await generateText({ model, system: SYSTEM, tools, messages, stopWhen: stepCountIs(4) });
    expect(mock.doGenerateCalls).toHaveLength(4);

    // Call 4's prompt: system, request, t1 and its result, r1 and its (evicted) result, t2 and its result. Stale:
    // the completed sub-task's tool items not evicted whose file nothing names since (nothing comes after it).
    const tombstone = resultOf(mock.doGenerateCalls[3]!.prompt, 'r1')?.value as string;
    const sizes = {
      system: SYSTEM.length,
      request: REQUEST.length,
      t1: callSize('TodoWrite', PLAN_1),
      t1Result: 'Todos updated.'.length,
      r1: callSize('read_file', { path: 'src/a.ts' }),
      r1Result: tombstone.length,
      t2: callSize('TodoWrite', PLAN_2),
      t2Result: 'Todos updated.'.length,
    };
    const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
    const stale = sizes.t1 + sizes.t1Result + sizes.r1 + sizes.t2 + sizes.t2Result;
    // The last prompt (1,000 tokens less the 5,960 saved) is smaller than the history: the history is the whole.
    const expected = (stale / total) * 100;
    expect(expected).toBeGreaterThan(50);
    expect(middleware.barometer.lastEviction?.driftPercent).toBeCloseTo(expected, 10);
    expect(session.state.drift).toBeCloseTo(expected, 10);
    expect(session.signals().driftPercent).toBeCloseTo(expected, 10);
    const regulator = session.lastVerdict?.reasons.find((reason) => reason.model === 'regulator');
    expect(regulator?.reason).not.toContain('drift not measured');
  });

  it('reaches a monitor’s session too (its view shows the drift)', async () => {
    const monitor = new SessionMonitor({ now, archive: new ArchiveStore({ root: join(root, 'view') }) });
    await monitor.create({ id: 'agent-2', model: 'gpt-5' });
    const middleware = barometerMiddleware({
      session: { monitor, sessionId: 'agent-2' },
      policy: new EvictionPolicy({}, chars),
      counter: chars,
    });
    await generateText({
      model: wrapLanguageModel({ model: scriptedModel(), middleware }),
      system: SYSTEM,
      tools,
      messages: [{ role: 'user', content: REQUEST }],
      stopWhen: stepCountIs(4),
    });
    const view = await monitor.view('agent-2');
    expect(view.signals.driftPercent).toBeCloseTo(middleware.barometer.lastEviction!.driftPercent, 10);
    expect(view.signals.driftPercent).toBeGreaterThan(50);
  });

  it('never changes the prompt without an archive, and still measures the drift', async () => {
    const session = new Session({ model: 'gpt-5' }, { now });
    const refusals: unknown[] = [];
    const middleware = barometerMiddleware({
      session,
      policy: new EvictionPolicy({}, chars),
      counter: chars,
      onEviction: (outcome) => refusals.push(outcome.refused),
    });
    const watched = scriptedModel();
    await runAgent(wrapLanguageModel({ model: watched, middleware }));
    const plain = scriptedModel();
    await runAgent(plain);
    expect(watched.doGenerateCalls.map((options) => options.prompt)).toEqual(
      plain.doGenerateCalls.map((options) => options.prompt),
    );
    // From the first boundary on (calls 4, 5 and 6) every call wanted the batch nothing could take.
    expect(refusals).toEqual(
      Array(3).fill('no archive: barometer evicts only what it can write to an archive first'),
    );
    expect(middleware.barometer.lastEviction?.evicted).toBe(0);
    // Nothing evicted, everything before the request is stale: a and b's texts, the plans.
    expect(session.state.drift).toBeGreaterThan(90);
  });

  it('tombstones nothing when the archive write fails, and keeps the evictions already made', async () => {
    const store = new ArchiveStore({ root: join(root, 'failing') });
    let appends = 0;
    const failing: ArchiveSink = {
      append: (sessionId, taskId, entries) => {
        appends += 1;
        if (appends > 1) return Promise.reject(new Error('disk full'));
        return store.append(sessionId, taskId, entries);
      },
    };
    const errors: unknown[] = [];
    const mock = scriptedModel();
    const middleware = barometerMiddleware({
      session: new Session({ model: 'gpt-5' }, { now }),
      archive: failing,
      policy: new EvictionPolicy({}, chars),
      counter: chars,
      onError: (error) => errors.push(error),
    });
    await runAgent(wrapLanguageModel({ model: mock, middleware }));
    const sixth = mock.doGenerateCalls[5]!.prompt;
    // Batch 1 (call 4) was archived: r1 stays evicted. Batch 2 (call 6) failed: r2 is sent as it is.
    expect(resultOf(sixth, 'r1')?.value).toMatch(/^\[Task subtask-1 completed/);
    expect(resultOf(sixth, 'r2')).toEqual({ type: 'text', value: B });
    expect(errors).toEqual([new Error('disk full')]);
    expect(middleware.barometer.lastError).toEqual(new Error('disk full'));
  });

  it('evicts in a stream’s prompt too, and sends its drift with the finish part’s usage', async () => {
    const session = new Session({ model: 'gpt-5' }, { now });
    const mock = new MockLanguageModelV3({
      provider: 'openai.responses',
      modelId: 'gpt-5',
      doStream: async () => ({
        stream: simulateReadableStream<LanguageModelV3StreamPart>({
          chunks: [
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'ok' },
            { type: 'text-end', id: 't' },
            {
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 1000, noCache: 1000, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 5, text: 5, reasoning: 0 },
              },
            },
          ],
        }),
      }),
    });
    const middleware = barometerMiddleware({
      session,
      archive: new ArchiveStore({ root: join(root, 'stream') }),
      policy: new EvictionPolicy({}, chars),
      counter: chars,
    });
    // A second request after a read: the read's sub-task is done.
    const messages: ModelMessage[] = [
      { role: 'user', content: REQUEST },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'r1', toolName: 'read_file', input: { path: 'src/a.ts' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'r1',
            toolName: 'read_file',
            output: { type: 'text', value: A },
          },
        ],
      },
      { role: 'user', content: 'Now b.' },
    ];
    const stream = streamText({ model: wrapLanguageModel({ model: mock, middleware }), messages });
    await stream.consumeStream();
    const tombstone = resultOf(mock.doStreamCalls[0]!.prompt, 'r1')?.value as string;
    expect(tombstone).toMatch(/^\[Task subtask-1 completed: output evicted to archive\] .*#r1:result$/);
    // Stale: the read's call (its result is evicted); the whole: both requests, the call and the tombstone.
    const call = callSize('read_file', { path: 'src/a.ts' });
    const total = REQUEST.length + call + tombstone.length + 'Now b.'.length;
    expect(session.generations).toBe(1);
    expect(session.state.drift).toBeCloseTo((call / total) * 100, 10);
  });

  it('starts afresh on a prompt that does not continue the conversation', async () => {
    const session = new Session({ model: 'gpt-5' }, { now });
    const mock = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-5',
      doGenerate: async () => result([{ type: 'text', text: 'ok' }]),
    });
    const middleware = barometerMiddleware({
      session,
      archive: new ArchiveStore({ root: join(root, 'afresh') }),
      policy: new EvictionPolicy({}, chars),
      counter: chars,
    });
    const model = wrapLanguageModel({ model: mock, middleware });
    const read = (id: string, text: string): ModelMessage[] => [
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `src/${id}.ts` } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: id,
            toolName: 'read_file',
            output: { type: 'text', value: text },
          },
        ],
      },
    ];
    // A long conversation: its second request ends the first read's sub-task (evicted).
    await generateText({
      model,
      messages: [
        { role: 'user', content: REQUEST },
        ...read('r1', A),
        { role: 'user', content: 'Next.' },
        ...read('r2', B),
      ],
    });
    expect(middleware.barometer.lastEviction?.evicted).toBe(1);
    expect(middleware.barometer.lastEviction?.state.completedUpTo).toBe(3);
    // Another conversation, shorter, with no boundary: the first one's positions mean nothing here.
    await generateText({ model, messages: [{ role: 'user', content: 'Other task.' }, ...read('q1', B)] });
    expect(middleware.barometer.lastEviction).toMatchObject({ evicted: 0, boundary: null, driftPercent: 0 });
    expect(middleware.barometer.lastEviction?.state.completedUpTo).toBe(0);
    expect(resultOf(mock.doGenerateCalls[1]!.prompt, 'q1')).toEqual({ type: 'text', value: B });
  });

  it('takes a boundary the prompt does not show from barometer.signal', async () => {
    const session = new Session({ model: 'gpt-5' }, { now });
    const model = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-5',
      doGenerate: async () => result([{ type: 'text', text: 'ok' }]),
    });
    const middleware = barometerMiddleware({
      session,
      archive: new ArchiveStore({ root: join(root, 'signal') }),
      policy: new EvictionPolicy({}, chars),
      counter: chars,
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    const messages: ModelMessage[] = [
      { role: 'user', content: REQUEST },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'r1', toolName: 'read_file', input: { path: 'src/a.ts' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'r1',
            toolName: 'read_file',
            output: { type: 'text', value: A },
          },
        ],
      },
    ];
    await generateText({ model: wrapped, messages });
    expect(resultOf(model.doGenerateCalls[0]!.prompt, 'r1')).toEqual({ type: 'text', value: A });
    middleware.barometer.signal('task-mark');
    await generateText({ model: wrapped, messages });
    expect(resultOf(model.doGenerateCalls[1]!.prompt, 'r1')?.value).toMatch(
      /^\[Task subtask-1 completed: output evicted to archive\] .*subtask-1\.log#r1:result$/,
    );
    expect(middleware.barometer.lastEviction?.boundary).toMatchObject({ kind: 'task-mark' });
    expect(() => middleware.barometer.signal('done' as never)).toThrow(TypeError);
  });
});

describe('barometerMiddleware with the eviction policy: the recap fallback', () => {
  /** Turns of a read each (about 960 o200k tokens per result), each started by a user request. */
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

  it('recaps when the prompt stays above recapAbovePercent of the window, and keeps the recap', async () => {
    // A 10,000-token window: the recap threshold is 80% of it, 8,000. The first call reports 9,000 prompt tokens.
    const session = new Session({ model: 'gpt-5', contextWindow: 10_000, optimalMaxTokens: 5_000 }, { now });
    const sizes = [9000, 2500, 2600];
    let index = 0;
    const mock = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-5',
      doGenerate: async () => result([{ type: 'text', text: 'ok' }], sizes[index++] ?? 2600),
    });
    const compactions: unknown[] = [];
    const middleware = barometerMiddleware({
      session,
      archive: new ArchiveStore({ root: join(root, 'recap') }),
      // No batch is ever big enough: only the recap fallback can act.
      policy: { minFreedTokens: 100_000 },
      onCompaction: (attempt) => compactions.push(attempt),
    });
    const model = wrapLanguageModel({ model: mock, middleware });
    const history = conversation(8);
    await generateText({ model, system: SYSTEM, messages: history });
    // The first call has no last prompt to judge by: sent as it is.
    expect(mock.doGenerateCalls[0]!.prompt).toHaveLength(1 + history.length);
    expect(middleware.barometer.lastEviction).toMatchObject({ evicted: 0, recapped: false });

    history.push({ role: 'user', content: 'Step 9: summarise.' });
    await generateText({ model, system: SYSTEM, messages: history });
    const second = mock.doGenerateCalls[1]!.prompt;
    expect(second[1]).toMatchObject({ role: 'user', providerOptions: { barometer: { recap: 'recap-1' } } });
    expect(compactions).toEqual([
      { ok: true, result: expect.objectContaining({ compactionId: 'compaction-1' }) },
    ]);
    expect(middleware.barometer.lastEviction).toMatchObject({ evicted: 0, recapped: true });
    // Everything before the recap is gone, and nothing completed since: no stale content is left.
    expect(middleware.barometer.lastEviction?.driftPercent).toBe(0);
    expect(session.state.drift).toBe(0);

    // The next call (healthy now, no boundary) sends the same recap in place of the same messages; the second
    // call's last message was the caution reminder (last, for an OpenAI model), gone with the caution.
    expect(second.at(-1)).toMatchObject({
      role: 'system',
      providerOptions: { barometer: { reminder: 'context_health' } },
    });
    history.push({ role: 'assistant', content: 'Done.' });
    await generateText({ model, system: SYSTEM, messages: history });
    const third = mock.doGenerateCalls[2]!.prompt;
    expect(third.slice(0, second.length - 1)).toEqual(second.slice(0, -1));
    expect(third).toHaveLength(second.length);
    expect(compactions).toHaveLength(1);
  });
});
