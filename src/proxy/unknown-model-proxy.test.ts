import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import type { SessionSummary, SessionView } from '../session/session-schemas.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { spawnCli } from '../test-helpers/spawn-cli.js';
import { requestedOutput } from './requested-output.js';
import { messageStream } from './test-helpers/fake-anthropic.js';

/** The native Claude Code binary of the devDependency (npm may skip its postinstall: the platform package's). */
function claudeBinary(): string | undefined {
  try {
    const packageJson = createRequire(import.meta.url).resolve(
      `@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`,
    );
    const binary = join(dirname(packageJson), 'claude');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
const CLAUDE = claudeBinary();
if (!CLAUDE && process.env.CI === 'true')
  throw new Error('the unknown-model proxy test needs the Claude Code binary under CI');
if (!CLAUDE)
  console.warn('skipping the real Claude Code default-model test: its binary is not installed (npm ci)');

const USAGE = { input_tokens: 1_000, output_tokens: 40 };

let root: string;
let fake: CassetteServer;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'barometer-unknown-model-proxy-'));
  // Answers as the provider would, with the model it was asked for: text only, so that an agent stops at once.
  fake = await startCassetteServer((request) =>
    messageStream(`msg_${Date.now()}`, String(request.body?.model), USAGE, { text: 'done' }),
  );
});
afterAll(async () => {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

/** The session once the proxy has recorded `calls` generations of it (recording follows the answer). */
async function recorded(url: string, id: string, calls: number): Promise<SessionView> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await fetch(`${url}/api/v1/sessions/${id}`);
    const view = answer.ok ? ((await answer.json()) as SessionView) : undefined;
    if (view && view.generations >= calls) return view;
    if (Date.now() > deadline)
      throw new Error(`session ${id}: ${view?.generations ?? 'none'} of ${calls} calls recorded`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function send(url: string, session: string, model: string): Promise<void> {
  const answer = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-test',
      'x-claude-code-session-id': session,
    },
    body: JSON.stringify({
      model,
      max_tokens: 32_000,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
  expect(answer.status).toBe(200);
  await answer.text();
}

describe('the proxy on a model the registry does not list', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'data'),
      proxy: { anthropicUpstream: fake.url },
    });
  });
  afterAll(() => server.close());

  it("records every call of Claude Code's default claude-opus-5-5, priced and measured by its family's estimate", async () => {
    // Regression (issue 37): every call failed open with `unknown model "claude-opus-5-5"`, and nothing was recorded.
    for (let call = 0; call < 3; call++) await send(server.url, 'opus-5-5-session', 'claude-opus-5-5');
    const view = await recorded(server.url, 'opus-5-5-session', 3);
    expect(view).toMatchObject({ model: 'claude-opus-5-5', agent: 'claude-code', generations: 3 });
    expect(view.profile).toMatchObject({
      contextWindow: 167_000,
      windowSource: 'family-estimate',
      priceSource: 'family-estimate',
      estimatedFrom: 'claude-opus-4-8',
    });
    // Three calls at claude-opus-4-8's $5 / $25 per million: 3 × (1,000 × 5 + 40 × 25) / 1,000,000.
    expect(view.signals.costUsd).toBeCloseTo(0.018, 9);
    expect(view.signals.costEstimated).toBe(true);
  });

  it('records a model of no known family too: its calls counted, health unknown, unpriced', async () => {
    for (let call = 0; call < 2; call++) await send(server.url, 'acme-session', 'acme-7');
    const view = await recorded(server.url, 'acme-session', 2);
    expect(view.health.level).toBe('unknown');
    expect(view.signals).toMatchObject({ costUsd: null, unpricedCalls: 2, lastPromptTokens: 1_000 });
  });

  it("reads a request's max output from each wire format's own field", () => {
    expect(requestedOutput({ max_tokens: 32_000 })).toBe(32_000);
    expect(requestedOutput({ max_completion_tokens: 4096 })).toBe(4096);
    expect(requestedOutput({ max_output_tokens: 8192 })).toBe(8192);
    expect(requestedOutput({ max_tokens: 0 })).toBeUndefined();
    expect(requestedOutput({ max_tokens: '1000' })).toBeUndefined();
  });
});

describe('barometer proxy with a barometer.config.json in its working directory', () => {
  it("measures with the config's entry: a declared model's price and window win over the family estimate", async () => {
    // Regression (issue 37): `barometer proxy` and `wrap` never loaded the config file.
    const cwd = join(root, 'project');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(
      join(cwd, 'barometer.config.json'),
      JSON.stringify({
        models: { 'claude-opus-5-5': { context_length: 150_000, price: { input: 6, output: 30 } } },
      }),
    );
    const child = spawnCli(
      ['proxy', '--port', '0', '--anthropic-upstream', fake.url, '--data-dir', join(root, 'cli-data')],
      { HOME: join(root, 'home') },
      { cwd },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        const timer = setTimeout(() => reject(new Error(`proxy did not start:\n${output}`)), 90_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/\S+?) /.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code) => reject(new Error(`proxy exited ${code}:\n${output}`)));
      });
      await send(url, 'configured-session', 'claude-opus-5-5');
      const view = await recorded(url, 'configured-session', 1);
      expect(view.profile).toMatchObject({
        // The configured 150,000 less Claude Code's 33,000-token reserve.
        contextWindow: 117_000,
        windowSource: 'config',
        priceSource: 'config',
      });
      // 1,000 × 6 + 40 × 30, per million: the config's price, not an estimate.
      expect(view.signals).toMatchObject({ costUsd: 0.0072, costEstimated: false });
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    }
  }, 120_000);
});

describe.skipIf(!CLAUDE)('the real Claude Code 2.1.328 with no --model, through the proxy', () => {
  it('sends its own default model, and every call it makes is recorded', async () => {
    const dataDir = join(root, 'claude-data');
    const server = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir,
      proxy: { anthropicUpstream: fake.url, mode: 'observe' },
    });
    const before = fake.requests.length;
    try {
      const home = join(root, 'claude-home');
      const work = join(root, 'claude-work');
      mkdirSync(home, { recursive: true });
      mkdirSync(work, { recursive: true });
      const child = spawn(CLAUDE!, ['-p', 'Say done.'], {
        cwd: work,
        env: {
          ...process.env,
          HOME: home,
          XDG_STATE_HOME: join(home, '.state'),
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: 'sk-ant-test-key-never-stored',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code, stderr).toBe(0);
      const calls = fake.requests
        .slice(before)
        .filter((request) => request.path.startsWith('/v1/messages?') || request.path === '/v1/messages');
      const models = new Set(calls.map((request) => String(request.body?.model)));
      // What this Claude Code sends without --model (STACK.md, turn 4): a model the registry does not list.
      expect(models).toContain('claude-opus-5-5');
      // Recording follows each answer: wait until the sessions hold every call, then check the default model's.
      const deadline = Date.now() + 20_000;
      let listed: SessionSummary[] = [];
      while (Date.now() < deadline) {
        listed = (
          (await (await fetch(`${server.url}/api/v1/sessions`)).json()) as { sessions: SessionSummary[] }
        ).sessions;
        if (listed.reduce((sum, session) => sum + session.generations, 0) >= calls.length) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(listed.reduce((sum, session) => sum + session.generations, 0)).toBe(calls.length);
      const main = listed.find((session) => session.model === 'claude-opus-5-5');
      expect(main?.profile).toMatchObject({
        estimatedFrom: 'claude-opus-4-8',
        priceSource: 'family-estimate',
      });
      expect(main?.signals.costEstimated).toBe(true);
    } finally {
      await server.close();
    }
  }, 180_000);
});
