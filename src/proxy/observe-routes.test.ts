import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { codexBinary } from './test-helpers/codex-binary.js';
import { okMessage } from './test-helpers/fake-anthropic.js';
import { responsesStream } from './test-helpers/fake-responses.js';
import { scriptedHistory, scriptedResponses, tombstones } from './test-helpers/scripted-history.js';

type Json = Record<string, unknown>;

const CODEX = codexBinary();
if (!CODEX && process.env.CI === 'true')
  throw new Error('the Codex observe test needs the @openai/codex binary under CI');
if (!CODEX)
  console.warn(
    'skipping the Codex observe test: the @openai/codex binary is not installed (npm ci installs it)',
  );

let root: string;
let fake: CassetteServer;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'barometer-proxy-observe-'));
  fake = await startCassetteServer((request) => {
    if (request.path.startsWith('/v1/messages/count_tokens'))
      return { headers: { 'content-type': 'application/json' }, body: '{"input_tokens":42}' };
    if (request.path.startsWith('/v1/messages')) return okMessage();
    if (request.path === '/v1/chat/completions')
      return {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          model: 'gpt-4o',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22 },
        }),
      };
    if (request.path !== '/v1/responses')
      return { status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":"no route"}' };
    if (typeof request.headers['x-codex-turn-metadata'] === 'string') {
      const item = {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Observed and done.', annotations: [] }],
      };
      const usage = { input_tokens: 9_000, output_tokens: 12, total_tokens: 9_012 };
      return {
        headers: { 'content-type': 'text/event-stream' },
        body: responsesStream('resp_codex', String(request.body?.model), item, usage),
      };
    }
    return {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'resp_1',
        object: 'response',
        model: 'gpt-5.3-codex',
        status: 'completed',
        output: [],
        usage: { input_tokens: 12_000, output_tokens: 30, total_tokens: 12_030 },
      }),
    };
  });
});
afterAll(async () => {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

async function acting(dataDir: string): Promise<RunningServer> {
  // The proxy acts (its default mode): only the observe routes leave requests as they came.
  return startServer({
    port: 0,
    logLevel: 'silent',
    dashboard: false,
    dataDir: join(root, dataDir),
    proxy: { anthropicUpstream: fake.url, openaiUpstream: fake.url },
  });
}

/** Sends one request; answers the bytes sent, and the bytes and path the provider received. */
async function send(
  url: string,
  path: string,
  body: Json,
  session: string,
): Promise<{ sent: Buffer; received: Buffer; path: string }> {
  const sent = Buffer.from(JSON.stringify(body), 'utf8');
  const seen = fake.requests.length;
  const answer = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'test', 'x-barometer-session': session },
    body: sent,
  });
  expect(answer.status, await answer.clone().text()).toBe(200);
  await answer.text();
  expect(fake.requests.length).toBe(seen + 1);
  const received = fake.requests.at(-1)!;
  return { sent, received: received.raw, path: received.path };
}

const view = async (server: RunningServer, id: string) =>
  (await (await fetch(`${server.url}/api/v1/sessions/${id}`)).json()) as Json;

describe('the /observe routes of an acting proxy', () => {
  it('send a Messages session upstream byte for byte, where the acting routes evict, and record every call', async () => {
    const server = await acting('messages');
    try {
      for (const reads of [6, 7, 8, 9]) {
        const acted = await send(server.url, '/v1/messages?beta=true', scriptedHistory(reads), 'acted');
        const observed = await send(
          server.url,
          '/observe/v1/messages?beta=true',
          scriptedHistory(reads),
          'observed',
        );
        // The same path upstream, without the prefix.
        expect(observed.path).toBe('/v1/messages?beta=true');
        expect(observed.received.equals(observed.sent), `observed request of ${reads} reads`).toBe(true);
        // The control: on the acting route the finished sub-task's reads are tombstones from the second request on.
        const evicted = [...tombstones(JSON.parse(acted.received.toString()) as Json).keys()];
        expect(evicted.sort()).toEqual(reads === 6 ? [] : ['toolu_0', 'toolu_1', 'toolu_2']);
      }
      // A session seen in observe stays observed: its requests through the acting route go as they came too (the
      // second would carry what the policy made of the first).
      for (const reads of [10, 11]) {
        const later = await send(server.url, '/v1/messages', scriptedHistory(reads), 'observed');
        expect(later.received.equals(later.sent), `request of ${reads} reads`).toBe(true);
      }
      // Token counting goes to its own path, as sent.
      const counted = await send(
        server.url,
        '/observe/v1/messages/count_tokens',
        scriptedHistory(2),
        'observed',
      );
      expect(counted.path).toBe('/v1/messages/count_tokens');
      expect(counted.received.equals(counted.sent)).toBe(true);

      await vi.waitFor(async () => {
        const observed = await view(server, 'observed');
        expect(observed.generations).toBe(6);
        expect(observed.proxy).toEqual({ mode: 'observe', acting: false, pause: null });
      });
      expect((await view(server, 'acted')).proxy).toEqual({ mode: 'act', acting: true, pause: null });
      const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Json };
      for (const path of ['/messages', '/messages/count_tokens', '/chat/completions', '/responses'])
        expect(Object.keys(document.paths)).toContain(`/observe/v1${path}`);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toContain('barometer_proxy_sessions{state="observed"} 1');
      expect(metrics).toContain('barometer_proxy_sessions{state="acting"} 1');
      expect(metrics).toMatch(
        /barometer_proxy_requests_total\{route="\/observe\/v1\/messages",outcome="passed"\} 4/,
      );
    } finally {
      await server.close();
    }
  });

  it('send Responses and Chat Completions requests upstream byte for byte, to the paths without the prefix', async () => {
    const server = await acting('openai');
    try {
      for (const reads of [6, 7, 8]) {
        const acted = await send(server.url, '/v1/responses', scriptedResponses(reads), 'codex-acted');
        const observed = await send(
          server.url,
          '/observe/v1/responses',
          scriptedResponses(reads),
          'codex-observed',
        );
        expect(observed.path).toBe('/v1/responses');
        expect(observed.received.equals(observed.sent), `observed request of ${reads} calls`).toBe(true);
        // The control: Codex's finished sub-task is evicted on the acting route.
        if (reads > 6) expect(acted.received.toString()).toContain('[barometer evicted');
      }
      const chat = {
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'hi' },
        ],
      };
      const completion = await send(server.url, '/observe/v1/chat/completions', chat, 'chat-observed');
      expect(completion.path).toBe('/v1/chat/completions');
      expect(completion.received.equals(completion.sent)).toBe(true);
      await vi.waitFor(async () => {
        expect((await view(server, 'codex-observed')).generations).toBe(3);
        expect((await view(server, 'chat-observed')).proxy).toMatchObject({ mode: 'observe' });
      });
    } finally {
      await server.close();
    }
  });

  it('keep a session observed after the proxy restarts', async () => {
    let server = await acting('restart');
    try {
      await send(server.url, '/observe/v1/messages', scriptedHistory(6), 'kept');
    } finally {
      await server.close();
    }
    server = await acting('restart');
    try {
      for (const reads of [7, 8]) {
        const next = await send(server.url, '/v1/messages', scriptedHistory(reads), 'kept');
        expect(next.received.equals(next.sent), `request of ${reads} reads`).toBe(true);
      }
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!CODEX)('the real Codex CLI through an acting proxy’s /observe/v1', () => {
  it('reaches /v1/responses upstream (the prefix taken off), and its session is recorded and observed', async () => {
    const server = await acting('codex');
    const home = join(root, 'codex-home');
    mkdirSync(home);
    const provider = `model_providers.barometer={name="barometer",base_url="${server.url}/observe/v1",env_key="OPENAI_API_KEY",wire_api="responses",supports_websockets=false}`;
    const before = fake.requests.length;
    let output = '';
    try {
      const child = spawn(
        CODEX as string,
        [
          'exec',
          '--skip-git-repo-check',
          '-c',
          'model_provider=barometer',
          '-c',
          provider,
          '-m',
          'gpt-5.3-codex',
          'Say hi.',
        ],
        {
          cwd: home,
          env: { ...process.env, HOME: home, OPENAI_API_KEY: 'sk-codex-test' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(exitCode, output).toBe(0);
      expect(output).toContain('Observed and done.');
      const calls = fake.requests.slice(before);
      expect(calls.map((request) => request.path)).toEqual(calls.map(() => '/v1/responses'));
      const metadata = JSON.parse(String(calls[0]!.headers['x-codex-turn-metadata'])) as {
        session_id: string;
      };
      await vi.waitFor(async () => {
        const observed = await view(server, metadata.session_id);
        expect(observed.generations).toBe(calls.length);
        expect(observed.proxy).toEqual({ mode: 'observe', acting: false, pause: null });
      });
    } finally {
      await server.close();
    }
  }, 120_000);
});
