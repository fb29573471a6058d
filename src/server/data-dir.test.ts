import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionView } from '../session/session-schemas.js';
import { exitOf, spawnCli, startServeProcess } from '../test-helpers/spawn-cli.js';

const dataDir = mkdtempSync(join(tmpdir(), 'barometer-data-dir-'));
const children: Array<ReturnType<typeof spawnCli>> = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function call<T>(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

const SESSIONS = 40;

describe('one data dir, one process, state that agrees after kill -9 (issue 29)', () => {
  let first: Awaited<ReturnType<typeof startServeProcess>>;

  it('refuses a second process on the same data dir, naming the holder (F5)', {
    timeout: 240_000,
  }, async () => {
    first = await startServeProcess(['--data-dir', dataDir]);
    children.push(first.child);
    const lock = JSON.parse(readFileSync(join(dataDir, 'barometer.lock'), 'utf8'));
    expect(lock.pid).toBe(first.child.pid);
    const second = spawnCli(['serve', '--port', '0', '--data-dir', dataDir]);
    children.push(second);
    let stderr = '';
    second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(second)).toBe(5);
    expect(stderr).toContain('is in use by');
    expect(stderr).toContain(`process ${first.child.pid}`);
    // The first one still answers.
    expect((await call(first.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('restarts after kill -9 under load with every timeline ending at its session generation (F3), taking over the stale lock', {
    timeout: 300_000,
  }, async () => {
    for (let index = 0; index < SESSIONS; index++) {
      const created = await call(first.url, 'POST', '/api/v1/sessions', {
        id: `s${index}`,
        model: 'claude-opus-4-6',
      });
      expect(created.status).toBe(201);
    }
    // Posts on every session, many in flight, until the process is killed in the middle of them.
    let posting = true;
    let answered = 0;
    const worker = async (offset: number) => {
      for (let round = 0; posting; round++) {
        const id = `s${(round * 7 + offset) % SESSIONS}`;
        try {
          const answer = await call(first.url, 'POST', `/api/v1/sessions/${id}/usage`, {
            promptTokens: 1000 + round,
            completionTokens: 10,
          });
          if (answer.status === 200) answered++;
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, offset) => worker(offset));
    // Long enough for several flushes (one a second) to have happened mid-way: at least 1,500 answers and 2.5 s
    // (on a quiet machine 1,500 answers take well under a second, before the first flush).
    // And every session written at least once (a process starved of CPU by other work flushes later than a second).
    const loadStarted = Date.now();
    const written = () =>
      existsSync(join(dataDir, 'sessions'))
        ? readdirSync(join(dataDir, 'sessions')).filter((name) => /^s\d+\.json$/.test(name)).length
        : 0;
    while (answered < 1500 || Date.now() - loadStarted < 2500 || written() < SESSIONS)
      await new Promise((resolve) => setTimeout(resolve, 50));
    first.child.kill('SIGKILL');
    posting = false;
    await exitOf(first.child);
    await Promise.all(workers);

    const restarted = await startServeProcess(['--data-dir', dataDir, '--log-level', 'info']);
    children.push(restarted.child);
    let mismatched = 0;
    for (let index = 0; index < SESSIONS; index++) {
      const view = await call<SessionView>(restarted.url, 'GET', `/api/v1/sessions/s${index}`);
      expect(view.status, `s${index}: ${JSON.stringify(view.body)}\n${restarted.output()}`).toBe(200);
      const last = view.body.timeline.at(-1);
      // A session's generation g has its points 0 … g-1: the last is g-1.
      if (view.body.generations > 0 && last?.index !== view.body.generations - 1) mismatched++;
      if (view.body.generations === 0 && last !== undefined) mismatched++;
    }
    expect(mismatched).toBe(0);
    expect(restarted.output()).toContain('no longer running');
    restarted.child.kill('SIGTERM');
    await exitOf(restarted.child);
  });

  it('skips a schema-invalid timeline line, keeps the session, and logs the file and line (F9)', {
    timeout: 240_000,
  }, async () => {
    const sessions = join(dataDir, 'sessions');
    const file = readdirSync(sessions).find((name) => name === 's1.timeline.points.jsonl');
    expect(file).toBeDefined();
    const path = join(sessions, file as string);
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.splice(1, 0, '{"index":"not a number"}');
    writeFileSync(path, lines.join('\n'));
    const restarted = await startServeProcess(['--data-dir', dataDir, '--log-level', 'info']);
    children.push(restarted.child);
    const view = await call<SessionView>(restarted.url, 'GET', '/api/v1/sessions/s1');
    expect(view.status).toBe(200);
    expect(view.body.timeline.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(restarted.output()).toContain(`${path} skipped`);
    expect(restarted.output()).toContain('line 2');
    restarted.child.kill('SIGTERM');
    await exitOf(restarted.child);
  });
});
