import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import type { MonitorEvent } from '../session/session-monitor.js';
import { readArchiveFile } from '../store/archive.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import {
  type Bill,
  emptyBill,
  messageStream,
  priceCall,
  promptText,
  unpairedToolIds,
} from './test-helpers/fake-anthropic.js';

type Json = Record<string, unknown>;

/** The native Claude Code binary of the devDependency (npm may skip its postinstall: the platform package's). */
function claudeBinary(): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    const packageJson = require.resolve(
      `@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`,
    );
    const binary = join(dirname(packageJson), process.platform === 'win32' ? 'claude.exe' : 'claude');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

const CLAUDE = claudeBinary();
const hasGit = (() => {
  try {
    execFileSync('git', ['--version']);
    return true;
  } catch {
    return false;
  }
})();
const missing = !CLAUDE
  ? 'the @anthropic-ai/claude-code binary for this platform'
  : !hasGit
    ? 'git'
    : undefined;
if (missing && process.env.CI === 'true')
  throw new Error(`the Claude Code proxy test needs ${missing} under CI`);
if (missing)
  console.warn(`skipping the Claude Code proxy test: ${missing} is not installed (npm ci installs it)`);

/** Five files of about 24 KB, each line different, so that a Read result is thousands of tokens. */
const FILES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((name) => ({
  name: `${name}.txt`,
  text: Array.from(
    { length: 400 },
    (_, line) =>
      `${name} line ${line}: the ${name} module computes value ${(line * 7919) % 1000} for row ${line}.`,
  ).join('\n'),
}));

/** The fake model's script: read three files, commit (a sub-task boundary), read two more, answer. */
function step(
  index: number,
  directory: string,
): { tool: { id: string; name: string; input: Json } } | { text: string } {
  const read = (name: string) => ({
    tool: { id: `toolu_${index}_read`, name: 'Read', input: { file_path: join(directory, name) } },
  });
  if (index < 3) return read(FILES[index]!.name);
  if (index === 3)
    return {
      tool: {
        id: `toolu_${index}_commit`,
        name: 'Bash',
        input: {
          command: 'git add -A && git commit -qm "first part read"',
          description: 'Commit the first part',
        },
      },
    };
  if (index < 6) return read(FILES[index - 1]!.name);
  return { text: 'All done: five files read.' };
}

interface Run {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The main conversation's requests as the provider received them. */
  requests: Array<{ body: Json; path: string; status: number }>;
  bill: Bill;
  server: RunningServer;
  fake: CassetteServer;
  events: MonitorEvent[];
  workdir: string;
}

async function runClaude(mode: 'act' | 'observe'): Promise<Run> {
  const root = mkdtempSync(join(tmpdir(), `barometer-proxy-cc-${mode}-`));
  const workdir = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(workdir);
  mkdirSync(home);
  for (const file of FILES) writeFileSync(join(workdir, file.name), file.text);
  const gitEnv = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  execFileSync('git', ['init', '-q'], { cwd: workdir, env: gitEnv });

  const requests: Run['requests'] = [];
  const prompts: string[] = [];
  const bill = emptyBill();
  let rateLimited = false;
  const fake = await startCassetteServer((request) => {
    const body = request.body ?? {};
    const main = Array.isArray(body.tools) && body.tools.length > 0;
    if (!main) {
      return messageStream('msg_side', String(body.model), priceCall(promptText(body), [], emptyBill(), 1), {
        text: 'ok',
      });
    }
    const results = ((body.messages as Json[]) ?? []).flatMap((message) =>
      Array.isArray(message.content)
        ? (message.content as Json[]).filter((block) => block.type === 'tool_result')
        : [],
    ).length;
    // Once, at the fifth read: the provider's quota answer, which Claude Code must see and retry after.
    if (results === 5 && !rateLimited) {
      rateLimited = true;
      requests.push({ body, path: request.path, status: 429 });
      return {
        status: 429,
        headers: {
          'content-type': 'application/json',
          'retry-after': '1',
          'anthropic-ratelimit-input-tokens-limit': '30000',
          'anthropic-ratelimit-input-tokens-remaining': '0',
          'anthropic-ratelimit-input-tokens-reset': new Date(Date.now() + 1000).toISOString(),
        },
        body: JSON.stringify({
          type: 'error',
          error: {
            type: 'rate_limit_error',
            message: 'Number of request tokens has exceeded your per-minute rate limit',
          },
        }),
      };
    }
    requests.push({ body, path: request.path, status: 200 });
    const prompt = promptText(body);
    const usage = priceCall(prompt, prompts, bill, 40);
    prompts.push(prompt);
    return messageStream(`msg_${requests.length}`, String(body.model), usage, step(results, workdir));
  });
  // Both runs go through a proxy that acts; the observed one through its `/observe` routes, as `wrap --observe` on
  // a shared proxy does.
  const server = await startServer({
    port: 0,
    logLevel: 'silent',
    dashboard: false,
    dataDir: join(root, 'data'),
    proxy: { anthropicUpstream: fake.url },
  });
  const events: MonitorEvent[] = [];
  server.app.barometerMonitor.subscribe((event) => events.push(event));
  const child = spawn(
    CLAUDE as string,
    [
      '-p',
      'Read the files and commit as you go.',
      '--model',
      'claude-sonnet-4-5',
      '--allowedTools',
      'Read Bash',
    ],
    {
      cwd: workdir,
      env: {
        ...gitEnv,
        HOME: home,
        ANTHROPIC_BASE_URL: mode === 'observe' ? `${server.url}/observe` : server.url,
        ANTHROPIC_API_KEY: 'sk-ant-test-key-never-stored',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { exitCode, stdout, stderr, requests, bill, server, fake, events, workdir: root };
}

/** Messages as the provider reads them: cache_control marks move with the last message and are left out. */
function messagesText(body: Json): string[] {
  return ((body.messages as Json[]) ?? []).map((message) =>
    JSON.stringify(message, (key, value) => (key === 'cache_control' ? undefined : value)),
  );
}

const TOMBSTONE =
  /^\[barometer evicted the result of Read (\S+) \((\d+) tokens\) when subtask-1 ended \(command\)\. Original: record "(\S+)" in (\S+\.log)\]$/;

describe.skipIf(missing !== undefined)('the real Claude Code through barometer proxy', () => {
  let act: Run;
  let observe: Run;
  beforeAll(async () => {
    act = await runClaude('act');
    observe = await runClaude('observe');
  }, 180_000);
  afterAll(async () => {
    for (const run of [act, observe]) {
      if (!run) continue;
      await run.server.close();
      await run.fake.close();
      rmSync(run.workdir, { recursive: true, force: true });
    }
  });

  it('completes the session, and the 429 with retry-after reaches Claude Code, which retries', () => {
    expect(act.stderr).toBe('');
    expect(act.exitCode).toBe(0);
    expect(act.stdout).toContain('All done: five files read.');
    const limited = act.requests.findIndex((request) => request.status === 429);
    expect(limited).toBeGreaterThan(0);
    // Claude Code retried the same prompt after the 429: the next request carries the same five results.
    expect(messagesText(act.requests[limited + 1]!.body)).toEqual(messagesText(act.requests[limited]!.body));
    // ... and the session recorded it as a quota observation (no generation): its input tokens per minute were
    // spent, and the provider said when they come back, so the verdict turned to waiting.
    const changes = act.events.flatMap((event) => (event.type === 'changed' ? event.events : []));
    expect(changes).toContainEqual(expect.objectContaining({ type: 'verdict_changed', to: 'wait' }));
    expect(changes.some((item) => item.type === 'usage_unavailable')).toBe(false);
  });

  it('sends tombstones after the commit, with every tool pair intact and an unchanged prefix between requests', () => {
    const bodies = act.requests.map((request) => request.body);
    for (const body of bodies) expect(unpairedToolIds(body)).toEqual([]);
    const tombstoned = bodies.map(
      (body) => messagesText(body).filter((text) => text.includes('[barometer evicted')).length,
    );
    // Requests up to the one carrying the commit's result are as Claude Code sent them; the ones after carry the
    // three reads of the finished sub-task as tombstones.
    const commitResult = bodies.findIndex(
      (body) =>
        JSON.stringify(body).includes('toolu_3_commit') &&
        unpairedToolIds(body).length === 0 &&
        messagesText(body).length >= 8,
    );
    expect(commitResult).toBeGreaterThan(0);
    expect(tombstoned.slice(0, commitResult + 1).every((count) => count === 0)).toBe(true);
    expect(tombstoned.slice(commitResult + 1).every((count) => count > 0)).toBe(true);
    for (let index = 1; index < bodies.length; index++) {
      const before = messagesText(bodies[index - 1]!);
      const after = messagesText(bodies[index]!);
      // Everything the previous request held is still there, unchanged, except where the one eviction began.
      const changed = before.findIndex((text, position) => text !== after[position]);
      if (index === commitResult + 1) expect(changed).toBeGreaterThan(0);
      else expect(changed === -1 || changed === before.length - 1, `request ${index}`).toBe(true);
    }
  });

  it('keeps the originals byte for byte in the archive the tombstones name', async () => {
    const bodies = act.requests.map((request) => request.body);
    const last = bodies.at(-1)!;
    const original = new Map<string, string>();
    for (const message of (bodies[0]!.messages as Json[]).concat(
      ...bodies.map((body) => body.messages as Json[]),
    )) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as Json[])
        if (
          block.type === 'tool_result' &&
          typeof block.content === 'string' &&
          !block.content.startsWith('[barometer')
        )
          original.set(`${block.tool_use_id}:result`, block.content);
    }
    const tombstones = (last.messages as Json[]).flatMap((message) =>
      Array.isArray(message.content)
        ? (message.content as Json[]).filter(
            (block) => block.type === 'tool_result' && String(block.content).startsWith('[barometer'),
          )
        : [],
    );
    expect(tombstones).toHaveLength(3);
    for (const block of tombstones) {
      const match = TOMBSTONE.exec(String(block.content));
      expect(match, String(block.content)).not.toBeNull();
      const [, file, , itemId, path] = match!;
      expect(FILES.slice(0, 3).map((entry) => entry.name)).toContain(file!.split('/').at(-1));
      const records = await readArchiveFile(path!);
      const record = records.find((entry) => entry.itemId === itemId);
      expect(record?.content).toBe(original.get(itemId!));
      expect(record?.content).toContain(
        FILES.find((entry) => file!.endsWith(entry.name))!.text.split('\n')[399],
      );
    }
  });

  it('records one generation per provider call, with the provider’s usage', async () => {
    const sessionId = String(JSON.parse(String((act.requests[0]!.body.metadata as Json).user_id)).session_id);
    const view = await act.server.app.barometerMonitor.view(sessionId);
    const calls = act.fake.requests.filter((request) => request.path.startsWith('/v1/messages?'));
    // The 429 the provider answered once is no generation.
    expect(view.generations).toBe(calls.length - 1);
    const lastMain = act.requests.at(-1)!.body;
    expect(view.signals.lastPromptTokens).toBe(Math.ceil(promptText(lastMain).length / 4) + 3);
  });

  it('observes the session sent through the acting proxy’s /observe: untouched, on the provider’s own paths, recorded', async () => {
    expect(observe.stderr).toBe('');
    const bodies = observe.requests.map((request) => request.body);
    expect(bodies.length).toBeGreaterThan(5);
    for (const body of bodies) expect(JSON.stringify(body)).not.toContain('[barometer evicted');
    for (const request of observe.fake.requests) expect(request.path).toMatch(/^\/v1\/messages(\?|\/|$)/);
    const sessionId = String(JSON.parse(String((bodies[0]!.metadata as Json).user_id)).session_id);
    const view = await observe.server.app.barometerMonitor.view(sessionId);
    expect(view.proxy).toEqual({ mode: 'observe', acting: false, pause: null });
    const calls = observe.fake.requests.filter((request) => request.path.startsWith('/v1/messages?'));
    expect(view.generations).toBe(calls.length - 1);
  });

  it('costs less than the same session observed only (prompt caching priced at the breakpoints)', () => {
    expect(observe.exitCode).toBe(0);
    expect(observe.requests.length).toBe(act.requests.length);
    const promptOf = (bill: Bill) => bill.uncached + bill.cacheRead + bill.cacheWrite;
    console.log(
      `proxy act vs observe over ${act.bill.calls} calls: prompt tokens ${promptOf(act.bill)} vs ${promptOf(observe.bill)} (${(100 - (100 * promptOf(act.bill)) / promptOf(observe.bill)).toFixed(1)}% fewer); cost $${act.bill.usd.toFixed(4)} vs $${observe.bill.usd.toFixed(4)}`,
    );
    expect(promptOf(act.bill)).toBeLessThan(promptOf(observe.bill));
  });
});
