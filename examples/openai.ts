/**
 * The OpenAI SDK wrapper, offline: npx tsx examples/openai.ts
 *
 * A local server on 127.0.0.1 stands in for api.openai.com: it answers with a recorded chat completion (usage as
 * OpenAI reported it) and rate-limit headers in OpenAI's documented form. In your project:
 *
 *   import { wrapOpenAI } from 'barometer/openai';
 *   const openai = wrapOpenAI(new OpenAI(), { session });
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { Session } from '../src/index.js';
import { wrapOpenAI } from '../src/integrations/openai.js';

const completion = {
  id: 'chatcmpl-BEhL3fZWgTz2Z57jXexYbQPsOBUm3',
  object: 'chat.completion',
  created: 1742842885,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    { index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: 'London.' } },
  ],
  usage: {
    prompt_tokens: 104,
    completion_tokens: 16,
    total_tokens: 120,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  },
};
const rateLimits = {
  'x-ratelimit-limit-requests': '500',
  'x-ratelimit-remaining-requests': '499',
  'x-ratelimit-reset-requests': '120ms',
  'x-ratelimit-limit-tokens': '200000',
  'x-ratelimit-remaining-tokens': '18000',
  'x-ratelimit-reset-tokens': '54s',
};
const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const { stream } = JSON.parse(body) as { stream?: boolean };
    if (!stream) {
      response
        .writeHead(200, { 'content-type': 'application/json', ...rateLimits })
        .end(JSON.stringify(completion));
      return;
    }
    // A stream as OpenAI sends it to a request with stream_options.include_usage: usage in a last, empty chunk.
    const chunk = (fields: object) =>
      `data: ${JSON.stringify({ ...completion, object: 'chat.completion.chunk', ...fields })}\n\n`;
    response.writeHead(200, { 'content-type': 'text/event-stream', ...rateLimits });
    response.end(
      chunk({
        choices: [{ index: 0, delta: { role: 'assistant', content: 'London.' }, finish_reason: null }],
        usage: null,
      }) +
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null }) +
        chunk({ choices: [], usage: completion.usage }) +
        'data: [DONE]\n\n',
    );
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

const session = new Session({ model: 'gpt-4o-mini' });
const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-example', baseURL }), { session });

const answer = await openai.chat.completions.create({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'What is the capital of England?' }],
});
console.log(
  answer.choices[0]?.message.content,
  openai.barometer.verdict?.action,
  openai.barometer.lastCall?.costUsd,
);

// Streamed: barometer asks for the usage chunk and hides it, so this loop sees what it would see without barometer.
const stream = await openai.chat.completions.create({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'And again?' }],
  stream: true,
});
let text = '';
for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
console.log(text, openai.barometer.verdict?.action, openai.barometer.verdict?.waitSeconds);
console.log(session.signals().quotas);
server.close();
