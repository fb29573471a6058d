/**
 * barometer with the Claude Agent SDK, offline: npx tsx examples/claude-agent-sdk.ts
 *
 * The SDK's `query()` runs the Claude Code it ships; barometer's server (the one `barometer proxy` starts) stands
 * between it and a stand-in Anthropic API on 127.0.0.1 that reads two files and answers. In your project, with
 * `barometer proxy` running:
 *
 *   const barometer = barometerClaudeAgent({ proxyUrl: 'http://127.0.0.1:8797' });
 *   for await (const message of barometer.observe(query({ prompt, options: barometer.options({ model }) }))) …
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { barometerClaudeAgent } from '../src/integrations/claude-agent-sdk.js';
import { startServer } from '../src/server/index.js';

type Json = Record<string, unknown>;
const root = mkdtempSync(join(tmpdir(), 'barometer-example-agent-sdk-'));
const work = join(root, 'work');
mkdirSync(work);
mkdirSync(join(root, 'home'));
for (const name of ['a.txt', 'b.txt'])
  writeFileSync(
    join(work, name),
    Array.from({ length: 200 }, (_, line) => `${name} line ${line}`).join('\n'),
  );

/** A streamed Messages answer: a Read of the next file, or the last word. */
function answer(body: Json): string {
  const results = JSON.stringify(body.messages ?? []).split('"tool_result"').length - 1;
  const usage = {
    input_tokens: 2000 + 1500 * results,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  // A side call (a title, a summary) has no tools: it is answered in words.
  const file = Array.isArray(body.tools) && body.tools.length > 0 ? ['a.txt', 'b.txt'][results] : undefined;
  const block = file
    ? { type: 'tool_use', id: `toolu_${results}`, name: 'Read', input: {} }
    : { type: 'text', text: '' };
  const delta = file
    ? { type: 'input_json_delta', partial_json: JSON.stringify({ file_path: join(work, file) }) }
    : {
        type: 'text_delta',
        text: Array.isArray(body.tools) && body.tools.length > 0 ? 'Both files read.' : 'ok',
      };
  const message = {
    id: `msg_${results}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: [],
  };
  const events = [
    {
      type: 'message_start',
      message: { ...message, stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    },
    { type: 'content_block_start', index: 0, content_block: block },
    { type: 'content_block_delta', index: 0, delta },
    { type: 'content_block_stop', index: 0 },
    {
      type: 'message_delta',
      delta: { stop_reason: file ? 'tool_use' : 'end_turn' },
      usage: { output_tokens: 30 },
    },
    { type: 'message_stop' },
  ];
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

const provider = createServer((request, response) => {
  let text = '';
  request.on('data', (chunk: Buffer) => (text += chunk.toString()));
  request.on('end', () => {
    const body = (text ? JSON.parse(text) : {}) as Json;
    if (request.url?.startsWith('/v1/messages/count_tokens')) {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":1000}');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' }).end(answer(body));
  });
});
await new Promise<void>((done) => provider.listen(0, '127.0.0.1', done));
const upstream = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
const server = await startServer({
  port: 0,
  logLevel: 'silent',
  dashboard: false,
  dataDir: join(root, 'data'),
  proxy: { anthropicUpstream: upstream },
});

const barometer = barometerClaudeAgent({ proxyUrl: server.url });
const options = barometer.options({
  cwd: work,
  model: 'claude-sonnet-4-5',
  allowedTools: ['Read'],
  env: {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    ANTHROPIC_API_KEY: 'sk-ant-example-never-sent-anywhere',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
  },
});
try {
  for await (const message of barometer.observe(query({ prompt: 'Read a.txt and b.txt.', options }))) {
    if (message.type === 'result' && message.subtype === 'success') console.log(message.result);
  }
  const { sessionId, calls, lastResult } = barometer.barometer;
  console.log(`query: ${calls} main calls, result ${lastResult?.subtype}`);
  const view = (await (await fetch(`${server.url}/api/v1/sessions/${sessionId}`)).json()) as {
    generations: number;
    health: { level: string };
  };
  console.log(`barometer's session: ${view.generations} calls, health ${view.health.level}`);
} finally {
  await server.close();
  provider.close();
  rmSync(root, { recursive: true, force: true });
}
