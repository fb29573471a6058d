/**
 * barometer's MCP tools, driven by the MCP SDK's own client in this process: npx tsx examples/mcp.ts
 * Offline: an in-memory transport, a temporary data dir. (In your project: import { createBarometerMcpServer }
 * from 'barometer/mcp'; or run `barometer mcp` and let your MCP client start it.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ArchiveStore, SessionMonitor } from '../src/index.js';
import { createBarometerMcpServer } from '../src/mcp/index.js';

const dataDir = await mkdtemp(join(tmpdir(), 'barometer-mcp-example-'));
const archive = new ArchiveStore({ root: join(dataDir, 'archives') });
const monitor = new SessionMonitor({ archive });
const server = createBarometerMcpServer({ monitor, archive });

const client = new Client({ name: 'example-agent', version: '1.0.0' });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

/** Calls a tool and prints its text, as an agent would read it. */
async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
  console.log(`── ${name}${result.isError ? ' (error)' : ''}\n${text}\n`);
  return result.structuredContent as Record<string, unknown>;
}

console.log((await client.listTools()).tools.map((tool) => tool.name).join(', '), '\n');

// 1. The stateless regulator (seed 000), and a bad argument: a tool error naming the field.
await call('evaluate_pressure', {
  memoryUsedPercent: 72,
  tokenBurnRatePerMin: 55,
  contextDriftPercent: 68,
  tokenBudgetUsed: 62000,
});
await call('evaluate_pressure', { memoryUsedPercent: 720 });

// 2. A monitored session: create it, report a generation, read the verdict with every reason.
await call('create_session', { id: 'agent-7', model: 'claude-opus-4-6', agent: 'claude-code' });
await call('report_usage', { sessionId: 'agent-7', usage: { promptTokens: 121_304, completionTokens: 850 } });
await call('context_status', { sessionId: 'agent-7' });

// 3. A finished task's tool output leaves the context for the archive; its tombstone leads back to it.
const output = 'FAIL src/invoice.test.ts\n  expected "10.01" got "10.00"\n'.repeat(40);
const evicted = await call('evict_task', {
  sessionId: 'agent-7',
  tasks: [{ id: 'fix-rounding', summary: 'Totals now round once per invoice; tests pass.' }],
  messages: [
    { role: 'system', content: 'You are a careful coding agent.' },
    { role: 'user', content: 'Fix the invoice rounding.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'run', arguments: '{"cmd":"npm test"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', task_id: 'fix-rounding', content: output },
    { role: 'assistant', content: 'Fixed: rounding happens once per invoice.' },
  ],
});
const tombstone = (evicted.messages as Array<{ role: string; content: string }>).find(
  (message) => message.role === 'tool',
)!.content;
const back = await client.callTool({ name: 'read_archive', arguments: { location: tombstone } });
const bytes = (back.content as Array<{ text: string }>)[0]!.text;
console.log(`── read_archive\n${bytes === output ? 'the archived output, byte for byte' : 'MISMATCH'}`);

await client.close();
await monitor.close();
await rm(dataDir, { recursive: true, force: true });
