import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import type { SessionView } from '../session/session-schemas.js';

type Json = Record<string, unknown>;

/** An Anthropic stream of `deltas` text events of `deltaBytes` each, between message_start and message_delta. */
function bigStream(deltas: number, deltaBytes: number): string[] {
  const event = (name: string, data: Json) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const parts = [
    event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_big',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 4321, cache_read_input_tokens: 1000, output_tokens: 1 },
      },
    }),
    event('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
  ];
  const text = 'x'.repeat(deltaBytes);
  const delta = event('content_block_delta', {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text },
  });
  for (let index = 0; index < deltas; index++) parts.push(delta);
  parts.push(
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 1_234_567 },
    }),
    event('message_stop', { type: 'message_stop' }),
  );
  return parts;
}

let root: string;
let upstream: Server;
let upstreamUrl: string;
const received: string[] = [];
let server: RunningServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'barometer-hostile-proxy-'));
  upstream = createServer((incoming, outgoing) => {
    received.push(incoming.url ?? '');
    incoming.resume();
    incoming.on('end', () => {
      outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
      // 5 MB of deltas, in 64 KB writes: more than the 4 MB the proxy once kept of an answer.
      const parts = bigStream(80, 64 * 1024);
      const write = (index: number) => {
        if (index === parts.length) return void outgoing.end();
        if (outgoing.write(parts[index])) write(index + 1);
        else outgoing.once('drain', () => write(index + 1));
      };
      write(0);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  server = await startServer({
    port: 0,
    logLevel: 'silent',
    dashboard: false,
    dataDir: join(root, 'data'),
    proxy: { anthropicUpstream: upstreamUrl, openaiUpstream: upstreamUrl },
  });
});
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

async function recorded(id: string): Promise<SessionView> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await fetch(`${server.url}/api/v1/sessions/${id}`);
    const view = answer.ok ? ((await answer.json()) as SessionView) : undefined;
    if (view && view.generations >= 1) return view;
    if (Date.now() > deadline) throw new Error(`session ${id}: nothing recorded`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the proxy on hostile answers and requests (issue 40)', () => {
  it('keeps the prompt figure of a streamed answer over 4 MB (message_start is its first event)', async () => {
    const answer = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'sk-test',
        'x-barometer-session': 'big-answer',
      },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(answer.status).toBe(200);
    // The agent got every byte.
    expect((await answer.text()).length).toBe(bigStream(80, 64 * 1024).join('').length);
    const view = await recorded('big-answer');
    // Anthropic's prompt: input + cache reads + cache writes (message_start), the output from message_delta.
    expect(view.signals.lastPromptTokens).toBe(4321 + 1000);
    expect(view.generations).toBe(1);
  });

  it('answers 400 to an absolute-form request target, and sends nothing upstream', async () => {
    const before = received.length;
    const port = new URL(server.url).port;
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: 'http://evil.example/v1/messages',
          headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json' },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      sent.on('error', reject);
      sent.end('{"model":"claude-sonnet-4-5","messages":[]}');
    });
    expect(status).toBe(400);
    expect((JSON.parse(body) as Json).code).toBe('BR_ERR_BAD_REQUEST');
    expect(received.length).toBe(before);
  });

  it('answers 413 to a chunked body over the limit that names no session, and sends nothing whole upstream', async () => {
    const limited = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'limited'),
      proxy: { anthropicUpstream: upstreamUrl, bodyLimitBytes: 64 * 1024 },
    });
    try {
      const piece = new TextEncoder().encode(`${'x'.repeat(16 * 1024 - 1)} `);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          // 1 MiB in 16 KiB chunks, no content-length: sixteen times the limit.
          if (sent++ === 64) controller.close();
          else
            controller.enqueue(
              sent === 1 ? new TextEncoder().encode('{"model":"claude-sonnet-4-5","x":"') : piece,
            );
        },
      });
      const answer = await fetch(`${limited.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(answer.status).toBe(413);
      expect(((await answer.json()) as Json).code).toBe('BR_ERR_BODY_TOO_LARGE');
    } finally {
      await limited.close();
    }
  });
});
