import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  HookInput,
  Options,
  PostCompactHookInput,
  SDKCompactBoundaryMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import { Session } from '../session/session.js';
import type { SessionView } from '../session/session-schemas.js';
import { normalizeUsage } from '../usage/normalize-usage.js';
import { barometerClaudeAgent } from './claude-agent-sdk.js';

let root: string;
let server: RunningServer;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-agent-sdk-options-'));
  server = await startServer({ port: 0, logLevel: 'silent', dashboard: false, dataDir: join(root, 'data') });
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const signal = new AbortController().signal;
const prompt = (sessionId: string) =>
  ({
    hook_event_name: 'UserPromptSubmit',
    session_id: sessionId,
    transcript_path: '',
    cwd: root,
    prompt: 'go on',
  }) as unknown as HookInput;

describe('barometerClaudeAgent().options()', () => {
  it('routes Claude Code through the proxy, keeping the caller’s environment (the SDK’s env replaces the child’s)', () => {
    const agent = barometerClaudeAgent({ proxyUrl: server.url });
    const options = agent.options({
      model: 'claude-sonnet-4-5',
      env: { PATH: '/bin', ANTHROPIC_API_KEY: 'k' },
    } as Options);
    expect(options.env).toEqual({ PATH: '/bin', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url });
    expect(options.model).toBe('claude-sonnet-4-5');
    // Without an env of the caller's, the process's is carried over.
    expect(agent.options().env?.PATH).toBe(process.env.PATH);
  });

  it('adds its hook after the caller’s own, and leaves the environment alone without a proxy', () => {
    const own = { hooks: [async () => ({})] };
    const options = barometerClaudeAgent({ proxyUrl: null }).options({
      hooks: { UserPromptSubmit: [own] },
    } as Options);
    expect(options.hooks?.UserPromptSubmit).toHaveLength(2);
    expect(options.hooks?.UserPromptSubmit?.[0]).toBe(own);
    expect(options.hooks?.PostCompact).toHaveLength(1);
    expect(options.env).toBeUndefined();
  });

  it('rejects a proxy address that is not a URL, at once', () => {
    expect(() => barometerClaudeAgent({ proxyUrl: 'not a url' })).toThrow(
      'barometer: proxyUrl must be the proxy\'s http(s) address, got "not a url"',
    );
  });

  it('hands Claude the session’s context_health reminder from the proxy’s service, and nothing for an unknown session', async () => {
    await fetch(`${server.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'cc-1', model: 'claude-sonnet-4-5', optimalMaxTokens: 1000 }),
    });
    const posted = await fetch(`${server.url}/api/v1/sessions/cc-1/usage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ promptTokens: 5000, completionTokens: 10 }),
    });
    const answer = (await posted.json()) as { health: { reminder: { text: string } | null } };
    expect(answer.health.reminder?.text).toBeTruthy();
    const agent = barometerClaudeAgent({ proxyUrl: server.url });
    const hook = agent.options().hooks?.UserPromptSubmit?.at(-1)?.hooks[0];
    const output = await hook?.(prompt('cc-1'), undefined, { signal });
    expect(output).toEqual({
      hookSpecificOutput: {
        hookEventName: 'UserPromptSubmit',
        additionalContext: answer.health.reminder?.text,
      },
    });
    expect(agent.barometer.sessionId).toBe('cc-1');
    expect(await hook?.(prompt('cc-unknown'), undefined, { signal })).toEqual({});
  });

  it('answers at once, with nothing, when the proxy cannot be reached (the prompt goes on)', async () => {
    const errors: unknown[] = [];
    const agent = barometerClaudeAgent({
      proxyUrl: 'http://127.0.0.1:9',
      onError: (error) => errors.push(error),
    });
    const hook = agent.options().hooks?.UserPromptSubmit?.at(-1)?.hooks[0];
    expect(await hook?.(prompt('cc-2'), undefined, { signal })).toEqual({});
    expect(errors).toHaveLength(1);
  });
});

/**
 * A compact boundary as the SDK types it (`SDKCompactBoundaryMessage`, sdk.d.ts of 0.3.335), with the figures the
 * Claude Code it ships wrote for an auto-compaction in claude-agent-sdk-compaction.test.ts's run.
 */
const boundary = (sessionId: string, trigger: 'auto' | 'manual', pre: number, post?: number) =>
  ({
    type: 'system',
    subtype: 'compact_boundary',
    compact_metadata: {
      trigger,
      pre_tokens: pre,
      ...(post === undefined ? {} : { post_tokens: post }),
      duration_ms: 30,
    },
    uuid: '1c6cebe8-201d-4d98-82dd-6ced99110a5c',
    session_id: sessionId,
  }) satisfies SDKCompactBoundaryMessage;
const postCompact = (sessionId: string, trigger: 'auto' | 'manual', summary: string) =>
  ({
    hook_event_name: 'PostCompact',
    session_id: sessionId,
    transcript_path: '',
    cwd: root,
    trigger,
    compact_summary: summary,
  }) satisfies PostCompactHookInput;
async function* messagesOf(...messages: unknown[]) {
  yield* messages;
}
async function drain(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const message of stream) seen.push(message);
  return seen;
}
async function proxySession(id: string, promptTokens: number): Promise<void> {
  await fetch(`${server.url}/api/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, model: 'claude-sonnet-4-5' }),
  });
  await fetch(`${server.url}/api/v1/sessions/${id}/usage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ promptTokens, completionTokens: 78 }),
  });
}

describe('barometerClaudeAgent().observe(): Claude Code’s own compactions', () => {
  it('records each compact boundary in the proxy’s session, with its trigger and Claude Code’s token figures', async () => {
    await proxySession('cc-compact', 240_000);
    const agent = barometerClaudeAgent({ proxyUrl: server.url });
    const hook = agent.options().hooks?.PostCompact?.at(-1)?.hooks[0];
    expect(await hook?.(postCompact('cc-compact', 'auto', 'the summary'), undefined, { signal })).toEqual({});
    const messages = [boundary('cc-compact', 'auto', 240_078, 2_698), { type: 'user' }];
    // Passed through unchanged, every one.
    expect(await drain(agent.observe(messagesOf(...messages)))).toEqual(messages);
    expect(agent.barometer.compactions).toEqual([
      {
        trigger: 'auto',
        preTokens: 240_078,
        postTokens: 2_698,
        durationMs: 30,
        summary: 'the summary',
        recorded: true,
      },
    ]);
    const view = (await (await fetch(`${server.url}/api/v1/sessions/cc-compact`)).json()) as SessionView;
    expect(view.markers.filter((marker) => marker.type === 'compaction')).toEqual([
      expect.objectContaining({ index: 1, detail: 'auto compaction from 240078 to 2698 tokens' }),
    ]);
    expect(agent.barometer.lastError).toBeUndefined();
  });

  it('records a manual /compact without post_tokens from the session’s last prompt, and tells onError of a session the proxy does not have', async () => {
    await proxySession('cc-manual', 5_000);
    const errors: unknown[] = [];
    const agent = barometerClaudeAgent({ proxyUrl: server.url, onError: (error) => errors.push(error) });
    await drain(
      agent.observe(messagesOf(boundary('cc-manual', 'manual', 5_050), boundary('cc-absent', 'auto', 9_000))),
    );
    expect(agent.barometer.compactions.map((compaction) => compaction.recorded)).toEqual([true, false]);
    const view = (await (await fetch(`${server.url}/api/v1/sessions/cc-manual`)).json()) as SessionView;
    expect(
      view.markers.filter((marker) => marker.type === 'compaction').map((marker) => marker.detail),
    ).toEqual(['manual compaction from 5050 tokens']);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain(
      `the proxy at ${server.url} has no session cc-absent: Claude Code's auto compaction is not recorded`,
    );
  });

  it('records it in the given session too, whose loop guards then hold from the post-compaction size', async () => {
    const session = new Session({ model: 'claude-sonnet-4-5' });
    session.update({
      usage: normalizeUsage('anthropic', { usage: { input_tokens: 240_000, output_tokens: 78 } }),
    });
    const agent = barometerClaudeAgent({ proxyUrl: null, session });
    await drain(agent.observe(messagesOf(boundary(session.id, 'auto', 240_078, 2_698))));
    expect(agent.barometer.compactions[0]?.recorded).toBe(true);
    expect(session.state.triggers.lastCompaction).toEqual({ before: 240_078, after: 2_698, stalled: false });
  });
});
