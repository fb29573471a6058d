import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvictionPolicy } from '../compaction/eviction-policy.js';
import { BarometerValidationError } from '../errors/validation.js';
import { ArchiveStore } from '../store/archive.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { SessionMonitor } from './session-monitor.js';

const T0 = Date.UTC(2026, 1, 12, 16, 0, 0);
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-policy-monitor-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const testLog = `PASS src/a.test.ts\n${'  ✓ adds one to every element of the list (3 ms)\n'.repeat(900)}`;

function history(withCommit: boolean) {
  const call = (id: string, name: string, args: object) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  });
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the off-by-one in src/a.ts and commit' },
    call('c1', 'bash', { command: 'npm test' }),
    { role: 'tool', tool_call_id: 'c1', content: testLog },
    ...(withCommit
      ? [
          call('c2', 'bash', { command: 'git commit -am "fix off-by-one"' }),
          { role: 'tool', tool_call_id: 'c2', content: '[main 1a2b] fix' },
        ]
      : []),
  ];
}

const usage = (promptTokens: number): UsageRecord => ({
  available: true,
  source: 'manual',
  promptTokens,
  completionTokens: 200,
  totalTokens: promptTokens + 200,
  cachedReadTokens: 0,
  cachedWriteTokens: 0,
  reasoningTokens: 0,
});

describe('SessionMonitor.compact with the eviction policy', () => {
  it('changes nothing before a boundary, then evicts the completed sub-task and tells the session', async () => {
    const archive = new ArchiveStore({ root, durable: false });
    const monitor = new SessionMonitor({ now: () => T0, archive });
    await monitor.create({ id: 'live-1', model: 'claude-opus-4-6', agent: 'claude-code' });
    await monitor.postUsage('live-1', { usage: usage(40_000) });
    const policy = new EvictionPolicy();

    const quiet = await monitor.compact({ history: history(false), sessionId: 'live-1', policy });
    if (!quiet.ok) throw new Error(quiet.reason);
    expect(quiet.mode).toBe('policy');
    expect(quiet.messages).toEqual(history(false));
    expect(quiet.sessionRecorded).toBe(false);
    expect(quiet.policy?.boundary).toBeNull();

    const answer = await monitor.compact({
      history: history(true),
      sessionId: 'live-1',
      policy,
      ...(quiet.policy ? { policyState: quiet.policy.state } : {}),
    });
    if (!answer.ok) throw new Error(answer.reason);
    expect(answer.policy?.boundary?.kind).toBe('command');
    expect(answer.policy?.evicted).toBe(1);
    expect(answer.sessionRecorded).toBe(true);
    const path = archive.pathFor('live-1', 'subtask-1');
    expect(answer.messages[3]).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: `[Task subtask-1 completed: output evicted to archive] ${path}#c1:result`,
    });
    expect((await archive.readLocation(`${path}#c1:result`)).content).toBe(testLog);
    expect(answer.after.tokens).toBeLessThan(answer.before.tokens - 5_000);

    // The compaction is on the session's timeline, and the measured drift reaches the regulator.
    const view = await monitor.view('live-1');
    expect(view.markers.some((marker) => marker.type === 'compaction')).toBe(true);
    const next = await monitor.postUsage('live-1', { usage: usage(12_000) });
    expect(next.signals.driftPercent).toBe(answer.policy?.driftPercent);
    expect(next.verdict.reasons.find((reason) => reason.model === 'regulator')?.reason).not.toContain(
      'drift not measured',
    );
  });

  it('needs an archive to write to first', async () => {
    const monitor = new SessionMonitor({ now: () => T0 });
    await expect(monitor.compact({ history: history(true), policy: {} })).rejects.toThrow(
      BarometerValidationError,
    );
  });
});
