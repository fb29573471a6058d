import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../server/serve.js';
import { KeyValueTable } from '../store/key-value-table.js';
import { StateDatabase } from '../store/state-database.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { codexBinary } from './test-helpers/codex-binary.js';
import { okMessage } from './test-helpers/fake-anthropic.js';
import { scriptedHistory as history, tombstones } from './test-helpers/scripted-history.js';

const CODEX = codexBinary();
if (!CODEX && process.env.CI === 'true')
  throw new Error('the ChatGPT-login test needs the @openai/codex binary under CI');
if (!CODEX)
  console.warn('skipping the ChatGPT-login Codex test: the @openai/codex binary is not installed (npm ci)');

type Json = Record<string, unknown>;

const SESSION = 'restart-session';

let root: string;
let fake: CassetteServer;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'barometer-proxy-restart-'));
  fake = await startCassetteServer(okMessage);
});
afterAll(async () => {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

async function send(url: string, body: Json): Promise<void> {
  const answer = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'test', 'x-barometer-session': SESSION },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(200);
  await answer.text();
}

describe('barometer proxy across a restart', () => {
  it('sends the same tombstones after a restart as before it', async () => {
    const dataDir = join(root, 'data');
    const options = {
      port: 0,
      logLevel: 'silent' as const,
      dashboard: false,
      dataDir,
      proxy: { anthropicUpstream: fake.url },
    };
    let server = await startServer(options);
    await send(server.url, history(6));
    await send(server.url, history(7));
    await server.close();
    const before = tombstones(fake.requests[1]?.body);
    // The reads of the finished sub-task (before the commit) were evicted.
    expect([...before.keys()].sort()).toEqual(['toolu_0', 'toolu_1', 'toolu_2']);
    // Kept in the data dir's database, one row per session.
    const database = StateDatabase.open(join(dataDir, 'barometer.db'));
    expect(new KeyValueTable(database, 'proxy-sessions').get(SESSION)).toContain('toolu_0');
    database.close();

    server = await startServer(options);
    try {
      await send(server.url, history(8));
    } finally {
      await server.close();
    }
    const after = tombstones(fake.requests[2]?.body);
    expect(after).toEqual(before);
    // Each tombstone names its archive, which holds the original.
    const archive = /in (\S+\.log)\]/.exec(before.get('toolu_0') ?? '')?.[1] ?? '';
    expect(readFileSync(archive, 'utf8')).toContain('file 0 line 399');
  });
});

describe('barometer proxy request bodies', () => {
  it('refuses a body over its limit with BR_ERR_BODY_TOO_LARGE, streamed or declared, and sends nothing on', async () => {
    const server = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'limit'),
      proxy: { anthropicUpstream: fake.url, bodyLimitBytes: 4096 },
    });
    const seen = fake.requests.length;
    try {
      const big = JSON.stringify(history(1));
      // Declared by its content-length.
      const declared = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-barometer-session': 'limit' },
        body: big,
      });
      expect(declared.status).toBe(413);
      expect(((await declared.json()) as Json).code).toBe('BR_ERR_BODY_TOO_LARGE');
      // Chunked, no length: found while it streams.
      const streamed = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-barometer-session': 'limit' },
        body: new Blob([big]).stream(),
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(((await streamed.json()) as Json).code).toBe('BR_ERR_BODY_TOO_LARGE');
      // Under the limit, it goes on.
      const small = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-barometer-session': 'limit' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(small.status).toBe(200);
      await small.text();
    } finally {
      await server.close();
    }
    expect(fake.requests.slice(seen).map((request) => request.body?.messages)).toEqual([
      [{ role: 'user', content: 'hi' }],
    ]);
  });
});

describe('barometer proxy and Codex signed in with ChatGPT', () => {
  it('sends a Responses request carrying chatgpt-account-id to the ChatGPT backend, others to the OpenAI API', async () => {
    const answer = () => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'resp_1', object: 'response', model: 'gpt-5.3-codex', output: [] }),
    });
    const openai = await startCassetteServer(answer);
    const chatgpt = await startCassetteServer(answer);
    const server = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'chatgpt'),
      // A base URL with a path, as the ChatGPT backend's (https://chatgpt.com/backend-api/codex).
      proxy: { openaiUpstream: openai.url, chatgptUpstream: `${chatgpt.url}/backend-api/codex` },
    });
    const body = JSON.stringify({ model: 'gpt-5.3-codex', input: 'hi', prompt_cache_key: 'codex-session' });
    try {
      const signedIn = await fetch(`${server.url}/v1/responses`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer chatgpt-access-token',
          'chatgpt-account-id': 'account-1',
        },
        body,
      });
      expect(signedIn.status).toBe(200);
      await signedIn.text();
      const withKey = await fetch(`${server.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
        body,
      });
      expect(withKey.status).toBe(200);
      await withKey.text();
    } finally {
      await server.close();
      await openai.close();
      await chatgpt.close();
    }
    expect(chatgpt.requests.map((request) => request.path)).toEqual(['/backend-api/codex/responses']);
    expect(chatgpt.requests[0]?.headers.authorization).toBe('Bearer chatgpt-access-token');
    expect(chatgpt.requests[0]?.headers['chatgpt-account-id']).toBe('account-1');
    expect(openai.requests.map((request) => request.path)).toEqual(['/v1/responses']);
    expect(openai.requests[0]?.headers.authorization).toBe('Bearer sk-test');
  });
});

describe.skipIf(!CODEX)('the real Codex CLI signed in with ChatGPT, through barometer proxy', () => {
  it('keeps its ChatGPT login: the request reaches the ChatGPT backend with its token and account id', async () => {
    const backend = await startCassetteServer(() => ({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        error: { message: 'fake ChatGPT backend says no', type: 'invalid_request_error' },
      }),
    }));
    const server = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'codex-chatgpt'),
      proxy: {
        openaiUpstream: `${backend.url}/api-key-upstream`,
        chatgptUpstream: `${backend.url}/backend-api/codex`,
      },
    });
    // A ChatGPT login as `codex login` leaves it in ~/.codex/auth.json: tokens whose claims name the account (made
    // up here, unsigned: Codex reads the claims, it does not check the signature), refreshed just now.
    const home = join(root, 'codex-chatgpt-home');
    mkdirSync(join(home, '.codex'), { recursive: true });
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = {
      'https://api.openai.com/auth': { chatgpt_plan_type: 'plus', chatgpt_account_id: 'account-test' },
      email: 'test@example.com',
      exp: Math.floor(Date.now() / 1000) + 30 * 24 * 3600,
    };
    const token = `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.signature`;
    writeFileSync(
      join(home, '.codex', 'auth.json'),
      JSON.stringify({
        OPENAI_API_KEY: null,
        tokens: {
          id_token: token,
          access_token: token,
          refresh_token: 'refresh-test',
          account_id: 'account-test',
        },
        last_refresh: new Date().toISOString(),
      }),
    );
    const { OPENAI_API_KEY: _key, ...env } = process.env;
    // What `barometer wrap codex` adds when OPENAI_API_KEY is unset (src/cli/commands/proxy.ts, agentCommand).
    const provider = `model_providers.barometer={name="barometer",base_url="${server.url}/v1",requires_openai_auth=true,wire_api="responses",supports_websockets=false,request_max_retries=0,stream_max_retries=0}`;
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
          // Signed in with ChatGPT, Codex also opens its apps' MCP server on the ChatGPT backend: off here, its base
          // URL on the fake backend, and every other HTTPS request sent to a closed local port, so nothing leaves.
          '-c',
          'features.apps=false',
          '-c',
          `chatgpt_base_url="${backend.url}/backend-api/"`,
          'say hi',
        ],
        {
          cwd: home,
          env: {
            ...env,
            HOME: home,
            HTTPS_PROXY: 'http://127.0.0.1:9',
            https_proxy: 'http://127.0.0.1:9',
            ALL_PROXY: 'http://127.0.0.1:9',
            NO_PROXY: '127.0.0.1,localhost',
            no_proxy: '127.0.0.1,localhost',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await new Promise((resolve) => child.on('exit', resolve));
    } finally {
      await server.close();
      await backend.close();
    }
    const calls = backend.requests.filter((request) => request.path.endsWith('/responses'));
    expect(calls.length, output).toBeGreaterThan(0);
    expect(calls.map((request) => request.path)).toEqual(calls.map(() => '/backend-api/codex/responses'));
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${token}`);
    expect(calls[0]?.headers['chatgpt-account-id']).toBe('account-test');
    // The backend's answer reached Codex as it was sent.
    expect(output).toContain('fake ChatGPT backend says no');
    // Nothing went to chatgpt.com: the apps' MCP server is off (and would have used the fake backend).
    expect(output).not.toContain('https://chatgpt.com');
  }, 120_000);
});
