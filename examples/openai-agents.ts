/**
 * barometer in an OpenAI Agents SDK agent, offline: npx tsx examples/openai-agents.ts
 *
 * A scripted `Model` stands in for `OpenAIResponsesModel`: it plans two sub-tasks with TodoWrite, reads two files for
 * each, and reports, as the Responses API would, the tokens of the input it was sent (counted with o200k). In your
 * project, the one line is the model decorator:
 *
 *   new Agent({ name, instructions, tools, model: barometerModel(new OpenAIResponsesModel(client, 'gpt-5'), { session, archive }) });
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';
import { ArchiveStore, createTokenCounter, Session } from '../src/index.js';
import { barometerModel } from '../src/integrations/openai-agents.js';

setTracingDisabled(true);
const counter = createTokenCounter();
const plan = (done: number) => ({
  todos: ['Read the invoice modules', 'Read the payment modules'].map((content, index) => ({
    content,
    status: index < done ? 'completed' : index === done ? 'in_progress' : 'pending',
  })),
});
const script = [
  { name: 'TodoWrite', args: plan(0) },
  { name: 'read_file', args: { path: 'src/invoices/a.ts' } },
  { name: 'read_file', args: { path: 'src/invoices/b.ts' } },
  { name: 'TodoWrite', args: plan(1) },
  { name: 'read_file', args: { path: 'src/payments/a.ts' } },
  { name: 'read_file', args: { path: 'src/payments/b.ts' } },
  { name: 'TodoWrite', args: plan(2) },
];
const sent: ModelRequest['input'][] = [];

const scripted: Model = {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    sent.push(request.input);
    const step = sent.length - 1;
    const input = counter.count(JSON.stringify(request.input));
    const usage = new Usage({ requests: 1, inputTokens: input, outputTokens: 30, totalTokens: input + 30 });
    const next = script[step];
    const output = next
      ? [
          {
            type: 'function_call' as const,
            callId: `call_${step}`,
            name: next.name,
            arguments: JSON.stringify(next.args),
            status: 'completed' as const,
          },
        ]
      : [
          {
            type: 'message' as const,
            role: 'assistant' as const,
            status: 'completed' as const,
            content: [{ type: 'output_text' as const, text: 'Both parts reviewed.' }],
          },
        ];
    return { usage, output, responseId: `resp_${step}` };
  },
  getStreamedResponse() {
    throw new Error('this example runs without streaming');
  },
};

const moduleText = (path: string) =>
  Array.from(
    { length: 300 },
    (_, line) => `export const ${path.replace(/\W/g, '_')}_${line} = ${line * 7};`,
  ).join('\n');
const tools = [
  tool({
    name: 'read_file',
    description: 'Read a file.',
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => moduleText(path),
  }),
  tool({
    name: 'TodoWrite',
    description: 'Write the plan.',
    parameters: z.object({ todos: z.array(z.object({ content: z.string(), status: z.string() })) }),
    execute: async () => 'Todos have been modified successfully.',
  }),
];

const session = new Session({ id: 'example-openai-agents', model: 'gpt-5' });
const root = join(tmpdir(), 'barometer-example-openai-agents');
rmSync(root, { recursive: true, force: true });
const model = barometerModel(scripted, {
  session,
  archive: new ArchiveStore({ root }),
  onEviction: (outcome) =>
    console.log(`evicted ${outcome.evicted} items at ${outcome.boundary?.kind}: ${outcome.archive}`),
});
const agent = new Agent({ name: 'reviewer', instructions: 'You are a coding agent.', model, tools });
const result = await run(agent, 'Review the billing modules.', { maxTurns: 20 });

console.log(result.finalOutput);
for (const [index, input] of sent.entries()) {
  const items = typeof input === 'string' ? [] : input;
  const tombstones = items.filter(
    (item) => item.type === 'function_call_result' && JSON.stringify(item.output).includes('[Task '),
  ).length;
  console.log(`call ${index + 1}: ${items.length} items, ${tombstones} tombstones`);
}
console.log(`session: ${session.generations} calls, verdict ${model.barometer.verdict?.action}`);
