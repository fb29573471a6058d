import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newProxySession } from './proxy-session.js';
import { readProxySession, writeProxySession } from './proxy-session-file.js';

const root = mkdtempSync(join(tmpdir(), 'barometer-proxy-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a proxy session file', () => {
  it('is written owner-only (its tombstones name what the agent read) and read back whole', async () => {
    const file = join(root, 'proxy', 's1.json');
    const entry = newProxySession('s1');
    entry.edits.set('call_1', { result: '[evicted]' });
    await writeProxySession(file, entry);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'proxy')).mode & 0o777).toBe(0o700);
    const again = newProxySession('s1');
    await readProxySession(file, again);
    expect([...again.edits]).toEqual([['call_1', { result: '[evicted]' }]]);
  });
});
