import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBarometerMcpServer } from '../mcp/create-mcp-server.js';
import { buildApp } from '../server/app.js';
import { replayLogText } from '../session/replay.js';
import type { SessionView } from '../session/session-schemas.js';
import { ArchiveStore } from '../store/archive.js';
import { handleHookEvent, hookAction, hookAgent, liveSessionId, parseHookInput } from './agent-hook.js';
import { BarometerClient, ServiceUnreachableError } from './barometer-client.js';
import { withFileLock } from './file-lock.js';
import { ServiceSessions } from './live-sessions.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLAUDE = `${ROOT}test/fixtures/traces/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl`;
const CLAUDE_HEALTHY = `${ROOT}test/fixtures/traces/claude-code/small-sonnet-session.jsonl`;

/** A payload of examples/hooks (as the agents' docs show them), its transcript path made absolute. */
function example(name: string, changes: Record<string, unknown> = {}): string {
  const payload = JSON.parse(readFileSync(`${ROOT}examples/hooks/${name}.json`, 'utf8'));
  if (typeof payload.transcript_path === 'string')
    payload.transcript_path = `${ROOT}${payload.transcript_path}`;
  return JSON.stringify({ ...payload, ...changes });
}

let app: FastifyInstance;
let url: string;
let dataDir: string;
let scratch: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'barometer-hook-data-'));
  scratch = mkdtempSync(join(tmpdir(), 'barometer-hook-'));
  app = await buildApp({ logLevel: 'silent', dataDir, rateLimitPerMinute: 0, ingestRateLimitPerMinute: 0 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const sessions = () => new ServiceSessions(new BarometerClient({ url }));
async function view(id: string): Promise<SessionView> {
  return (await (await fetch(`${url}/api/v1/sessions/${id}`)).json()) as SessionView;
}
const exclusive = <T>(id: string, work: () => Promise<T>) => withFileLock(join(scratch, `${id}.lock`), work);

describe('parsing and routing the agents’ hook events', () => {
  it('tells the agents apart by their payloads and maps their events', () => {
    const claude = parseHookInput(example('claude-code-post-tool-use'));
    const codex = parseHookInput(example('codex-user-prompt-submit'));
    const gemini = parseHookInput(example('gemini-cli-before-agent'));
    expect([hookAgent(claude), hookAction(claude)]).toEqual(['claude-code', 'report']);
    expect([hookAgent(codex), hookAction(codex)]).toEqual(['codex', 'remind']);
    expect([hookAgent(gemini), hookAction(gemini)]).toEqual(['gemini-cli', 'remind']);
    expect(hookAction(parseHookInput(example('gemini-cli-pre-compress')))).toBe('compaction');
    expect(hookAction(parseHookInput(example('claude-code-pre-compact')))).toBe('compaction');
    expect(hookAction({ ...claude, hook_event_name: 'Notification' })).toBe('ignore');
  });

  it('names the field of a malformed payload', () => {
    expect(() => parseHookInput('{"hook_event_name":"Stop"}')).toThrow(/session_id/);
    expect(() => parseHookInput('{')).toThrow(/not JSON/);
  });

  it('keeps a UUID session id and makes any other usable as a barometer id', () => {
    expect(liveSessionId('4d5611e5-241a-462a-8d15-5122611a9569')).toBe(
      '4d5611e5-241a-462a-8d15-5122611a9569',
    );
    expect(liveSessionId('a b/../c')).toBe('a-b-.-c');
  });
});

describe('Claude Code hooks against a running service (a real app on 127.0.0.1)', () => {
  const id = '4d5611e5-241a-462a-8d15-5122611a9569';

  it('PostToolUse creates the session on the transcript’s model and reports its last call once', async () => {
    const first = await handleHookEvent(parseHookInput(example('claude-code-post-tool-use')), {
      sessions: sessions(),
    });
    expect(first).toMatchObject({
      action: 'report',
      agent: 'claude-code',
      sessionId: id,
      reported: true,
      output: undefined,
    });
    const again = await handleHookEvent(parseHookInput(example('claude-code-post-tool-use')), {
      sessions: sessions(),
    });
    expect(again.reported).toBe(false);
    const session = await view(id);
    const replay = replayLogText(readFileSync(CLAUDE, 'utf8'));
    expect(session).toMatchObject({ model: 'claude-opus-4-6', agent: 'claude-code', generations: 1 });
    expect(session.profile.contextWindow).toBe(167_000);
    // The payload's cwd: an MCP server the agent starts in that folder finds this session without its id.
    expect(session.workingDirectory).toBe(JSON.parse(example('claude-code-post-tool-use')).cwd);
    expect(session.signals.lastPromptTokens).toBe(replay.calls.at(-1)!.promptTokens);
    expect(session.updatedAt).toBe(new Date(replay.calls.at(-1)!.timestamp).toISOString());
  });

  it('UserPromptSubmit answers the context-health reminder as additionalContext while one is active', async () => {
    const result = await handleHookEvent(parseHookInput(example('claude-code-user-prompt-submit')), {
      sessions: sessions(),
    });
    const session = await view(id);
    expect(session.health.level).toBe('caution');
    expect(result.output).toEqual({
      hookSpecificOutput: {
        hookEventName: 'UserPromptSubmit',
        additionalContext: session.health.reminder!.text,
      },
    });
    expect(session.health.reminder!.text).toMatch(/^Context health: caution/);
  });

  it('PreCompact records the compaction in the live session (size before: the last prompt; after: not known yet)', async () => {
    const now = Date.parse('2026-02-12T21:05:00Z');
    const result = await handleHookEvent(parseHookInput(example('claude-code-pre-compact')), {
      sessions: sessions(),
      now: () => now,
    });
    expect(result.compactionRecorded).toBe(true);
    const marker = (await view(id)).markers.find((found) => found.type === 'compaction');
    expect(marker).toMatchObject({ timestamp: new Date(now).toISOString() });
    expect(marker!.detail).toMatch(/^auto compaction from 106060 tokens/);
  });

  it('after PreCompact the advice is reset: unknown health, no compress, no reminder quoting the old prompt (regression)', async () => {
    const session = await view(id);
    expect(session.verdict?.action).toBe('continue');
    expect(session.health).toMatchObject({ level: 'unknown', reminder: null, promptTokens: null });
    expect(session.verdict?.reasons.find((reason) => reason.model === 'health')?.reason).toMatch(
      /^context size unknown since the compaction/,
    );
    // The next prompt's hook (the transcript has no new call yet) tells the model nothing stale.
    const result = await handleHookEvent(parseHookInput(example('claude-code-user-prompt-submit')), {
      sessions: sessions(),
    });
    expect(result).toMatchObject({ reported: false, output: undefined });
  });

  it('prints nothing on a prompt while the context is healthy', async () => {
    const payload = example('claude-code-user-prompt-submit', {
      session_id: 'healthy-session',
      transcript_path: CLAUDE_HEALTHY,
    });
    const result = await handleHookEvent(parseHookInput(payload), { sessions: sessions() });
    expect(result).toMatchObject({ reported: true, output: undefined });
    expect((await view('healthy-session')).health.level).toBe('healthy');
  });

  it('counts a call once when parallel tool calls fire their hooks at the same moment', async () => {
    const payload = example('claude-code-post-tool-use', { session_id: 'parallel-tools' });
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        handleHookEvent(parseHookInput(payload), { sessions: sessions(), exclusive }),
      ),
    );
    expect(results.filter((result) => result.reported)).toHaveLength(1);
    expect((await view('parallel-tools')).generations).toBe(1);
  });

  it('does nothing for a session without a call yet (no model known): nothing to create, nothing to print', async () => {
    const empty = join(scratch, 'empty.jsonl');
    writeFileSync(empty, '');
    const result = await handleHookEvent(
      parseHookInput(
        example('claude-code-user-prompt-submit', { session_id: 'fresh', transcript_path: empty }),
      ),
      { sessions: sessions() },
    );
    expect(result).toMatchObject({ reported: false, output: undefined });
    expect((await fetch(`${url}/api/v1/sessions/fresh`)).status).toBe(404);
  });
});

describe('Codex and Gemini CLI hooks (their documented payloads)', () => {
  it('Codex: the rollout’s last call with its stated window; the reminder on UserPromptSubmit; PreCompact', async () => {
    const prompt = await handleHookEvent(parseHookInput(example('codex-user-prompt-submit')), {
      sessions: sessions(),
    });
    const session = await view('019c8a59-e9dd-71f0-9ae3-4079fe9726a9');
    expect(session).toMatchObject({ model: 'gpt-5.3-codex', agent: 'codex', generations: 1 });
    expect(session.profile.contextWindow).toBe(258_400);
    expect(prompt.output).toEqual({
      hookSpecificOutput: {
        hookEventName: 'UserPromptSubmit',
        additionalContext: session.health.reminder!.text,
      },
    });
    const compact = await handleHookEvent(parseHookInput(example('codex-pre-compact')), {
      sessions: sessions(),
    });
    expect(compact.compactionRecorded).toBe(true);
  });

  it('Gemini CLI: BeforeAgent answers with its own event name once the context is over the optimal size', async () => {
    // The recorded session is small: the same recording with its last call's prompt grown past 100,000 tokens.
    const lines = readFileSync(`${ROOT}test/fixtures/traces/gemini/small-gemini-session.jsonl`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replaceAll('"input":', '"input":150000,"_was":'));
    const transcript = join(scratch, 'gemini.jsonl');
    writeFileSync(transcript, `${lines.join('\n')}\n`);
    const payload = example('gemini-cli-before-agent', {
      transcript_path: transcript,
      session_id: 'gemini-big',
    });
    const result = await handleHookEvent(parseHookInput(payload), { sessions: sessions() });
    const session = await view('gemini-big');
    expect(session).toMatchObject({ agent: 'gemini-cli', generations: 1 });
    expect(session.health.level).toBe('caution');
    expect(result.output).toEqual({
      hookSpecificOutput: { hookEventName: 'BeforeAgent', additionalContext: session.health.reminder!.text },
    });
    const compress = await handleHookEvent(
      parseHookInput(
        example('gemini-cli-pre-compress', { session_id: 'gemini-big', transcript_path: transcript }),
      ),
      { sessions: sessions() },
    );
    expect(compress.compactionRecorded).toBe(true);
    expect((await view('gemini-big')).markers.find((marker) => marker.type === 'compaction')?.timestamp).toBe(
      '2026-04-23T13:11:00.000Z',
    );
  });
});

describe('when the service is not running', () => {
  it('fails fast with ServiceUnreachableError (the CLI turns it into exit 0 and no output)', async () => {
    const closed = await buildApp({ logLevel: 'silent', dataDir });
    await closed.listen({ host: '127.0.0.1', port: 0 });
    const address = closed.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await closed.close();
    const started = Date.now();
    await expect(
      handleHookEvent(parseHookInput(example('claude-code-user-prompt-submit')), {
        sessions: new ServiceSessions(new BarometerClient({ url: `http://127.0.0.1:${port}` })),
      }),
    ).rejects.toBeInstanceOf(ServiceUnreachableError);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('a model finds its own session by its agent’s process (real processes)', () => {
  it('context_status without an id answers for the session the hooks of the MCP client’s own agent created, before a newer one of the same folder', async () => {
    const folder = '/home/user/shared-project';
    // The agent: a real process that runs `barometer hook` as its child, as Claude Code runs its hooks.
    const agentScript = `
      const { spawnSync } = require('node:child_process');
      const run = spawnSync(process.execPath, ['--import', process.env.HOOK_TSX, process.env.HOOK_CLI, 'hook', '--server', process.env.HOOK_URL], { input: process.env.HOOK_PAYLOAD, encoding: 'utf8' });
      process.exit(run.status ?? 1);`;
    const agent = spawn(process.execPath, ['-e', agentScript], {
      env: {
        ...process.env,
        HOOK_TSX: createRequire(import.meta.url).resolve('tsx'),
        HOOK_CLI: `${ROOT}src/cli/main.ts`,
        HOOK_URL: url,
        TSX_TSCONFIG_PATH: `${ROOT}tsconfig.json`,
        HOOK_PAYLOAD: example('claude-code-post-tool-use', {
          session_id: 'agent-a-session',
          transcript_path: CLAUDE_HEALTHY,
          cwd: folder,
        }),
      },
      stdio: 'ignore',
    });
    const agentPid = agent.pid!;
    expect(await new Promise((resolve) => agent.once('exit', resolve))).toBe(0);
    // Another agent of the same folder, updated more recently (its transcript's last call is later).
    await handleHookEvent(
      parseHookInput(example('claude-code-post-tool-use', { session_id: 'agent-b-session', cwd: folder })),
      { sessions: sessions(), agentProcessId: process.pid },
    );
    expect((await view('agent-a-session')).agentProcessId).toBe(agentPid);
    expect((await view('agent-b-session')).agentProcessId).toBe(process.pid);

    const ask = async (clientProcessId: number) => {
      const server = createBarometerMcpServer({
        monitor: app.barometerMonitor,
        archive: new ArchiveStore({ root: join(scratch, 'archives') }),
        clientWorkingDirectory: folder,
        clientProcessId,
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'claude-code', version: '2.1.328' });
      await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
      try {
        const answer = await client.callTool({ name: 'context_status', arguments: {} });
        return answer.structuredContent as { session: { id: string }; chosen: string };
      } finally {
        await client.close();
      }
    };
    const mine = await ask(agentPid);
    expect(mine.session.id).toBe('agent-a-session');
    expect(mine.chosen).toBe(
      `session agent-a-session: the most recently updated of 1 session whose agent is process ${agentPid}, the process that started this server (its hooks said so)`,
    );
    // A client whose agent's hooks recorded nothing: the folder's most recent session, and it says why.
    const stranger = await ask(agentPid + 1_000_000);
    expect(stranger.session.id).toBe('agent-b-session');
    expect(stranger.chosen).toBe(
      `session agent-b-session: the most recently updated of 2 sessions whose agent works in ${folder}, the folder this server was started in (no session's hooks named process ${agentPid + 1_000_000}, the process that started this server)`,
    );
  });
});

describe('the subscription windows’ reminder on a submitted prompt', () => {
  const T0 = Date.parse('2026-12-03T10:00:00Z');
  let clock = T0;
  let windowsApp: FastifyInstance;
  let windowsUrl: string;
  let windowsData: string;
  beforeAll(async () => {
    windowsData = mkdtempSync(join(tmpdir(), 'barometer-hook-windows-'));
    windowsApp = await buildApp(
      { logLevel: 'silent', dataDir: windowsData, rateLimitPerMinute: 0, ingestRateLimitPerMinute: 0 },
      { now: () => clock },
    );
    await windowsApp.listen({ host: '127.0.0.1', port: 0 });
    const address = windowsApp.server.address();
    windowsUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await windowsApp.close();
    rmSync(windowsData, { recursive: true, force: true });
  });

  /** A session whose answers said the 5-hour window (reset at 12:00) was at each of `figures` (minute, fraction). */
  async function sessionWith(id: string, figures: ReadonlyArray<readonly [number, string]>) {
    await windowsApp.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: { id, model: 'claude-sonnet-4-5' },
    });
    for (const [minute, fraction] of figures) {
      clock = T0 + minute * 60_000;
      await windowsApp.inject({
        method: 'POST',
        url: `/api/v1/sessions/${id}/usage`,
        payload: {
          promptTokens: 20_000,
          completionTokens: 100,
          headers: {
            'anthropic-ratelimit-unified-5h-utilization': fraction,
            'anthropic-ratelimit-unified-5h-reset': String((T0 + 120 * 60_000) / 1000),
          },
        },
      });
    }
  }
  const prompt = (id: string, windowReminderMinutes?: number) =>
    handleHookEvent(
      { session_id: id, hook_event_name: 'UserPromptSubmit', prompt: 'go on' },
      {
        sessions: new ServiceSessions(new BarometerClient({ url: windowsUrl })),
        now: () => clock,
        ...(windowReminderMinutes === undefined ? {} : { windowReminderMinutes }),
      },
    );

  it('reminds the agent when the 5-hour window runs out within 30 minutes (the default), and says when it resets', async () => {
    // 60% at 10:00, 80% at 10:30: 40%/h; 20% left lasts 30 min, until 11:00, before the 12:00 reset.
    await sessionWith('hot-window', [
      [0, '0.6'],
      [30, '0.8'],
    ]);
    const answer = await prompt('hot-window');
    expect(answer.output).toEqual({
      hookSpecificOutput: {
        hookEventName: 'UserPromptSubmit',
        additionalContext:
          'Subscription window (barometer): The 5h usage window is 80% used and runs out in about 30 min at the recent pace (40%/h), before its reset: it resets at 12:00Z, in 90 min. Spend less per step until then: finish the current task before starting another, do not start sub-agents or broad searches, and keep outputs short.',
      },
    });
    // A shorter horizon than the 30 minutes left: no reminder; 0 turns it off.
    expect((await prompt('hot-window', 20)).output).toBeUndefined();
    expect((await prompt('hot-window', 0)).output).toBeUndefined();
  });

  it('says nothing of a window that lasts until its reset', async () => {
    // 60% at 10:00, 62% at 10:30: 4%/h; 38% left lasts 9.5 h, past the reset.
    await sessionWith('calm-window', [
      [0, '0.6'],
      [30, '0.62'],
    ]);
    expect((await prompt('calm-window')).output).toBeUndefined();
  });
});
