import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionMonitor } from '../session/session-monitor.js';
import { ArchiveStore } from '../store/archive.js';
import { ProxySessions } from './proxy-sessions.js';

const root = mkdtempSync(join(tmpdir(), 'barometer-proxy-sessions-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function sessions(now: () => number) {
  return new ProxySessions({
    monitor: new SessionMonitor(),
    archive: new ArchiveStore({ root }),
    now,
    onFailure: (stage, error) => {
      throw new Error(`${stage}: ${String(error)}`);
    },
  });
}

describe('holdMs', () => {
  it('holds a request for what is left of a wait verdict’s waitSeconds, at most the cap', () => {
    let now = 1_000_000;
    const proxy = sessions(() => now);
    const entry = proxy.session('s1');
    entry.verdict = { action: 'wait', waitSeconds: 8, at: now };
    now += 3000;
    expect(proxy.holdMs(entry, 60)).toBe(5000);
    expect(proxy.holdMs(entry, 2)).toBe(2000);
    now += 10_000;
    expect(proxy.holdMs(entry, 60)).toBe(0);
  });

  it('never holds on another action, nor before any verdict', () => {
    const proxy = sessions(() => 0);
    const entry = proxy.session('s2');
    expect(proxy.holdMs(entry, 60)).toBe(0);
    entry.verdict = { action: 'compress', waitSeconds: 30, at: 0 };
    expect(proxy.holdMs(entry, 60)).toBe(0);
  });
});
