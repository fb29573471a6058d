import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCommand } from '../cli/agent-command.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { spawnCli } from '../test-helpers/spawn-cli.js';
import { messageStream } from './test-helpers/fake-anthropic.js';

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
if (!CLAUDE_DIRECTORY && process.env.CI === 'true')
  throw new Error('the wrap test needs the Claude Code binary under CI');
if (!CLAUDE_DIRECTORY)
  console.warn('skipping the wrap test: the Claude Code binary is not installed (npm ci installs it)');

describe('agentCommand', () => {
  it('points Claude Code at the proxy by ANTHROPIC_BASE_URL, its arguments untouched', () => {
    expect(agentCommand('claude', 'http://127.0.0.1:9', ['-p', 'hi'], {})).toEqual({
      command: 'claude',
      args: ['-p', 'hi'],
      env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    });
  });

  it('points Codex at the proxy by a model-provider override, with the key in OPENAI_API_KEY or its own login', () => {
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
});

describe.skipIf(!CLAUDE_DIRECTORY)('barometer wrap claude', () => {
  let fake: CassetteServer;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'barometer-wrap-'));
    fake = await startCassetteServer((request) =>
      messageStream(
        'msg_1',
        String(request.body?.model),
        { input_tokens: 10, output_tokens: 3 },
        { text: 'wrapped hello' },
      ),
    );
  });
  afterAll(async () => {
    await fake.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function wrap(args: string[]) {
    const home = join(root, `home-${args.length}`);
    mkdirSync(home, { recursive: true });
    const child = spawnCli(
      [
        'wrap',
        '--port',
        '0',
        '--anthropic-upstream',
        fake.url,
        '--data-dir',
        join(root, 'data'),
        'claude',
        ...args,
      ],
      {
        HOME: home,
        PATH: `${CLAUDE_DIRECTORY}${delimiter}${process.env.PATH ?? ''}`,
        ANTHROPIC_API_KEY: 'sk-ant-wrap-test',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    );
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, stdout, stderr };
  }

  it('runs Claude Code through its own proxy, passes its arguments and prints where the dashboard is', async () => {
    const before = fake.requests.length;
    const run = await wrap(['-p', 'say hello', '--model', 'claude-sonnet-4-5']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('wrapped hello');
    expect(run.stderr).toMatch(
      /barometer: claude through http:\/\/127\.0\.0\.1:\d+ \(dashboard http:\/\/127\.0\.0\.1:\d+\/\)/,
    );
    expect(fake.requests.length).toBeGreaterThan(before);
    expect(fake.requests.at(-1)?.headers['x-api-key']).toBe('sk-ant-wrap-test');
  }, 60_000);

  it('exits with Claude Code’s own exit code', async () => {
    const run = await wrap(['--no-such-flag-at-all']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/barometer: claude exited [1-9]/);
  }, 60_000);
});
