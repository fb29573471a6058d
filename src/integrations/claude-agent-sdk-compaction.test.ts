import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { query, type SDKCompactBoundaryMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageStream, promptText } from '../proxy/test-helpers/fake-anthropic.js';
import { type RunningServer, startServer } from '../server/serve.js';
import type { SessionView } from '../session/session-schemas.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { barometerClaudeAgent } from './claude-agent-sdk.js';

type Json = Record<string, unknown>;

/**
 * Claude Code's own compactions, made by the Claude Code the SDK ships, seen by `observe()` and recorded in the
 * proxy's session: an auto-compaction (Claude Code compacts at a share of `CLAUDE_CODE_AUTO_COMPACT_WINDOW`, lowered
 * by `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`: https://code.claude.com/docs/en/settings, environment variables) in a read
 * loop, then a manual `/compact` sent to the same session (`resume`: the SDK's slash-command guide,
 * https://code.claude.com/docs/en/agent-sdk/slash-commands). The fake provider bills each prompt at 4 characters a
 * token and answers Claude Code's summary request (its "Respond with TEXT ONLY" instruction, measured with 2.1.335)
 * with a summary.
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
if (!BINARY && process.env.CI === 'true')
  throw new Error('the Claude Agent SDK compaction test needs the SDK’s Claude Code binary under CI');
if (!BINARY)
  console.warn(
    'skipping the Claude Agent SDK compaction test: its Claude Code binary is not installed (npm ci installs it)',
  );

const SUMMARY = '<summary>Read notes-1 to notes-4; nothing else to do.</summary>';
const READS = 4;
/** 60,000 characters: 15,000 tokens at the fake's 4 characters a token. */
const FILE_TEXT = Array.from(
  { length: 1500 },
  (_, line) => `line ${String(line).padStart(4, '0')} of the notes ...`,
)
  .join('\n')
  .padEnd(60_000, '.');

interface Run {
  root: string;
  fake: CassetteServer;
  server: RunningServer;
  agent: ReturnType<typeof barometerClaudeAgent>;
  messages: unknown[];
  summaryRequests: number;
}

async function runQueries(): Promise<Run> {
  const root = mkdtempSync(join(tmpdir(), 'barometer-agent-sdk-compaction-'));
  const work = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(work);
  mkdirSync(home);
  for (let file = 1; file <= READS; file++) writeFileSync(join(work, `notes-${file}.txt`), FILE_TEXT);
  let summaryRequests = 0;
  let answers = 0;
  let reads = 0;
  const fake = await startCassetteServer((request) => {
    const body = request.body ?? {};
    if (request.path.startsWith('/v1/messages/count_tokens'))
      return { headers: { 'content-type': 'application/json' }, body: '{"input_tokens":1000}' };
    const usage = {
      input_tokens: Math.ceil(promptText(body).length / 4),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 40,
    };
    const id = `msg_${++answers}`;
    const messages = (body.messages as Json[]) ?? [];
    if (/Respond with TEXT ONLY/.test(JSON.stringify(messages.at(-1)?.content))) {
      summaryRequests++;
      return messageStream(id, String(body.model), usage, { text: SUMMARY });
    }
    // Reads the files one by one (whatever a compaction left of the context), then answers.
    if (reads < READS)
      return messageStream(id, String(body.model), usage, {
        tool: {
          id: `toolu_${answers}`,
          name: 'Read',
          input: { file_path: join(work, `notes-${++reads}.txt`) },
        },
      });
    return messageStream(id, String(body.model), usage, { text: 'All four notes read.' });
  });
  const server = await startServer({
    port: 0,
    logLevel: 'silent',
    dashboard: false,
    dataDir: join(root, 'data'),
    proxy: { anthropicUpstream: fake.url },
  });
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-key-never-stored',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    // Compact at 50% of a 100,000-token window: after the second read.
    CLAUDE_CODE_AUTO_COMPACT_WINDOW: '100000',
    CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50',
  };
  const agent = barometerClaudeAgent({ proxyUrl: server.url });
  const options = agent.options({
    cwd: work,
    env,
    model: 'claude-sonnet-4-5',
    allowedTools: ['Read'],
    ...(BINARY ? { pathToClaudeCodeExecutable: BINARY } : {}),
  });
  const messages: unknown[] = [];
  for await (const message of agent.observe(query({ prompt: 'Read the four notes files.', options })))
    messages.push(message);
  const sessionId = agent.barometer.sessionId as string;
  for await (const message of agent.observe(
    query({ prompt: '/compact', options: { ...options, resume: sessionId } }),
  ))
    messages.push(message);
  return { root, fake, server, agent, messages, summaryRequests };
}

describe.skipIf(!BINARY)('barometer/claude-agent-sdk: Claude Code’s own compactions', () => {
  let run: Run;
  beforeAll(async () => {
    run = await runQueries();
  }, 120_000);
  afterAll(async () => {
    if (!run) return;
    await run.server.close();
    await run.fake.close();
    rmSync(run.root, { recursive: true, force: true });
  });

  it('records every compact boundary in the proxy’s session: its trigger, and Claude Code’s before and after', async () => {
    const boundaries = run.messages.filter(
      (message): message is SDKCompactBoundaryMessage =>
        (message as Json).type === 'system' && (message as Json).subtype === 'compact_boundary',
    );
    const triggers = boundaries.map((message) => message.compact_metadata.trigger);
    console.log(
      `Claude Code's compactions: ${boundaries.map((message) => `${message.compact_metadata.trigger} ${message.compact_metadata.pre_tokens} → ${message.compact_metadata.post_tokens ?? '?'}`).join(', ')}`,
    );
    expect(triggers).toContain('auto');
    expect(triggers.at(-1)).toBe('manual');
    expect(run.summaryRequests).toBe(boundaries.length);
    const handle = run.agent.barometer;
    expect(handle.lastError).toBeUndefined();
    expect(handle.compactions).toEqual(
      boundaries.map((message) => ({
        trigger: message.compact_metadata.trigger,
        preTokens: message.compact_metadata.pre_tokens,
        postTokens: message.compact_metadata.post_tokens ?? null,
        durationMs: message.compact_metadata.duration_ms ?? null,
        // The PostCompact hook's compact_summary: what the provider answered to the summary request.
        summary: expect.stringContaining('Read notes-1 to notes-4'),
        recorded: true,
      })),
    );
    const response = await fetch(`${run.server.url}/api/v1/sessions/${handle.sessionId}`);
    const view = (await response.json()) as SessionView;
    const recorded = view.markers
      // barometer's own evictions (the proxy's, of the finished reads) are compactions of the timeline too.
      .filter((marker) => marker.type === 'compaction' && marker.evicted === undefined)
      .map((marker) => marker.detail);
    expect(recorded).toEqual(
      boundaries.map(({ compact_metadata: { trigger, pre_tokens, post_tokens } }) =>
        post_tokens === undefined
          ? `${trigger} compaction from ${pre_tokens} tokens`
          : `${trigger} compaction from ${pre_tokens} to ${Math.min(post_tokens, pre_tokens)} tokens`,
      ),
    );
  });
});
