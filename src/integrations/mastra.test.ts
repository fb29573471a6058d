import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { Agent } from '@mastra/core/agent';
import { TokenLimiterProcessor } from '@mastra/core/processors';
import { createTool } from '@mastra/core/tools';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Session } from '../session/session.js';
import { ArchiveStore } from '../store/archive.js';
import type { AiSdkPolicyOutcome } from './ai-sdk-policy.js';
import { barometerProcessor } from './mastra.js';
import {
  type BilledMessage,
  CacheBill,
  expectEvictedLoop,
  FINAL_ANSWER,
  LOOP_MODEL,
  OUTPUT_TOKENS,
  REQUEST,
  runTool,
  SYSTEM_PROMPT,
  scriptedStep,
  sideBySide,
} from './test-helpers/framework-loop.js';

type Prompt = LanguageModelV3CallOptions['prompt'];
type Json = Record<string, unknown>;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-mastra-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/**
 * The AI SDK's own mock model (`MockLanguageModelV3`, which Mastra 1.x runs as any AI SDK 6 model) answering the
 * scripted loop, each answer streamed with the usage the cache model bills for the prompt it was sent.
 */
function billedModel(bill: CacheBill) {
  let step = 0;
  const prompts: Prompt[] = [];
  const answerFor = (prompt: Prompt) => {
    prompts.push(prompt);
    const call = bill.bill(
      prompt.map((message): BilledMessage => ({ role: message.role, json: JSON.stringify(message.content) })),
    );
    const usage: LanguageModelV3Usage = {
      inputTokens: {
        total: call.promptTokens,
        noCache: call.promptTokens - call.cachedTokens,
        cacheRead: call.cachedTokens,
        cacheWrite: 0,
      },
      outputTokens: { total: OUTPUT_TOKENS, text: OUTPUT_TOKENS, reasoning: 0 },
    };
    const answer = scriptedStep(step++);
    const content: LanguageModelV3Content[] =
      'text' in answer
        ? [{ type: 'text', text: answer.text }]
        : [
            {
              type: 'tool-call',
              toolCallId: answer.id,
              toolName: answer.name,
              input: JSON.stringify(answer.args),
            },
          ];
    const finishReason =
      'text' in answer
        ? { unified: 'stop' as const, raw: 'stop' }
        : { unified: 'tool-calls' as const, raw: 'tool_calls' };
    return { content, finishReason, usage };
  };
  const model = new MockLanguageModelV3({
    provider: 'openai.responses',
    modelId: LOOP_MODEL,
    doGenerate: async ({ prompt }) => ({ ...answerFor(prompt), warnings: [] }),
    doStream: async ({ prompt }) => {
      const { content, finishReason, usage } = answerFor(prompt);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of content)
        if (part.type === 'text')
          parts.push(
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: part.text },
            { type: 'text-end', id: 't' },
          );
        else parts.push(part as LanguageModelV3StreamPart);
      parts.push({ type: 'finish', finishReason, usage });
      return { stream: simulateReadableStream({ chunks: parts }) };
    },
  });
  return { model, prompts };
}

const tools = {
  read_file: createTool({
    id: 'read_file',
    description: 'Read a file of the repository.',
    inputSchema: z.object({ path: z.string() }),
    execute: async (input) => runTool('read_file', input as { path: string }),
  }),
  TodoWrite: createTool({
    id: 'TodoWrite',
    description: 'Write the plan.',
    inputSchema: z.object({ todos: z.array(z.object({ content: z.string(), status: z.string() })) }),
    execute: async (input) => runTool('TodoWrite', input as Json),
  }),
};

async function runLoop(inputProcessors: ConstructorParameters<typeof Agent>[0]['inputProcessors']) {
  const bill = new CacheBill();
  const { model, prompts } = billedModel(bill);
  const agent = new Agent({
    id: 'reviewer',
    name: 'reviewer',
    instructions: SYSTEM_PROMPT,
    model,
    tools,
    ...(inputProcessors ? { inputProcessors } : {}),
  });
  const result = await agent.generate(REQUEST, { maxSteps: 40 });
  return { bill, prompts, result };
}

function unpaired(prompt: Prompt): string[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of prompt)
    if (Array.isArray(message.content))
      for (const part of message.content as unknown as Json[]) {
        if (part.type === 'tool-call') calls.add(String(part.toolCallId));
        if (part.type === 'tool-result') results.add(String(part.toolCallId));
      }
  return [...[...calls].filter((id) => !results.has(id)), ...[...results].filter((id) => !calls.has(id))];
}

function resultText(prompt: Prompt, callId: string): string | undefined {
  for (const message of prompt)
    if (message.role === 'tool')
      for (const part of message.content as unknown as Json[])
        if (part.type === 'tool-result' && part.toolCallId === callId) {
          const output = part.output as { type: string; value: unknown };
          return typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
        }
  return undefined;
}

describe('barometer/mastra: barometerProcessor on a Mastra agent loop', () => {
  it('evicts finished sub-tasks at their boundaries, keeps pairs, archives originals, and costs less than TokenLimiterProcessor', async () => {
    const session = new Session({ model: LOOP_MODEL });
    const evictions: AiSdkPolicyOutcome[] = [];
    const errors: unknown[] = [];
    const processor = barometerProcessor({
      session,
      archive: new ArchiveStore({ root: join(root, 'processor') }),
      onEviction: (outcome) => evictions.push(outcome),
      onError: (error) => errors.push(error),
    });
    const withBarometer = await runLoop([processor]);
    const withLimiter = await runLoop([new TokenLimiterProcessor({ limit: 100_000 })]);
    const without = await runLoop(undefined);
    console.log(
      sideBySide('Mastra Agent.generate', {
        barometerProcessor: withBarometer.bill,
        'TokenLimiterProcessor (100,000)': withLimiter.bill,
        'no context manager': without.bill,
      }),
    );
    expect(errors).toEqual([]);
    expect(withBarometer.result.text).toBe(FINAL_ANSWER);
    await expectEvictedLoop(
      withBarometer.prompts,
      { resultOf: (prompt, callId) => resultText(prompt, callId), unpaired },
      evictions.flatMap((outcome) => outcome.archived),
      session,
      withBarometer.bill,
    );

    expect(withBarometer.bill.totals.promptTokens).toBeLessThan(withLimiter.bill.totals.promptTokens);
    expect(withBarometer.bill.totals.costUsd).toBeLessThan(withLimiter.bill.totals.costUsd);
    expect(withBarometer.bill.totals.costUsd).toBeLessThan(without.bill.totals.costUsd);
  }, 120_000);
});
