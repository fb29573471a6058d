import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../server/serve.js';
import type { SessionSummary } from '../session/session-schemas.js';
import { startCassetteServer } from '../test-helpers/cassette-server.js';
import { messageStream } from './test-helpers/fake-anthropic.js';
import { claudeBinary } from './test-helpers/scripted-claude-session.js';

const CLAUDE = claudeBinary();
if (!CLAUDE && process.env.CI === 'true')
  throw new Error('the window policy Claude Code test needs the @anthropic-ai/claude-code binary under CI');
if (!CLAUDE)
  console.warn(
    'skipping the window policy Claude Code test: the @anthropic-ai/claude-code binary for this platform is not installed (npm ci installs it)',
  );

const root = mkdtempSync(join(tmpdir(), 'barometer-window-policy-cc-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Json = Record<string, unknown>;

describe.skipIf(!CLAUDE)('the window policy with the real Claude Code (2.1.328) and a sub-agent', () => {
  it('lowers the sub-agent’s thinking budget on each of its requests, never the main conversation’s', async () => {
    const work = join(root, 'work');
    const home = join(root, 'home');
    mkdirSync(work);
    mkdirSync(home);
    writeFileSync(join(work, 'a.txt'), 'hello');
    const reset = Math.floor(Date.now() / 1000) + 3600;
    let calls = 0;
    // A Claude subscriber's answers: the 5-hour window at 90% an hour before its reset (a window of 300 minutes
    // that began 4 hours ago: 22.5%/h on average, so the 10% left runs out in 27 minutes, before the reset).
    const fake = await startCassetteServer((request) => {
      const body = request.body ?? {};
      const headers = {
        'anthropic-ratelimit-unified-status': 'allowed',
        'anthropic-ratelimit-unified-5h-status': 'allowed',
        'anthropic-ratelimit-unified-5h-utilization': String(Math.min(0.99, 0.9 + 0.01 * calls++)),
        'anthropic-ratelimit-unified-5h-reset': String(reset),
        'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      };
      if (request.path.startsWith('/v1/messages/count_tokens'))
        return { headers: { 'content-type': 'application/json' }, body: '{"input_tokens":1000}' };
      const tools = Array.isArray(body.tools) ? body.tools : [];
      const usage = {
        input_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 5,
      };
      const model = String(body.model);
      const answer = (content: Parameters<typeof messageStream>[3]) => {
        const served = messageStream('msg', model, usage, content);
        return { ...served, headers: { ...served.headers, ...headers } };
      };
      if (tools.length === 0) return answer({ text: 'ok' });
      const messages = JSON.stringify(body.messages);
      if (request.headers['x-claude-code-agent-id'] !== undefined)
        return messages.includes('tool_result')
          ? answer({ text: 'a.txt says hello' })
          : answer({ tool: { id: 'toolu_read', name: 'Read', input: { file_path: join(work, 'a.txt') } } });
      if (!messages.includes('toolu_agent'))
        return answer({
          tool: {
            id: 'toolu_agent',
            name: 'Agent',
            input: { description: 'read a file', prompt: 'Read a.txt', subagent_type: 'general-purpose' },
          },
        });
      return answer({ text: 'final answer' });
    });
    const server = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'data'),
      proxy: { anthropicUpstream: fake.url, maxWaitSeconds: 1, windowPolicy: ['thinking', 'hold'] },
    });
    try {
      const child = spawn(
        CLAUDE as string,
        [
          '-p',
          'Use a sub-agent to read a.txt',
          '--model',
          'claude-sonnet-4-5',
          '--allowedTools',
          'Read Agent',
        ],
        {
          cwd: work,
          env: {
            ...process.env,
            HOME: home,
            ANTHROPIC_BASE_URL: server.url,
            ANTHROPIC_API_KEY: 'sk-ant-test-key-never-stored',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_TELEMETRY: '1',
            DISABLE_AUTOUPDATER: '1',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const code = await new Promise((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      expect(stdout).toContain('final answer');
      const conversations = fake.requests.filter(
        (request) => ((request.body?.tools as unknown[] | undefined) ?? []).length > 0,
      );
      const budgets = conversations.map((request) => [
        request.headers['x-claude-code-agent-id'] === undefined ? 'main' : 'sub-agent',
        (request.body?.thinking as Json | undefined)?.budget_tokens,
      ]);
      // Claude Code asks for 31,999; the sub-agent (run in the background, as Claude Code does by default: its
      // requests and the main conversation's interleave) started while the window bound: 8192 on both its requests.
      const of = (who: string) => budgets.filter(([role]) => role === who).map(([, budget]) => budget);
      expect(of('sub-agent')).toEqual([8192, 8192]);
      expect(of('main').length).toBeGreaterThanOrEqual(2);
      expect(new Set(of('main'))).toEqual(new Set([31999]));
      const session = String(conversations[0]?.headers['x-claude-code-session-id']);
      const view = (await (await fetch(`${server.url}/api/v1/sessions/${session}`)).json()) as SessionSummary;
      expect(view.proxy?.windowPolicy).toMatchObject({ conversationsLowered: 1, requestsLowered: 2 });
      expect(view.proxy?.windowPolicy?.requestsHeld).toBeGreaterThanOrEqual(1);
    } finally {
      await server.close();
      await fake.close();
    }
  }, 120_000);
});
