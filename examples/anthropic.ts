/**
 * The Anthropic SDK wrapper, offline: npx tsx examples/anthropic.ts
 *
 * A local server on 127.0.0.1 stands in for api.anthropic.com: it answers with a recorded message (a cache read of
 * 118,000 tokens) and rate-limit headers in Anthropic's documented form. In your project:
 *
 *   import { wrapAnthropic } from 'barometer/anthropic';
 *   const anthropic = wrapAnthropic(new Anthropic(), { session });
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { Session } from '../src/index.js';
import { wrapAnthropic } from '../src/integrations/anthropic.js';

const message = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-opus-4-6',
  content: [{ type: 'text', text: 'The totals are rounded per line; round the sum instead.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: {
    input_tokens: 1204,
    cache_read_input_tokens: 118000,
    cache_creation_input_tokens: 2100,
    output_tokens: 850,
  },
};
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const reset = new Date(Date.now() + 8000).toISOString();
    response.writeHead(200, {
      'content-type': 'application/json',
      'anthropic-ratelimit-input-tokens-limit': '30000',
      'anthropic-ratelimit-input-tokens-remaining': '26000',
      'anthropic-ratelimit-input-tokens-reset': reset,
      'anthropic-ratelimit-output-tokens-limit': '8000',
      'anthropic-ratelimit-output-tokens-remaining': '7150',
      'anthropic-ratelimit-output-tokens-reset': reset,
    });
    response.end(JSON.stringify(message));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const session = new Session({ model: 'claude-opus-4-6', agent: 'claude-code' });
const anthropic = wrapAnthropic(new Anthropic({ apiKey: 'sk-ant-example', baseURL }), { session });

const reply = await anthropic.messages.create({
  model: 'claude-opus-4-6',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'Why are the invoice totals off by a cent?' }],
});
const { verdict, lastCall } = anthropic.barometer;
console.log(reply.content[0]?.type === 'text' ? reply.content[0].text : reply.content[0]?.type);
console.log(verdict?.action, verdict?.priority, lastCall?.health.level, lastCall?.costUsd);
console.log(lastCall?.health.reminder?.text);
console.log(
  session
    .signals()
    .quotas.map((quota) => `${quota.dimension}: ${quota.left} of ${quota.limit} left (${quota.source})`),
);
server.close();
