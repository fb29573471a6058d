import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCommand } from '../cli/agent-command.js';
import { readServiceFile } from '../store/service-file.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { exitOf, spawnCli } from '../test-helpers/spawn-cli.js';
import { messageStream } from './test-helpers/fake-anthropic.js';

type Json = Record<string, unknown>;

function claudeDirectory(): string | undefined {
  try {
    const packageJson = createRequire(import.meta.url).resolve(
      `@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`,
    );
    return existsSync(join(dirname(packageJson), 'claude')) ? dirname(packageJson) : undefined;
  } catch {
    return undefined;
  }
}
const CLAUDE_DIRECTORY = claudeDirectory();
const hasGit = (() => {
  try {
    execFileSync('git', ['--version']);
    return true;
  } catch {
    return false;
  }
})();
const missing = !CLAUDE_DIRECTORY ? 'the Claude Code binary' : !hasGit ? 'git' : undefined;
if (missing && process.env.CI === 'true') throw new Error(`the wrap test needs ${missing} under CI`);
if (missing) console.warn(`skipping the wrap test: ${missing} is not installed (npm ci installs it)`);

describe('agentCommand', () => {
  it('points Claude Code at the service by ANTHROPIC_BASE_URL, its arguments untouched', () => {
    expect(agentCommand('claude', 'http://127.0.0.1:9', ['-p', 'hi'], {})).toEqual({
      command: 'claude',
      args: ['-p', 'hi'],
      env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    });
  });

  it('points Codex at the service by a model-provider override, with the key in OPENAI_API_KEY or its own login', () => {
    const withKey = agentCommand('codex', 'http://127.0.0.1:9', ['exec', 'hi'], { OPENAI_API_KEY: 'k' });
    expect(withKey.args).toEqual([
      '-c',
      'model_provider=barometer',
      '-c',
      'model_providers.barometer={name="barometer",base_url="http://127.0.0.1:9/v1",env_key="OPENAI_API_KEY",wire_api="responses",supports_websockets=false}',
      'exec',
      'hi',
    ]);
    expect(agentCommand('codex', 'http://127.0.0.1:9', [], {}).args[3]).toContain(
      'requires_openai_auth=true',
    );
  });

  it('with observe, points either agent at <url>/observe, whose requests the service forwards untouched', () => {
    expect(agentCommand('claude', 'http://127.0.0.1:9', [], {}, { observe: true }).env).toEqual({
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/observe',
    });
    expect(agentCommand('codex', 'http://127.0.0.1:9', [], {}, { observe: true }).args[3]).toContain(
      'base_url="http://127.0.0.1:9/observe/v1"',
    );
  });
});

/** What the fake provider answers: a commit for a prompt that asks for one, else a short text. */
function answer(body: Json, workdir: string) {
  const messages = (body.messages as Json[]) ?? [];
  const main = Array.isArray(body.tools) && body.tools.length > 0;
  const asked = JSON.stringify(messages[0] ?? '').includes('Commit the work');
  const results = messages.filter(
    (message) =>
      Array.isArray(message.content) &&
      (message.content as Json[]).some((block) => block.type === 'tool_result'),
  ).length;
  const usage = { input_tokens: 40, output_tokens: 5 };
  if (main && asked && results === 0)
    return messageStream('msg_commit', String(body.model), usage, {
      tool: {
        id: 'toolu_commit',
        name: 'Bash',
        input: {
          command: `cd ${workdir} && git add -A && git commit -qm "agent work"`,
          description: 'Commit',
        },
      },
    });
  return messageStream('msg_text', String(body.model), usage, { text: main ? 'wrapped hello' : 'ok' });
}

describe.skipIf(missing !== undefined)('barometer wrap claude, with the real Claude Code', () => {
  let fake: CassetteServer;
  let root: string;
  let workdir: string;
  let state: string;
  const gitEnv = {
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  const claudeEnv = {
    ...gitEnv,
    ANTHROPIC_API_KEY: 'sk-ant-wrap-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'barometer-wrap-'));
    workdir = join(root, 'work');
    state = join(root, 'state');
    mkdirSync(workdir);
    writeFileSync(join(workdir, 'notes.txt'), 'the agent’s work\n');
    execFileSync('git', ['init', '-q'], { cwd: workdir, env: { ...process.env, ...gitEnv } });
    fake = await startCassetteServer((request) => answer(request.body ?? {}, workdir));
  });
  afterAll(async () => {
    // The service wrap started outlives every run: stopped here, by its pid.
    const record = readServiceFile(join(state, 'barometer'));
    if (record) {
      try {
        process.kill(record.pid, 'SIGKILL');
      } catch {
        // Stopped by the last test.
      }
    }
    await fake?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** `barometer wrap <flags> claude <args>` in the work folder, with the default data folder of a scratch HOME. */
  async function wrap(args: string[], flags: string[] = []) {
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    const child = spawnCli(
      ['wrap', '--port', '0', '--anthropic-upstream', fake.url, ...flags, 'claude', ...args],
      {
        ...claudeEnv,
        HOME: home,
        XDG_STATE_HOME: state,
        PATH: `${CLAUDE_DIRECTORY}${delimiter}${process.env.PATH ?? ''}`,
      },
      { cwd: workdir },
    );
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await exitOf(child);
    const url = /barometer: claude through (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
    return { code, stdout, stderr, url };
  }

  /** Claude Code itself, straight at the fake provider, in the same folder. */
  async function direct(args: string[]) {
    const home = join(root, 'home-direct');
    mkdirSync(home, { recursive: true });
    const child = spawn(join(CLAUDE_DIRECTORY as string, 'claude'), args, {
      cwd: workdir,
      env: { ...process.env, ...claudeEnv, HOME: home, ANTHROPIC_BASE_URL: fake.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await new Promise((resolve) => child.on('exit', resolve));
    return stdout;
  }

  let first: Awaited<ReturnType<typeof wrap>>;

  it('starts a service that outlives the agent, says where in one line, and the agent’s commit holds nothing of barometer’s', async () => {
    // No --model: Claude Code 2.1.328 sends its own default, claude-opus-5-5, which the registry does not list.
    first = await wrap(['-p', 'Commit the work.', '--allowedTools', 'Bash']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('wrapped hello');
    const record = readServiceFile(join(state, 'barometer'));
    expect(first.stderr).toBe(
      `barometer: claude through ${record?.url} (dashboard ${record?.url}/); started the barometer service (process ${record?.pid}, log ${join(state, 'barometer', 'logs', 'proxy.log')}), which keeps running after claude exits: stop it with \`barometer stop\`\n`,
    );
    const committed = execFileSync('git', ['show', '--name-only', '--format=', 'HEAD'], { cwd: workdir })
      .toString()
      .trim();
    expect(committed).toBe('notes.txt');
    const everything = readdirSync(workdir, { recursive: true, withFileTypes: true })
      .map((entry) => relative(workdir, join(entry.parentPath, entry.name)))
      .filter((path) => path !== '.git' && !path.startsWith(`.git/`));
    expect(everything).toEqual(['notes.txt']);
    expect(fake.requests.at(-1)?.headers['x-api-key']).toBe('sk-ant-wrap-test');
  }, 120_000);

  it('after the agent exits, the address it printed still answers and lists the session', async () => {
    expect(first.url).toBeDefined();
    const sessionIds = fake.requests
      .map((request) => (request.body?.metadata as Json | undefined)?.user_id)
      .filter((id): id is string => typeof id === 'string')
      .map((id) => String(JSON.parse(id).session_id));
    expect(sessionIds.length).toBeGreaterThan(0);
    const listed = await (await fetch(`${first.url}/api/v1/sessions`)).text();
    expect(listed).toContain(sessionIds[0]);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('records every call of Claude Code’s own default model, its window and price marked as family estimates', async () => {
    const calls = fake.requests.filter(
      (request) =>
        request.path.startsWith('/v1/messages') && !request.path.startsWith('/v1/messages/count_tokens'),
    );
    const models = new Set(calls.map((request) => String(request.body?.model)));
    expect([...models]).toContain('claude-opus-5-5');
    const metadata = (calls[0]?.body?.metadata ?? {}) as Json;
    const id = String(JSON.parse(String(metadata.user_id)).session_id);
    const ofSession = calls.filter((request) =>
      String((request.body?.metadata as Json | undefined)?.user_id ?? '').includes(id),
    );
    const view = (await (await fetch(`${first.url}/api/v1/sessions/${id}`)).json()) as Json & {
      generations: number;
      model: string;
      profile: Json;
      signals: Json;
    };
    expect(view.model).toBe('claude-opus-5-5');
    expect(view.generations).toBe(ofSession.length);
    expect(view.profile).toMatchObject({
      windowSource: 'family-estimate',
      priceSource: 'family-estimate',
      estimatedFrom: expect.stringMatching(/^claude-opus-/),
    });
    expect(view.signals).toMatchObject({ costEstimated: true, unpricedCalls: 0 });
    expect(view.signals.costUsd).toBeGreaterThan(0);
  }, 60_000);

  it('prints on stdout exactly what claude -p --output-format json prints without wrap, and reuses the running service', async () => {
    const args = ['-p', 'say hello', '--output-format', 'json'];
    const record = readServiceFile(join(state, 'barometer'));
    const through = await wrap(args);
    expect(through.code, through.stderr).toBe(0);
    expect(through.stderr).toBe(
      `barometer: claude through ${record?.url} (dashboard ${record?.url}/), the barometer service already running there (process ${record?.pid})\n`,
    );
    // The same service: none was started beside it.
    expect(readServiceFile(join(state, 'barometer'))?.pid).toBe(record?.pid);
    const alone = await direct(args);
    // What Claude Code itself varies from run to run: its session id, the message uuid, and its timings (every
    // `*_ms` figure: duration_ms, duration_api_ms, ttft_ms, ttft_stream_ms, time_to_request_ms, …).
    const normalised = (text: string) =>
      text
        .replace(/"session_id":"[^"]+"/g, '"session_id":"…"')
        .replace(/"uuid":"[^"]+"/g, '"uuid":"…"')
        .replace(/"([a-z_]+_ms)":\d+/g, '"$1":0');
    expect(JSON.parse(through.stdout)).toMatchObject({ type: 'result', result: 'wrapped hello' });
    expect(normalised(through.stdout)).toBe(normalised(alone));
  }, 120_000);

  it('exits with Claude Code’s own exit code, and writes nothing else of its own', async () => {
    const run = await wrap(['--no-such-flag-at-all']);
    expect(run.code).not.toBe(0);
    expect(run.stderr.split('\n')[0]).toMatch(/^barometer: claude through http:\/\/127\.0\.0\.1:\d+ /);
    expect(run.stderr).not.toMatch(/\nbarometer: /);
  }, 60_000);

  it('barometer stop stops the service of the data folder, and removes its service file', async () => {
    const record = readServiceFile(join(state, 'barometer'));
    const child = spawnCli(['stop'], { HOME: join(root, 'home'), XDG_STATE_HOME: state });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await exitOf(child)).toBe(0);
    expect(stdout).toBe(`stopped the barometer service at ${record?.url} (process ${record?.pid})\n`);
    expect(readServiceFile(join(state, 'barometer'))).toBeUndefined();
    await sleep(100);
    await expect(fetch(`${record?.url}/healthz`)).rejects.toThrow();
  }, 60_000);
});
