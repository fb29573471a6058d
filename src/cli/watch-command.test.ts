import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replayLogText } from '../session/replay.js';
import type { SessionView } from '../session/session-schemas.js';
import { exitOf, spawnCli, startServeProcess } from '../test-helpers/spawn-cli.js';
import { defaultLogFolders } from './watch.js';

const SMALL = readFileSync(
  new URL('../../test/fixtures/traces/claude-code/small-sonnet-session.jsonl', import.meta.url),
  'utf8',
);

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function folder(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(path, { recursive: true, force: true }));
  return path;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('barometer watch', () => {
  it('starts the embedded service, prints its dashboard, and shows a log written into the folder as a live session', async () => {
    const logs = folder('barometer-watch-logs-');
    const data = folder('barometer-watch-data-');
    const child = spawnCli([
      'watch',
      logs,
      '--port',
      '0',
      '--data-dir',
      data,
      '--poll',
      '100ms',
      '--settle',
      '200ms',
    ]);
    cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const url = await waitFor(async () => /dashboard (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)?.[1]);
    writeFileSync(join(logs, 'e9f146fa-3b20-48d0-9be4-d99ca901cae4.jsonl'), SMALL);
    const wanted = replayLogText(SMALL);
    const view = await waitFor(async () => {
      const answer = await fetch(`${url}/api/v1/sessions/e9f146fa-3b20-48d0-9be4-d99ca901cae4`);
      if (answer.status !== 200) return undefined;
      const session = (await answer.json()) as SessionView;
      return session.generations === wanted.summary.calls ? session : undefined;
    });
    expect(view).toMatchObject({ model: 'claude-sonnet-4-20250514', agent: 'claude-code' });
    expect(view.verdict?.action).toBe(wanted.calls.at(-1)!.action);
    expect(stdout).toContain('+ e9f146fa… claude-sonnet-4-20250514 (window 167,000)');
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });

  it('exits 2 with the reason when --server names no running service', async () => {
    const child = spawnCli(['watch', folder('barometer-watch-none-'), '--server', 'http://127.0.0.1:9']);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(2);
    expect(stderr).toContain('not reachable');
  });

  it('sends to the barometer service that already holds its port instead of failing on it', async () => {
    const logs = folder('barometer-watch-logs-');
    const service = await startServeProcess(['--data-dir', folder('barometer-watch-served-')]);
    cleanups.push(() => service.child.exitCode === null && service.child.kill('SIGKILL'));
    const port = new URL(service.url).port;
    const child = spawnCli(['watch', logs, '--port', port, '--poll', '100ms', '--settle', '200ms']);
    cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitFor(async () => (stdout.includes('watching') ? true : undefined));
    expect(stdout).toContain(`a barometer service already listens at ${service.url}: sending to it`);
    writeFileSync(join(logs, 'e9f146fa-3b20-48d0-9be4-d99ca901cae4.jsonl'), SMALL);
    const view = await waitFor(async () => {
      const answer = await fetch(`${service.url}/api/v1/sessions/e9f146fa-3b20-48d0-9be4-d99ca901cae4`);
      return answer.status === 200 ? ((await answer.json()) as SessionView) : undefined;
    });
    expect(view.agent).toBe('claude-code');
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });

  it('exits 2 naming the address when another program holds its port', async () => {
    const other = createServer((_request, response) => response.end('not barometer'));
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
    cleanups.push(() => other.close());
    const { port } = other.address() as AddressInfo;
    const child = spawnCli(['watch', folder('barometer-watch-busy-'), '--port', String(port)]);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(2);
    expect(stderr).toContain(
      `http://127.0.0.1:${port} is in use by another program: pick another port with --port`,
    );
  });

  it("follows each agent's own folder by default, as their settings move it", () => {
    expect(defaultLogFolders({}, '/home/u')).toEqual([
      '/home/u/.claude/projects',
      '/home/u/.codex/sessions',
      '/home/u/.gemini/tmp',
    ]);
    expect(defaultLogFolders({ CLAUDE_CONFIG_DIR: '/c', CODEX_HOME: '/x' }, '/home/u')).toEqual([
      '/c/projects',
      '/x/sessions',
      '/home/u/.gemini/tmp',
    ]);
  });
});
