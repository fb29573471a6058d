/**
 * barometer in a LangChain.js agent (`createAgent`), offline: npx tsx examples/langchain.ts
 *
 * LangChain's own fake chat model (`fakeModel` of `@langchain/core/testing`) stands in for a provider's: it plans two
 * sub-tasks with TodoWrite, reads two files for each, and reports, as a provider would, the tokens of the prompt it
 * was sent (counted with o200k). In your project, the one line is the middleware:
 *
 *   createAgent({ model: 'openai:gpt-5', tools, middleware: [barometerMiddleware({ session, archive })] });
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent, HumanMessage, tool } from 'langchain';
import { z } from 'zod';
import { ArchiveStore, createTokenCounter, Session } from '../src/index.js';
import { barometerMiddleware } from '../src/integrations/langchain.js';

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

const model = fakeModel();
script.forEach((step, index) => {
  model.respond((messages: BaseMessage[]) => {
    const input = counter.count(JSON.stringify(messages.map((message) => message.content)));
    const usage_metadata = { input_tokens: input, output_tokens: 30, total_tokens: input + 30 };
    return new AIMessage({
      content: '',
      tool_calls: [{ id: `call_${index}`, name: step.name, args: step.args, type: 'tool_call' }],
      usage_metadata,
    });
  });
});
model.respond(
  () =>
    new AIMessage({
      content: 'Both parts reviewed.',
      usage_metadata: { input_tokens: 1000, output_tokens: 10, total_tokens: 1010 },
    }),
);

const moduleText = (path: string) =>
  Array.from(
    { length: 300 },
    (_, line) => `export const ${path.replace(/\W/g, '_')}_${line} = ${line * 7};`,
  ).join('\n');
const tools = [
  tool(async ({ path }: { path: string }) => moduleText(path), {
    name: 'read_file',
    description: 'Read a file.',
    schema: z.object({ path: z.string() }),
  }),
  tool(async () => 'Todos have been modified successfully.', {
    name: 'TodoWrite',
    description: 'Write the plan.',
    schema: z.object({ todos: z.array(z.object({ content: z.string(), status: z.string() })) }),
  }),
];

const session = new Session({ id: 'example-langchain', model: 'gpt-5' });
const root = join(tmpdir(), 'barometer-example-langchain');
rmSync(root, { recursive: true, force: true });
const middleware = barometerMiddleware({
  session,
  archive: new ArchiveStore({ root }),
  onEviction: (outcome) =>
    console.log(`evicted ${outcome.evicted} items at ${outcome.boundary?.kind}: ${outcome.archive}`),
});
const agent = createAgent({
  model,
  tools,
  systemPrompt: 'You are a coding agent.',
  middleware: [middleware],
});
const result = await agent.invoke({ messages: [new HumanMessage('Review the billing modules.')] });

console.log(result.messages.at(-1)?.content);
for (const [index, call] of model.calls.entries()) {
  const tombstones = call.messages.filter((message) => String(message.content).startsWith('[Task ')).length;
  console.log(`call ${index + 1}: ${call.messages.length} messages, ${tombstones} tombstones`);
}
console.log(`session: ${session.generations} calls, verdict ${middleware.barometer.verdict?.action}`);
