import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import {
  type CassetteServer,
  OPENAI_RATE_LIMIT_HEADERS,
  replay,
  startCassetteServer,
} from '../test-helpers/cassette-server.js';
import { parseServerSentEvents } from '../usage/server-sent-events.js';
import { loadCassette } from '../usage/test-helpers/traces.js';
import { codexBinary } from './test-helpers/codex-binary.js';
import { responsesStream } from './test-helpers/fake-responses.js';

type Json = Record<string, unknown>;

// Recorded answers (test/fixtures/traces/api-cassettes): a chat completion, a chat stream with usage in its last
// chunk, a Responses answer.
const completion = loadCassette('test_multiple_agent_tool_calls.yaml').find((recorded) =>
  recorded.uri.endsWith('/chat/completions'),
)!;
const [chatStream] = loadCassette('test_run_stream_sync_streams_real_model.yaml');
const [response] = loadCassette('test_openai_responses_compact_with_auto_previous_response_id_chain.yaml');

const CODEX = codexBinary();
if (!CODEX && process.env.CI === 'true')
  throw new Error('the Codex proxy test needs the @openai/codex binary under CI');
if (!CODEX)
  console.warn(
    'skipping the Codex proxy test: the @openai/codex binary is not installed (npm ci installs it)',
  );

const CODEX_USAGE = {
  input_tokens: 12_000,
  input_tokens_details: { cached_tokens: 8_000 },
  output_tokens: 30,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 12_030,
};

let fake: CassetteServer;
let proxy: RunningServer;
let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'barometer-proxy-openai-'));
  fake = await startCassetteServer((request) => {
    const body = request.body ?? {};
    if (request.path.endsWith('/chat/completions')) {
      if (body.stream === true) return replay(chatStream!, OPENAI_RATE_LIMIT_HEADERS);
      return replay(completion, OPENAI_RATE_LIMIT_HEADERS);
    }
    if (request.path.endsWith('/responses')) {
      const codex = typeof request.headers['x-codex-turn-metadata'] === 'string';
      if (!codex) return replay(response!, OPENAI_RATE_LIMIT_HEADERS);
      const answered = JSON.stringify(body.input).includes('function_call_output');
      const item = answered
        ? {
            type: 'message',
            id: 'msg_done',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Codex is done.', annotations: [] }],
          }
        : {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'call_echo',
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: 'echo codex-was-here' }),
            status: 'completed',
          };
      return {
        headers: { 'content-type': 'text/event-stream', ...OPENAI_RATE_LIMIT_HEADERS },
        body: responsesStream(`resp_${answered ? 2 : 1}`, String(body.model), item, CODEX_USAGE),
      };
    }
    return {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"error":"no such route"}',
    };
  });
  proxy = await startServer({
    port: 0,
    logLevel: 'silent',
    dashboard: false,
    dataDir: join(root, 'data'),
    proxy: { openaiUpstream: fake.url, anthropicUpstream: fake.url },
  });
});
afterAll(async () => {
  await proxy?.close();
  await fake?.close();
  rmSync(root, { recursive: true, force: true });
});

const client = (session: string) =>
  new OpenAI({
    apiKey: 'sk-test-never-stored',
    baseURL: `${proxy.url}/v1`,
    maxRetries: 0,
    defaultHeaders: { 'x-barometer-session': session },
  });

describe('the openai SDK through barometer proxy', () => {
  it('gets a chat completion as the provider sent it, and the session records its usage', async () => {
    const answer = await client('chat-plain').chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect({ ...answer }).toEqual(completion.body);
    const usage = (completion.body as Json).usage as Json;
    // Recorded once the answer has passed: over a database file, once its write is committed.
    await vi.waitFor(async () => {
      const view = await proxy.app.barometerMonitor.view('chat-plain');
      expect(view.generations).toBe(1);
      expect(view.signals.lastPromptTokens).toBe(usage.prompt_tokens);
    });
    // The key went upstream as the SDK sent it.
    expect(fake.requests.at(-1)?.headers.authorization).toBe('Bearer sk-test-never-stored');
  });

  it('streams a chat completion chunk by chunk, and records the usage of its last chunk', async () => {
    const stream = await client('chat-stream').chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: unknown[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks).toEqual(parseServerSentEvents(chatStream!.body as string));
    const last = chunks.at(-1) as { usage: { prompt_tokens: number } };
    await vi.waitFor(async () => {
      const view = await proxy.app.barometerMonitor.view('chat-stream');
      expect(view.signals.lastPromptTokens).toBe(last.usage.prompt_tokens);
    });
  });

  it('gets a Responses answer, and its usage is recorded', async () => {
    const answer = await client('responses-plain').responses.create({ model: 'gpt-5', input: 'hi' });
    expect(answer.id).toBe((response!.body as Json).id);
    await vi.waitFor(async () => {
      const view = await proxy.app.barometerMonitor.view('responses-plain');
      expect(view.signals.lastPromptTokens).toBe(((response!.body as Json).usage as Json).input_tokens);
    });
  });
});

describe('failing open', () => {
  it('forwards a body it cannot read as it came, and counts the failure in /metrics', async () => {
    const sent = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x' },
      body: '{not json',
    });
    // The provider got the nine bytes as sent (not JSON, so the fake could not parse them), and answered.
    expect(sent.status).toBe(200);
    expect(fake.requests.at(-1)?.headers['content-length']).toBe('9');
    expect(fake.requests.at(-1)?.body).toBeUndefined();
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toMatch(/barometer_proxy_failures_total\{stage="edit"\} [1-9]/);
  });

  it('answers 502 BR_ERR_UPSTREAM_UNREACHABLE when the provider cannot be reached', async () => {
    const lonely = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'lonely'),
      proxy: { anthropicUpstream: 'http://127.0.0.1:1' },
    });
    try {
      const sent = await fetch(`${lonely.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 5, messages: [] }),
      });
      expect(sent.status).toBe(502);
      expect(((await sent.json()) as Json).code).toBe('BR_ERR_UPSTREAM_UNREACHABLE');
    } finally {
      await lonely.close();
    }
  });

  it('refuses a WebSocket upgrade of /v1/responses with an HTTP answer (Codex then uses HTTPS)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${proxy.url}/v1/responses`);
      const outgoing = httpRequest(url, {
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      outgoing.on('response', (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      });
      outgoing.on('upgrade', () => reject(new Error('upgraded')));
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).not.toBe(101);
  });
});

describe.skipIf(!CODEX)('the real Codex CLI through barometer proxy', () => {
  it('runs the tool call the fake model asks for, then answers; the session is the rollout’s', async () => {
    const home = join(root, 'codex-home');
    const work = join(root, 'codex-work');
    mkdirSync(home);
    mkdirSync(work);
    const provider = `model_providers.barometer={name="barometer",base_url="${proxy.url}/v1",env_key="OPENAI_API_KEY",wire_api="responses",supports_websockets=false}`;
    const before = fake.requests.length;
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
        'Run echo and tell me what it printed.',
      ],
      {
        cwd: work,
        env: { ...process.env, HOME: home, OPENAI_API_KEY: 'sk-codex-test' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(exitCode, stderr).toBe(0);
    expect(stdout).toContain('Codex is done.');
    const calls = fake.requests.slice(before).filter((request) => request.path.endsWith('/responses'));
    const output = calls
      .flatMap((request) => (request.body?.input as Json[]) ?? [])
      .find((item) => item.type === 'function_call_output' && item.call_id === 'call_echo');
    expect(JSON.stringify(output?.output)).toContain('codex-was-here');
    const metadata = JSON.parse(String(calls[0]!.headers['x-codex-turn-metadata'])) as { session_id: string };
    const view = await proxy.app.barometerMonitor.view(metadata.session_id);
    expect(view.agent).toBe('codex');
    expect(view.signals.lastPromptTokens).toBe(CODEX_USAGE.input_tokens);
    // Named from its first request: the folder of its <environment_context> and the user's own words.
    expect(view.workingDirectory).toBe(work);
    expect(view.project).toBe(`${root.split('/').at(-1)}/codex-work`);
    expect(view.title).toBe('Run echo and tell me what it printed.');
  }, 120_000);
});
