import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { contextEditingMiddleware, createAgent, HumanMessage, tool } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Session } from '../session/session.js';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import type { AiSdkPolicyOutcome } from './ai-sdk-policy.js';
import { barometerContextEdit, barometerMiddleware } from './langchain.js';
import {
  type BilledMessage,
  CacheBill,
  FILES,
  FINAL_ANSWER,
  fileText,
  LOOP_CALLS,
  LOOP_MODEL,
  OUTPUT_TOKENS,
  REQUEST,
  runTool,
  SYSTEM_PROMPT,
  scriptedStep,
  sideBySide,
} from './test-helpers/framework-loop.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-langchain-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const TOMBSTONE = /^\[Task subtask-\d+ completed: output evicted to archive\] (\S+)#(\S+)$/;

function kindOf(message: BaseMessage): string {
  return message.type;
}

/** A LangChain message as the provider reads it. */
function billed(message: BaseMessage): BilledMessage {
  const kind = kindOf(message);
  const role = kind === 'system' ? 'system' : kind === 'ai' ? 'assistant' : kind === 'tool' ? 'tool' : 'user';
  const fields: Record<string, unknown> = { content: message.content };
  if (kind === 'ai') fields.tool_calls = (message as AIMessage).tool_calls ?? [];
  if (kind === 'tool') fields.tool_call_id = (message as unknown as { tool_call_id: string }).tool_call_id;
  return { role, json: JSON.stringify(fields) };
}

/**
 * LangChain's own fake chat model (`fakeModel` of `@langchain/core/testing`) answering the scripted loop, each answer
 * with the usage the cache model bills for the messages it was sent.
 */
function billedModel(bill: CacheBill) {
  const model = fakeModel();
  for (let step = 0; step < LOOP_CALLS; step++) {
    model.respond((messages: BaseMessage[]) => {
      const call = bill.bill(messages.map(billed));
      const usage_metadata = {
        input_tokens: call.promptTokens,
        output_tokens: OUTPUT_TOKENS,
        total_tokens: call.promptTokens + OUTPUT_TOKENS,
        input_token_details: { cache_read: call.cachedTokens },
      };
      const answer = scriptedStep(step);
      return 'text' in answer
        ? new AIMessage({
            content: answer.text,
            usage_metadata,
            response_metadata: { model_name: LOOP_MODEL },
          })
        : new AIMessage({
            content: '',
            tool_calls: [{ id: answer.id, name: answer.name, args: answer.args, type: 'tool_call' }],
            usage_metadata,
            response_metadata: { model_name: LOOP_MODEL },
          });
    });
  }
  return model;
}

const tools = [
  tool(async (args: { path: string }) => runTool('read_file', args), {
    name: 'read_file',
    description: 'Read a file of the repository.',
    schema: z.object({ path: z.string() }),
  }),
  tool(async (args: { todos: Array<{ content: string; status: string }> }) => runTool('TodoWrite', args), {
    name: 'TodoWrite',
    description: 'Write the plan.',
    schema: z.object({ todos: z.array(z.object({ content: z.string(), status: z.string() })) }),
  }),
];

async function runLoop(middleware: Parameters<typeof createAgent>[0]['middleware']) {
  const bill = new CacheBill();
  const model = billedModel(bill);
  const agent = createAgent({ model, tools, systemPrompt: SYSTEM_PROMPT, middleware: middleware ?? [] });
  const result = await agent.invoke({ messages: [new HumanMessage(REQUEST)] }, { recursionLimit: 100 });
  return { bill, model, result };
}

/** Every tool call of a prompt has its result and every result its call. */
function unpaired(messages: readonly BaseMessage[]): string[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of messages) {
    if (kindOf(message) === 'ai')
      for (const call of (message as AIMessage).tool_calls ?? []) calls.add(call.id ?? '');
    if (kindOf(message) === 'tool')
      results.add((message as unknown as { tool_call_id: string }).tool_call_id);
  }
  return [...[...calls].filter((id) => !results.has(id)), ...[...results].filter((id) => !calls.has(id))];
}

function resultText(messages: readonly BaseMessage[], callId: string): string | undefined {
  const message = messages.find(
    (candidate) =>
      kindOf(candidate) === 'tool' &&
      (candidate as unknown as { tool_call_id: string }).tool_call_id === callId,
  );
  return message === undefined ? undefined : String(message.content);
}

describe('barometer/langchain: barometerMiddleware on a createAgent tool loop', () => {
  it('evicts finished sub-tasks at their boundaries, keeps pairs, archives originals, and costs less than ClearToolUsesEdit', async () => {
    const session = new Session({ model: LOOP_MODEL });
    const archive = new ArchiveStore({ root: join(root, 'middleware') });
    const evictions: AiSdkPolicyOutcome[] = [];
    const errors: unknown[] = [];
    const middleware = barometerMiddleware({
      session,
      archive,
      onEviction: (outcome) => evictions.push(outcome),
      onError: (error) => errors.push(error),
    });
    const withBarometer = await runLoop([middleware]);
    const withDefault = await runLoop([contextEditingMiddleware()]);
    const without = await runLoop([]);
    console.log(
      sideBySide('LangChain.js createAgent', {
        barometerMiddleware: withBarometer.bill,
        'contextEditingMiddleware() default': withDefault.bill,
        'no context manager': without.bill,
      }),
    );
    expect(errors).toEqual([]);
    const answer = withBarometer.result.messages.at(-1);
    expect(answer?.content).toBe(FINAL_ANSWER);

    const prompts = withBarometer.model.calls.map((call) => call.messages as BaseMessage[]);
    expect(prompts).toHaveLength(LOOP_CALLS);
    for (const prompt of prompts) expect(unpaired(prompt)).toEqual([]);

    // Sub-task 1 (call_plan_0 … call_plan_1) ends with the TodoWrite that completes it: from the next call on, its
    // three reads are tombstones, in every later prompt; the reads of the sub-task in progress are sent whole.
    const afterFirst = prompts[5] as BaseMessage[];
    for (const within of [0, 1, 2])
      expect(resultText(afterFirst, `call_read_0_${within}`)).toMatch(TOMBSTONE);
    expect(resultText(prompts[4] as BaseMessage[], 'call_read_0_0')).toBe(fileText(FILES[0] as string));
    const last = prompts.at(-1) as BaseMessage[];
    for (let task = 0; task < 5; task++)
      for (const within of [0, 1, 2])
        expect(resultText(last, `call_read_${task}_${within}`)).toMatch(TOMBSTONE);
    // The agent's state keeps the originals: barometer edits only what the model is sent.
    expect(resultText(withBarometer.result.messages, 'call_read_0_0')).toBe(fileText(FILES[0] as string));

    // Every tombstoned original is in the archive, byte for byte.
    const archived = evictions.flatMap((outcome) => outcome.archived);
    expect(archived.filter((item) => item.kind === 'tool-result')).toHaveLength(15);
    for (const item of archived.filter((entry) => entry.kind === 'tool-result')) {
      const [path, itemId] = item.location.split('#') as [string, string];
      const callId = itemId.replace(/:result$/, '');
      const [, task, within] = /call_read_(\d)_(\d)/.exec(callId) ?? [];
      const records = await readArchiveFile(path);
      const record = records.find((entry) => entry.itemId === itemId);
      expect(record?.content).toBe(fileText(FILES[Number(task) * 3 + Number(within)] as string));
    }

    // The session saw every call, at the provider's price.
    expect(session.generations).toBe(LOOP_CALLS);
    expect(session.state.spend?.costUsd).toBeCloseTo(withBarometer.bill.totals.costUsd, 9);
    expect(session.state.spend?.promptTokens).toBe(withBarometer.bill.totals.promptTokens);

    // Fewer prompt tokens and a lower cache-priced cost than LangChain's default context editing.
    expect(withBarometer.bill.totals.promptTokens).toBeLessThan(withDefault.bill.totals.promptTokens);
    expect(withBarometer.bill.totals.costUsd).toBeLessThan(withDefault.bill.totals.costUsd);
    expect(withBarometer.bill.totals.costUsd).toBeLessThan(without.bill.totals.costUsd);
  }, 120_000);

  it('works as a ContextEdit in contextEditingMiddleware, recording each response when the next call shows it', async () => {
    const session = new Session({ model: LOOP_MODEL });
    const edit = barometerContextEdit({ session, archive: new ArchiveStore({ root: join(root, 'edit') }) });
    const run = await runLoop([contextEditingMiddleware({ edits: [edit] })]);
    const last = run.model.calls.at(-1)?.messages as BaseMessage[];
    expect(unpaired(last)).toEqual([]);
    expect(resultText(last, 'call_read_0_0')).toMatch(TOMBSTONE);
    // The last response is seen by no later call.
    expect(session.generations).toBe(LOOP_CALLS - 1);
  }, 120_000);

  it('hands the model the session’s context_health reminder while one is active, once, never into the agent’s state', async () => {
    // A session whose optimal size is 20,000 tokens: caution from the third call on.
    const session = new Session({ model: LOOP_MODEL, optimalMaxTokens: 20_000 });
    const middleware = barometerMiddleware({
      session,
      archive: new ArchiveStore({ root: join(root, 'reminder') }),
    });
    const run = await runLoop([middleware]);
    const reminders = run.model.calls.map(
      (call) =>
        (call.messages as BaseMessage[]).filter(
          (message) => kindOf(message) === 'system' && String(message.content).startsWith('Context health'),
        ).length,
    );
    expect(reminders[0]).toBe(0);
    expect(reminders.some((count) => count === 1)).toBe(true);
    expect(reminders.every((count) => count <= 1)).toBe(true);
    expect(run.result.messages.some((message) => String(message.content).startsWith('Context health'))).toBe(
      false,
    );
  }, 120_000);
});
