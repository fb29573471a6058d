import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  MemorySession,
  OpenAIResponsesCompactionSession,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool,
} from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { responsesStream } from '../proxy/test-helpers/fake-responses.js';
import { Session } from '../session/session.js';
import { ArchiveStore } from '../store/archive.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import type { AiSdkPolicyOutcome } from './ai-sdk-policy.js';
import { BarometerSession, barometerModel, barometerShouldTriggerCompaction } from './openai-agents.js';
import {
  type BilledMessage,
  CacheBill,
  expectEvictedLoop,
  FILES,
  FINAL_ANSWER,
  fileText,
  LOOP_CALLS,
  LOOP_MODEL,
  LOOP_TOMBSTONE,
  OUTPUT_TOKENS,
  REQUEST,
  runTool,
  SYSTEM_PROMPT,
  scriptedStep,
  sideBySide,
} from './test-helpers/framework-loop.js';

type Json = Record<string, unknown>;

let root: string;
beforeAll(async () => {
  setTracingDisabled(true);
  root = await mkdtemp(join(tmpdir(), 'barometer-openai-agents-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A Responses input item as the provider reads it. */
function billed(item: Json): BilledMessage {
  const role =
    item.type === 'function_call_output'
      ? 'tool'
      : item.type === 'function_call' || item.role === 'assistant' || item.type === 'compaction'
        ? 'assistant'
        : item.role === 'system' || item.role === 'developer'
          ? 'system'
          : 'user';
  return { role, json: JSON.stringify(item) };
}

interface Provider {
  server: CassetteServer;
  bill: CacheBill;
  /** The main calls' input items, in order. */
  inputs: Json[][];
  compactions: number;
}

/**
 * A fake OpenAI Responses API on 127.0.0.1: `POST /v1/responses` answers the loop's next step, `POST
 * /v1/responses/compact` (what `OpenAIResponsesCompactionSession` calls) a compaction item; each call's input billed
 * by the cache model, its usage reported as OpenAI reports it.
 */
async function startProvider(): Promise<Provider> {
  const bill = new CacheBill();
  const inputs: Json[][] = [];
  const provider: Provider = { server: undefined as unknown as CassetteServer, bill, inputs, compactions: 0 };
  let step = 0;
  provider.server = await startCassetteServer((request) => {
    const body = request.body ?? {};
    const input = (
      Array.isArray(body.input) ? body.input : [{ role: 'user', content: body.input }]
    ) as Json[];
    const messages = [
      ...(typeof body.instructions === 'string'
        ? [{ role: 'system' as const, json: JSON.stringify(body.instructions) }]
        : []),
      ...input.map(billed),
    ];
    const call = bill.bill(messages);
    const usage = {
      input_tokens: call.promptTokens,
      input_tokens_details: { cached_tokens: call.cachedTokens },
      output_tokens: OUTPUT_TOKENS,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: call.promptTokens + OUTPUT_TOKENS,
    };
    const json = (value: unknown) => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(value),
    });
    if (request.path.startsWith('/v1/responses/compact')) {
      provider.compactions++;
      const users = input.filter((item) => item.role === 'user');
      return json({
        id: `cmp_${provider.compactions}`,
        object: 'response.compaction',
        created_at: 1_764_590_400,
        output: [
          ...users.map((item, index) => ({
            type: 'message',
            id: `msg_user_${provider.compactions}_${index}`,
            role: 'user',
            status: 'completed',
            content: [
              { type: 'input_text', text: typeof item.content === 'string' ? item.content : REQUEST },
            ],
          })),
          {
            type: 'compaction',
            id: `cmpi_${provider.compactions}`,
            encrypted_content: `summary-${provider.compactions}`,
          },
        ],
        usage,
      });
    }
    inputs.push(input);
    const answer = scriptedStep(step++);
    const output =
      'text' in answer
        ? [
            {
              type: 'message',
              id: `msg_${step}`,
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: answer.text, annotations: [] }],
            },
          ]
        : [
            {
              type: 'function_call',
              id: `fc_${step}`,
              call_id: answer.id,
              name: answer.name,
              arguments: JSON.stringify(answer.args),
              status: 'completed',
            },
          ];
    if (body.stream === true)
      return {
        headers: { 'content-type': 'text/event-stream' },
        body: responsesStream(`resp_${step}`, LOOP_MODEL, output[0] as Json, usage),
      };
    return json({
      id: `resp_${step}`,
      object: 'response',
      created_at: 1_764_590_400 + step,
      model: LOOP_MODEL,
      status: 'completed',
      output,
      usage,
    });
  });
  return provider;
}

const tools = [
  tool({
    name: 'read_file',
    description: 'Read a file of the repository.',
    parameters: z.object({ path: z.string() }),
    execute: async (args) => runTool('read_file', args),
  }),
  tool({
    name: 'TodoWrite',
    description: 'Write the plan.',
    parameters: z.object({ todos: z.array(z.object({ content: z.string(), status: z.string() })) }),
    execute: async (args) => runTool('TodoWrite', args),
  }),
];

function clientOf(provider: Provider): OpenAI {
  return new OpenAI({
    apiKey: 'sk-test-never-sent-anywhere',
    baseURL: `${provider.server.url}/v1`,
    maxRetries: 0,
  });
}

/** Every function call of an input has its output and every output its call. */
function unpaired(items: readonly Json[]): string[] {
  const calls = new Set(
    items.filter((item) => item.type === 'function_call').map((item) => String(item.call_id)),
  );
  const outputs = new Set(
    items.filter((item) => item.type === 'function_call_output').map((item) => String(item.call_id)),
  );
  return [...[...calls].filter((id) => !outputs.has(id)), ...[...outputs].filter((id) => !calls.has(id))];
}

function outputOf(items: readonly Json[], callId: string): string | undefined {
  const item = items.find(
    (candidate) => candidate.type === 'function_call_output' && candidate.call_id === callId,
  );
  if (item === undefined) return undefined;
  const output = item.output;
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part) => String((part as Json).text ?? '')).join('');
  return String((output as Json | undefined)?.text ?? JSON.stringify(output));
}

describe('barometer/openai-agents: barometerModel on an Agents SDK tool loop', () => {
  const providers: Provider[] = [];
  afterAll(async () => {
    for (const provider of providers) await provider.server.close();
  });

  it('evicts finished sub-tasks at their boundaries, keeps pairs, archives originals, and costs less than the compaction session', async () => {
    const session = new Session({ model: LOOP_MODEL });
    const evictions: AiSdkPolicyOutcome[] = [];
    const errors: unknown[] = [];
    const on = await startProvider();
    providers.push(on);
    const model = barometerModel(new OpenAIResponsesModel(clientOf(on), LOOP_MODEL), {
      session,
      archive: new ArchiveStore({ root: join(root, 'model') }),
      onEviction: (outcome) => evictions.push(outcome),
      onError: (error) => errors.push(error),
    });
    const agent = new Agent({ name: 'reviewer', instructions: SYSTEM_PROMPT, model, tools });
    const result = await run(agent, REQUEST, { maxTurns: 50 });
    expect(result.finalOutput).toBe(FINAL_ANSWER);
    expect(errors).toEqual([]);

    // The SDK's default: OpenAIResponsesCompactionSession, compacting by its item count.
    const base = await startProvider();
    providers.push(base);
    const baseAgent = new Agent({
      name: 'reviewer',
      instructions: SYSTEM_PROMPT,
      model: new OpenAIResponsesModel(clientOf(base), LOOP_MODEL),
      tools,
    });
    const compaction = new OpenAIResponsesCompactionSession({ client: clientOf(base), model: LOOP_MODEL });
    const baseResult = await run(baseAgent, REQUEST, { maxTurns: 50, session: compaction });
    expect(baseResult.finalOutput).toBe(FINAL_ANSWER);

    const plain = await startProvider();
    providers.push(plain);
    const plainAgent = new Agent({
      name: 'reviewer',
      instructions: SYSTEM_PROMPT,
      model: new OpenAIResponsesModel(clientOf(plain), LOOP_MODEL),
      tools,
    });
    await run(plainAgent, REQUEST, { maxTurns: 50 });
    console.log(
      sideBySide('OpenAI Agents SDK run()', {
        barometerModel: on.bill,
        [`OpenAIResponsesCompactionSession (${base.compactions} compactions)`]: base.bill,
        'no context manager': plain.bill,
      }),
    );

    await expectEvictedLoop(
      on.inputs as Json[][],
      { resultOf: (input, callId) => outputOf(input, callId), unpaired },
      evictions.flatMap((outcome) => outcome.archived),
      session,
      on.bill,
    );

    // The compaction calls are billed too: they are model calls.
    expect(on.bill.totals.promptTokens).toBeLessThan(base.bill.totals.promptTokens);
    expect(on.bill.totals.costUsd).toBeLessThan(base.bill.totals.costUsd);
    expect(on.bill.totals.costUsd).toBeLessThan(plain.bill.totals.costUsd);
  }, 120_000);

  it('shouldTriggerCompaction follows the session’s verdict: compress, and never on continue', async () => {
    const session = new Session({ model: LOOP_MODEL });
    const should = barometerShouldTriggerCompaction({ session });
    expect(await should({})).toBe(false);
    // 300,000 prompt tokens on gpt-5 (a 400,000 window): past the standard trigger (200,000), compress.
    session.update({
      usage: {
        available: true,
        source: 'openai-responses',
        model: LOOP_MODEL,
        promptTokens: 300_000,
        completionTokens: 100,
        totalTokens: 300_100,
        cachedReadTokens: 0,
        cachedWriteTokens: 0,
        reasoningTokens: 0,
      },
    });
    expect(session.lastVerdict?.action).toBe('compress');
    expect(await should({})).toBe(true);
  });

  it('does the same on a streamed run: the usage of each response_done recorded before the runner reads it', async () => {
    const session = new Session({ model: LOOP_MODEL });
    const provider = await startProvider();
    try {
      const model = barometerModel(new OpenAIResponsesModel(clientOf(provider), LOOP_MODEL), {
        session,
        archive: new ArchiveStore({ root: join(root, 'stream') }),
      });
      const agent = new Agent({ name: 'reviewer', instructions: SYSTEM_PROMPT, model, tools });
      const result = await run(agent, REQUEST, { maxTurns: 50, stream: true });
      for await (const _event of result) {
        // drained
      }
      await result.completed;
      expect(result.finalOutput).toBe(FINAL_ANSWER);
      expect(provider.inputs).toHaveLength(LOOP_CALLS);
      const last = provider.inputs.at(-1) as Json[];
      expect(unpaired(last)).toEqual([]);
      expect(outputOf(last, 'call_read_0_0')).toMatch(LOOP_TOMBSTONE);
      expect(session.generations).toBe(LOOP_CALLS);
      expect(session.state.spend?.costUsd).toBeCloseTo(provider.bill.totals.costUsd, 9);
    } finally {
      await provider.server.close();
    }
  }, 120_000);

  it('BarometerSession: the next run starts from the history with the finished sub-tasks evicted', async () => {
    const session = new Session({ model: LOOP_MODEL });
    const provider = await startProvider();
    try {
      const memory = new MemorySession();
      const history = new BarometerSession(memory, {
        session,
        archive: new ArchiveStore({ root: join(root, 'session') }),
      });
      const agent = new Agent({
        name: 'reviewer',
        instructions: SYSTEM_PROMPT,
        model: new OpenAIResponsesModel(clientOf(provider), LOOP_MODEL),
        tools,
      });
      await run(agent, REQUEST, { maxTurns: 50, session: history });
      // Inside the first run the session is not read again: its calls carry the reads whole.
      expect(outputOf(provider.inputs[LOOP_CALLS - 1] as Json[], 'call_read_0_0')).toBe(
        fileText(FILES[0] as string),
      );
      await run(agent, 'Thanks. Anything else?', { maxTurns: 5, session: history });
      const next = provider.inputs[LOOP_CALLS] as Json[];
      expect(unpaired(next)).toEqual([]);
      for (let task = 0; task < 5; task++)
        for (const within of [0, 1, 2])
          expect(outputOf(next, `call_read_${task}_${within}`)).toMatch(LOOP_TOMBSTONE);
      // The underlying session keeps the originals.
      const stored = (await memory.getItems()) as unknown as Json[];
      const result = stored.find(
        (item) => item.type === 'function_call_result' && item.callId === 'call_read_0_0',
      );
      expect(result?.output).toEqual({ type: 'text', text: fileText(FILES[0] as string) });
    } finally {
      await provider.server.close();
    }
  }, 120_000);
});
