/**
 * barometer in a Mastra agent, offline: npx tsx examples/mastra.ts
 *
 * The AI SDK's MockLanguageModelV3 stands in for a provider's model (Mastra 1.x runs AI SDK 6 models): it plans two
 * sub-tasks with TodoWrite, reads two files for each, and reports, as a provider would, the tokens of the prompt it
 * was sent (counted with o200k). In your project, the one line is the input processor:
 *
 *   new Agent({ id, name, instructions, model, tools, inputProcessors: [barometerProcessor({ session, archive })] });
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { ArchiveStore, createTokenCounter, Session } from '../src/index.js';
import { barometerProcessor } from '../src/integrations/mastra.js';

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
const prompts: LanguageModelV3CallOptions['prompt'][] = [];

const model = new MockLanguageModelV3({
  provider: 'openai.responses',
  modelId: 'gpt-5',
  doGenerate: async ({ prompt }): Promise<LanguageModelV3GenerateResult> => {
    prompts.push(prompt);
    const step = prompts.length - 1;
    const input = counter.count(JSON.stringify(prompt));
    const next = script[step];
    return {
      content: next
        ? [
            {
              type: 'tool-call',
              toolCallId: `call_${step}`,
              toolName: next.name,
              input: JSON.stringify(next.args),
            },
          ]
        : [{ type: 'text', text: 'Both parts reviewed.' }],
      finishReason: next ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 30, text: 30, reasoning: 0 },
      },
      warnings: [],
    };
  },
});

const moduleText = (path: string) =>
  Array.from(
    { length: 300 },
    (_, line) => `export const ${path.replace(/\W/g, '_')}_${line} = ${line * 7};`,
  ).join('\n');
const tools = {
  read_file: createTool({
    id: 'read_file',
    description: 'Read a file.',
    inputSchema: z.object({ path: z.string() }),
    execute: async (input) => moduleText((input as { path: string }).path),
  }),
  TodoWrite: createTool({
    id: 'TodoWrite',
    description: 'Write the plan.',
    inputSchema: z.object({ todos: z.array(z.object({ content: z.string(), status: z.string() })) }),
    execute: async () => 'Todos have been modified successfully.',
  }),
};

const session = new Session({ id: 'example-mastra', model: 'gpt-5' });
const root = join(tmpdir(), 'barometer-example-mastra');
rmSync(root, { recursive: true, force: true });
const processor = barometerProcessor({
  session,
  archive: new ArchiveStore({ root }),
  onEviction: (outcome) =>
    console.log(`evicted ${outcome.evicted} items at ${outcome.boundary?.kind}: ${outcome.archive}`),
});
const agent = new Agent({
  id: 'reviewer',
  name: 'reviewer',
  instructions: 'You are a coding agent.',
  model,
  tools,
  inputProcessors: [processor],
});
const result = await agent.generate('Review the billing modules.', { maxSteps: 20 });

console.log(result.text);
for (const [index, prompt] of prompts.entries()) {
  const tombstones = prompt.filter(
    (message) => message.role === 'tool' && JSON.stringify(message.content).includes('[Task '),
  ).length;
  console.log(`call ${index + 1}: ${prompt.length} messages, ${tombstones} tombstones`);
}
console.log(`session: ${session.generations} calls, verdict ${processor.barometer.verdict?.action}`);
