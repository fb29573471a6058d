import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookInput, Options } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
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
