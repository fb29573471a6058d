import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import type { ReadRequest } from './proxy-session.js';
import { ProxySessions } from './proxy-sessions.js';
import { smallSubTask } from './test-helpers/small-sub-task.js';

const root = mkdtempSync(join(tmpdir(), 'barometer-read-while-answering-'));
const closing: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
  rmSync(root, { recursive: true, force: true });
});

/** A provider that streams an answer in steps the test releases: the headers and first event, then the end. */
async function steppedProvider() {
  const steps: Array<() => void> = [];
  const waiting: Array<(step: () => void) => void> = [];
  let arrived = 0;
  const server = createServer((incoming, outgoing: ServerResponse) => {
    incoming.resume();
    incoming.on('end', () => {
      arrived++;
      const start = () => {
        outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
        outgoing.write(
          'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":100,"output_tokens":1}}}\n\n',
        );
      };
      const end = () =>
        outgoing.end(
          'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":20}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
        );
      for (const step of [start, end]) {
        const next = waiting.shift();
        if (next) next(step);
        else steps.push(step);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(() => new Promise((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived: () => arrived,
    /** Runs the provider's next step (the headers and first event, then the end). */
    release: async () => {
      const step = steps.shift() ?? (await new Promise<() => void>((resolve) => waiting.push(resolve)));
      step();
    },
  };
}

describe('a request the proxy acts on is read while its answer streams', () => {
  it('once the answer has begun, not before, and its record needs no second reading', async () => {
    const read = vi.spyOn(ProxySessions.prototype, 'read');
    const provider = await steppedProvider();
    const server: RunningServer = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'data'),
      proxy: { anthropicUpstream: provider.url },
    });
    closing.push(() => server.close());
    const body: Record<string, unknown> = { ...smallSubTask(0), stream: true };
    const answer = fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'test', 'x-barometer-session': 'read' },
      body: JSON.stringify(body),
    });
    await vi.waitFor(() => expect(provider.arrived()).toBe(1));
    // The provider has the whole request and has not answered: nothing is read yet.
    expect(read).not.toHaveBeenCalled();
    await provider.release();
    const response = await answer;
    const stream = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await stream.read()).value);
    expect(first).toContain('message_start');
    // The answer is still open: the request is read meanwhile, whole, in the cache model's terms for its receipt.
    await vi.waitFor(() => expect(read).toHaveBeenCalledTimes(1));
    const done = (await read.mock.results[0]?.value) as ReadRequest | undefined;
    expect(done?.body.model).toBe(body.model);
    expect(done?.requests?.provider).toBe('anthropic');
    expect(done?.version).toBe(0);
    await provider.release();
    while (!(await stream.read()).done);
    // Its receipt is the one of the request read while it streamed.
    await vi.waitFor(async () => {
      const view = (await (await fetch(`${server.url}/api/v1/sessions/read`)).json()) as {
        receipt: { calls: number } | null;
      };
      expect(view.receipt?.calls).toBe(1);
    });
    expect(read).toHaveBeenCalledTimes(1);
    read.mockRestore();
  });
});
