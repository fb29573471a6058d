import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CacheBillingProvider,
  cacheBillingProvider,
} from '../proxy/test-helpers/cache-billing-provider.js';
import { messageStream, unpairedToolIds } from '../proxy/test-helpers/fake-anthropic.js';
import {
  FINAL_ANSWER,
  SESSION_FILES,
  sessionScript,
  toolResultCount,
} from '../proxy/test-helpers/scripted-claude-session.js';
import { type RunningServer, startServer } from '../server/serve.js';
import type { SessionView } from '../session/session-schemas.js';
import { readArchiveFile } from '../store/archive.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { barometerClaudeAgent } from './claude-agent-sdk.js';

type Json = Record<string, unknown>;
type Step = ReturnType<typeof sessionScript>[number];

/**
 * The Claude Agent SDK's `query()` (it spawns the Claude Code binary its platform package ships) on the scripted
 * session of src/proxy's live test — 43 main calls, sub-tasks ended by TaskUpdate to completed and by git commit —
 * through barometer's proxy (`barometerClaudeAgent().options()`), and the same query straight to the provider
 * (Claude Code's own context management), against a fake Anthropic provider on 127.0.0.1 that bills every main call
 * by src/cache's Anthropic model.
 */
function sdkBinary(): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    const manifest = require.resolve(
      `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/package.json`,
    );
    const binary = join(dirname(manifest), process.platform === 'win32' ? 'claude.exe' : 'claude');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
const BINARY = sdkBinary();
const hasGit = (() => {
  try {
    execFileSync('git', ['--version']);
    return true;
  } catch {
    return false;
  }
})();
const missing = !BINARY
  ? 'the Claude Agent SDK’s Claude Code binary for this platform'
  : !hasGit
    ? 'git'
    : undefined;
if (missing && process.env.CI === 'true')
  throw new Error(`the Claude Agent SDK test needs ${missing} under CI`);
if (missing)
  console.warn(`skipping the Claude Agent SDK test: ${missing} is not installed (npm ci installs it)`);

const EVICTED = /^\[barometer evicted/;
const PROMPT =
  'Review the modules in six parts; track the parts as tasks and commit a note after the others.';

interface Run {
  bodies: Json[];
  provider: CacheBillingProvider;
  fake: CassetteServer;
  server: RunningServer | null;
  root: string;
  messages: unknown[];
  agent: ReturnType<typeof barometerClaudeAgent> | null;
}

async function runQuery(withBarometer: boolean): Promise<Run> {
  const root = mkdtempSync(join(tmpdir(), `barometer-agent-sdk-${withBarometer ? 'on' : 'off'}-`));
  const workdir = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(workdir);
  mkdirSync(home);
  for (const file of SESSION_FILES) writeFileSync(join(workdir, file.name), file.text);
  const gitEnv = {
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  execFileSync('git', ['init', '-q'], { cwd: workdir, env: { ...process.env, ...gitEnv } });
  const steps = sessionScript(workdir);
  const provider = cacheBillingProvider(createTokenCounter());
  const bodies: Json[] = [];
  const fake = await startCassetteServer((request) => {
    const body = request.body ?? {};
    if (request.path.startsWith('/v1/messages/count_tokens'))
      return { headers: { 'content-type': 'application/json' }, body: '{"input_tokens":1000}' };
    const tools = Array.isArray(body.tools) ? body.tools : [];
    const usage = { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (tools.length === 0)
      return messageStream('msg_side', String(body.model), { ...usage, output_tokens: 5 }, { text: 'ok' });
    bodies.push(body);
    const billed = provider.bill(body, Date.now(), 60);
    const step = steps[Math.min(toolResultCount(body), steps.length - 1)] as Step;
    return messageStream(`msg_${bodies.length}`, String(body.model), billed, step);
  });
  const server = withBarometer
    ? await startServer({
        port: 0,
        logLevel: 'silent',
        dashboard: false,
        dataDir: join(root, 'data'),
        proxy: { anthropicUpstream: fake.url },
      })
    : null;
  const env = {
    PATH: process.env.PATH,
    ...gitEnv,
    HOME: home,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-key-never-stored',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  const options = {
    cwd: workdir,
    env,
    model: 'claude-sonnet-4-5',
    allowedTools: ['Read', 'Bash', 'ToolSearch', 'TaskCreate', 'TaskUpdate'],
    ...(BINARY ? { pathToClaudeCodeExecutable: BINARY } : {}),
  };
  const agent = server ? barometerClaudeAgent({ proxyUrl: server.url }) : null;
  const stream = query({ prompt: PROMPT, options: agent ? agent.options(options) : options });
  const messages: unknown[] = [];
  for await (const message of agent ? agent.observe(stream) : stream) messages.push(message);
  return { bodies, provider, fake, server, root, messages, agent };
}

const promptOf = (run: Run) =>
  run.provider.total.uncached + run.provider.total.cacheRead + run.provider.total.cacheWrite;

describe.skipIf(missing !== undefined)(
  'barometer/claude-agent-sdk: query() through barometer’s proxy',
  () => {
    let on: Run;
    let off: Run;
    beforeAll(async () => {
      on = await runQuery(true);
      off = await runQuery(false);
      const row = (name: string, run: Run) =>
        `  ${name.padEnd(36)} calls ${String(run.provider.total.calls).padStart(3)}  prompt tokens ${String(promptOf(run)).padStart(8)}  cache writes ${String(run.provider.total.cacheWrite).padStart(7)}  reads ${String(run.provider.total.cacheRead).padStart(8)}  cost $${run.provider.total.usd.toFixed(4)}`;
      console.log(
        [
          'Claude Agent SDK query(): the same scripted session, billed by src/cache’s Anthropic model',
          row('barometerClaudeAgent (proxy)', on),
          row('Claude Code’s own (no barometer)', off),
        ].join('\n'),
      );
    }, 240_000);
    afterAll(async () => {
      for (const run of [on, off]) {
        if (!run) continue;
        await run.server?.close();
        await run.fake.close();
        rmSync(run.root, { recursive: true, force: true });
      }
    });

    it('runs the whole script both ways, and reads the SDK’s result and session id', () => {
      for (const run of [on, off]) {
        const result = run.messages.find((message) => (message as Json).type === 'result') as
          | Json
          | undefined;
        expect(result?.subtype).toBe('success');
        expect(String(result?.result)).toContain(FINAL_ANSWER);
        expect(run.bodies.length).toBeGreaterThanOrEqual(40);
      }
      expect(on.bodies.length).toBe(off.bodies.length);
      const handle = on.agent?.barometer;
      expect(handle?.lastResult).toMatchObject({ subtype: 'success', isError: false });
      expect(handle?.calls).toBe(on.bodies.length);
      expect(handle?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(handle?.lastError).toBeUndefined();
    });

    it('keeps every tool pair, tombstones finished sub-tasks’ reads, and archives the originals byte for byte', async () => {
      for (const body of on.bodies) expect(unpairedToolIds(body)).toEqual([]);
      const tombstoned = new Map<string, string>();
      for (const body of on.bodies)
        for (const message of (body.messages as Json[]) ?? [])
          if (Array.isArray(message.content))
            for (const block of message.content as Json[])
              if (
                block.type === 'tool_result' &&
                typeof block.content === 'string' &&
                EVICTED.test(block.content)
              )
                tombstoned.set(String(block.tool_use_id), block.content);
      expect(tombstoned.size).toBeGreaterThanOrEqual(20);
      for (const body of off.bodies) expect(JSON.stringify(body)).not.toMatch(/\[barometer evicted/);
      // Every original the proxy evicted is in the archive, byte for byte: the result as Claude Code first sent it.
      const sessionId = on.agent?.barometer.sessionId as string;
      const folder = join(on.root, 'data', 'archives', sessionId);
      const records = (
        await Promise.all(readdirSync(folder).map((name) => readArchiveFile(join(folder, name))))
      ).flat();
      const original = (id: string) => {
        for (const body of on.bodies)
          for (const message of (body.messages as Json[]) ?? [])
            for (const block of Array.isArray(message.content) ? (message.content as Json[]) : [])
              if (block.type === 'tool_result' && block.tool_use_id === id) return block.content;
        return undefined;
      };
      for (const id of tombstoned.keys()) {
        const sent = original(id);
        expect(typeof sent === 'string' && !EVICTED.test(sent), id).toBe(true);
        const record = records.find((entry) => entry.itemId === `${id}:result`);
        expect(record?.content, id).toBe(sent);
      }
    });

    it('shows the session in barometer with every call and the provider’s cost; fewer prompt tokens and a lower cost', async () => {
      const sessionId = on.agent?.barometer.sessionId as string;
      const response = await fetch(`${on.server?.url}/api/v1/sessions/${sessionId}`);
      expect(response.status).toBe(200);
      const view = (await response.json()) as SessionView;
      expect(view.generations).toBe(on.bodies.length);
      expect(view.signals.costUsd).toBeCloseTo(on.provider.total.usd, 6);
      expect(promptOf(on)).toBeLessThan(promptOf(off));
      expect(on.provider.total.usd).toBeLessThan(off.provider.total.usd);
    });
  },
);
