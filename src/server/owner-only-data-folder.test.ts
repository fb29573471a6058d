import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readServiceFile } from '../store/service-file.js';
import { startServer } from './serve.js';

const HISTORY = JSON.parse(
  readFileSync(new URL('../../test/fixtures/openai-history.json', import.meta.url), 'utf8'),
) as unknown[];
const root = mkdtempSync(join(tmpdir(), 'barometer-owner-only-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every folder and file under `folder` with its permission bits, e.g. `archives/s1/compaction-1.log 600`. */
function modes(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true }).map((entry) => {
    const path = join(entry.parentPath, entry.name);
    return `${relative(folder, path)} ${(statSync(path).mode & 0o777).toString(8)}`;
  });
}

describe('the data folder is the user’s alone (archives hold what the agent read)', () => {
  it('creates its folders 0700 and its files 0600: the database (sessions, webhooks), archives, lock, service file, log', async () => {
    // Two levels that do not exist yet: both made by barometer, both owner-only.
    const dataDir = join(root, 'state', 'barometer');
    const server = await startServer(
      {
        port: 0,
        logLevel: 'info',
        dataDir,
        logFile: join(dataDir, 'logs', 'service.log'),
        dashboard: false,
        allowPrivateWebhooks: true,
        proxy: {},
      },
      { serviceFile: true },
    );
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    try {
      expect((await post('/api/v1/sessions', { id: 's1', model: 'claude-opus-4-6' })).status).toBe(201);
      expect(
        (await post('/api/v1/sessions/s1/usage', { promptTokens: 900, completionTokens: 9 })).status,
      ).toBe(200);
      expect((await post('/api/v1/compact', { messages: HISTORY, sessionId: 's1' })).status).toBe(200);
      expect(
        (await post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['compaction'] })).status,
      ).toBe(201);
      expect(readServiceFile(dataDir)).toMatchObject({
        url: server.url,
        pid: process.pid,
        proxy: { mode: 'act' },
      });
      const running = modes(dataDir);
      expect(running).toEqual(
        expect.arrayContaining([
          'barometer.lock 600',
          'barometer.db 600',
          'service.json 600',
          'logs 700',
          'logs/service.log 600',
        ]),
      );
    } finally {
      await server.close();
    }
    // Closed: the database (sessions, webhooks) kept, the lock and the service file removed.
    const closed = modes(dataDir);
    expect(closed).toEqual(
      expect.arrayContaining([
        'archives 700',
        'archives/s1 700',
        'archives/s1/compaction-1.log 600',
        'barometer.db 600',
      ]),
    );
    expect(closed.filter((entry) => !/ (600|700)$/.test(entry))).toEqual([]);
    expect(
      closed.some((entry) => entry.startsWith('barometer.lock') || entry.startsWith('service.json')),
    ).toBe(false);
    expect((statSync(join(root, 'state')).mode & 0o777).toString(8)).toBe('700');
    // The service's own lines went to its log file, not to stdout.
    expect(readFileSync(join(dataDir, 'logs', 'service.log'), 'utf8')).toContain('Server listening at');
  });
});
