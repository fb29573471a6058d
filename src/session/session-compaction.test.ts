import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvictionPolicy } from '../compaction/eviction-policy.js';
import { BarometerValidationError } from '../errors/validation.js';
import { ArchiveStore } from '../store/archive.js';
import type { CompactionReport } from './compaction-step.js';
import { type CompactedHistory, type CompactionSessions, compactForSession } from './session-compaction.js';
import { createSessionState, type SessionState } from './session-state.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-session-compaction-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const testLog = `PASS src/a.test.ts\n${'  ✓ adds one to every element of the list (3 ms)\n'.repeat(900)}`;
const call = (id: string, command: string) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }],
});
/** A test run, then a commit: the commit ends the sub-task whose output the policy evicts. */
const history = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the off-by-one in src/a.ts and commit' },
  call('c1', 'npm test'),
  { role: 'tool', tool_call_id: 'c1', content: testLog },
  call('c2', 'git commit -am "fix off-by-one"'),
  { role: 'tool', tool_call_id: 'c2', content: '[main 1a2b] fix' },
];

/** Sessions that hold `live` (or none), and what the compaction told them. */
function sessions(live: SessionState | undefined, archive: ArchiveStore | undefined) {
  const told = {
    asked: [] as string[],
    drifts: [] as Array<[string, number]>,
    reports: [] as Array<[string, CompactionReport]>,
    compacted: [] as CompactedHistory[],
  };
  const host: CompactionSessions = {
    archive,
    summarizer: undefined,
    session: async (id) => {
      told.asked.push(id);
      return id === live?.id ? live : undefined;
    },
    setDrift: async (id, drift) => {
      told.drifts.push([id, drift]);
    },
    recordCompaction: async (id, report) => {
      told.reports.push([id, report]);
    },
    compacted: (compaction) => told.compacted.push(compaction),
  };
  return { host, told };
}

const live = () => createSessionState({ id: 'live-1', model: 'claude-opus-4-6', agent: 'claude-code' });

describe('compactForSession with the eviction policy', () => {
  it('evicts the finished sub-task, keeps the measured drift in the live session and records the compaction there', async () => {
    const { host, told } = sessions(live(), new ArchiveStore({ root, durable: false }));
    const answer = await compactForSession(
      { history, sessionId: 'live-1', policy: new EvictionPolicy() },
      host,
    );
    if (!answer.ok || !answer.policy) throw new Error('expected the policy’s compaction');
    expect(answer.policy.evicted).toBe(1);
    expect(answer.sessionRecorded).toBe(true);
    expect(told.drifts).toEqual([['live-1', Math.min(100, Math.max(0, answer.policy.driftPercent))]]);
    // The test log is gone from the history: fewer tokens after than before.
    expect(answer.after.tokens).toBeLessThan(answer.before.tokens);
    expect(told.reports).toEqual([
      ['live-1', { before: answer.before.tokens, after: answer.after.tokens, trigger: 'barometer' }],
    ]);
    // The policy's compactions are no `compacted` event (metrics count recaps and evictions of `compact` only).
    expect(told.compacted).toEqual([]);
  });

  it('tells nothing to a session that does not exist', async () => {
    const { host, told } = sessions(undefined, new ArchiveStore({ root, durable: false }));
    const answer = await compactForSession(
      { history, sessionId: 'gone', policy: new EvictionPolicy() },
      host,
    );
    expect(answer.sessionRecorded).toBe(false);
    expect(told.asked).toEqual(['gone']);
    expect(told.drifts).toEqual([]);
    expect(told.reports).toEqual([]);
  });

  it('refuses without an archive to write to, before reading any session', async () => {
    const { host, told } = sessions(live(), undefined);
    await expect(
      compactForSession({ history, sessionId: 'live-1', policy: new EvictionPolicy() }, host),
    ).rejects.toBeInstanceOf(BarometerValidationError);
    expect(told.asked).toEqual([]);
  });
});

describe('compactForSession with a recap', () => {
  it('tells the subscribers and the live session of a recap that saves enough', async () => {
    const { host, told } = sessions(live(), new ArchiveStore({ root, durable: false }));
    const answer = await compactForSession(
      { history, sessionId: 'live-1', keepTurns: 0, minGainPercent: 1 },
      host,
    );
    if (!answer.ok) throw new Error(answer.reason);
    expect(answer.mode).toBe('recap');
    expect(answer.sessionRecorded).toBe(true);
    expect(told.compacted).toEqual([{ id: 'live-1', mode: 'recap', evictedItems: 0 }]);
    expect(told.reports).toEqual([
      ['live-1', { before: answer.before.tokens, after: answer.after.tokens, trigger: 'barometer' }],
    ]);
    expect(told.drifts).toEqual([]);
  });

  it('answers a compaction without a session id as recorded nowhere', async () => {
    const { host, told } = sessions(live(), new ArchiveStore({ root, durable: false }));
    const answer = await compactForSession({ history, keepTurns: 0, minGainPercent: 1 }, host);
    expect(answer.sessionRecorded).toBe(false);
    expect(told.asked).toEqual([]);
    expect(told.reports).toEqual([]);
  });
});
