import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../errors/error-catalogue.js';
import { replayLogText } from '../session/replay.js';
import type { SessionView } from '../session/session-schemas.js';
import { occupiedPort } from '../test-helpers/occupied-port.js';
import { exitOf, spawnCli, startServeProcess } from '../test-helpers/spawn-cli.js';
import { defaultLogFolders } from './watch.js';

const SMALL = readFileSync(
  new URL('../../test/fixtures/traces/claude-code/small-sonnet-session.jsonl', import.meta.url),
  'utf8',
);

const VIEWER = readFileSync(
  new URL(
    '../../test/fixtures/traces/claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
    import.meta.url,
  ),
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

    // A transcript whose Task sub-agents ran inline: each chain is a session of its own, listed with its parent's
    // id and printed indented under it.
    writeFileSync(join(logs, 'viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'), VIEWER);
    const chains = replayLogText(VIEWER).children ?? [];
    expect(chains).toHaveLength(2);
    const listed = await waitFor(async () => {
      const answer = await fetch(`${url}/api/v1/sessions?limit=100`);
      const { sessions } = (await answer.json()) as { sessions: SessionView[] };
      const children = sessions.filter(
        (session) => session.parentId === '5c0375b4-57a5-4f26-b12d-d022ee4e51b7',
      );
      return children.length === chains.length ? children : undefined;
    });
    expect(listed.map((session) => session.id).sort()).toEqual(chains.map((chain) => chain.id).sort());
    await waitFor(async () => (stdout.includes('(sub-agent of 5c0375b4…)') ? true : undefined));
    const lines = stdout.split('\n');
    const parentLine = lines.findIndex((line) => line.startsWith('+ 5c0375b4…'));
    expect(parentLine).toBeGreaterThan(-1);
    for (const chain of chains) {
      const line = lines.findIndex((text) => text.startsWith(`  └ + ${chain.id!.slice(0, 8)}…`));
      expect(line).toBeGreaterThan(-1);
      expect(lines[line]).toContain('(sub-agent of 5c0375b4…)');
      expect(line).toBeGreaterThan(parentLine);
    }
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });

  it('exits 6 (unavailable) naming the URL when --server names no running service', async () => {
    const child = spawnCli(['watch', folder('barometer-watch-none-'), '--server', 'http://127.0.0.1:9']);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(ERROR_CATALOGUE.BR_ERR_UNAVAILABLE.exit);
    expect(stderr).toBe(
      'barometer: no barometer service answers at http://127.0.0.1:9 (given by --server; connect ECONNREFUSED 127.0.0.1:9): ' +
        'start one with `barometer serve`, or point --server or BAROMETER_URL at yours; or leave out --server to start one here\n',
    );
  });

  it('exits 6 naming the busy address when the embedded service’s port is taken, and says how to choose another', async () => {
    const taken = await occupiedPort();
    try {
      const child = spawnCli(['watch', folder('barometer-watch-busy-'), '--port', String(taken.port)]);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      expect(await exitOf(child)).toBe(ERROR_CATALOGUE.BR_ERR_PORT_IN_USE.exit);
      expect(stderr).toBe(
        `barometer: 127.0.0.1:${taken.port} is already in use: another process (perhaps another barometer) listens there. ` +
          'Choose another port with --port <n>, or --port 0 for any free one\n',
      );
    } finally {
      await taken.close();
    }
  }, 60_000);

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
  }, 60_000);

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
