import { describe, expect, it } from 'vitest';
import type { SessionHealth, SessionView } from '../../src/contract/index.js';
import {
  applyDelta,
  countByHealth,
  isNewer,
  nestSessions,
  removeSession,
  sortSessions,
  upsertSession,
} from './session-list.js';
import { healthFixture, namingFixture, profileFixture, signalsFixture } from './test-fixtures.js';

function view(
  id: string,
  generations: number,
  updatedAt: string | null,
  level?: SessionHealth['level'],
): SessionView {
  return {
    id,
    model: 'm',
    agent: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt,
    generations,
    profile: profileFixture({ contextWindow: 1, optimalMaxTokens: 1, criticalMaxTokens: 1 }),
    signals: signalsFixture(),
    health: healthFixture(level ?? 'unknown'),
    regulator: null,
    verdict: null,
    verdictAt: null,
    workingDirectory: null,
    agentProcessId: null,
    parentId: null,
    proxy: null,
    ...namingFixture(),
    timeline: [],
    markers: [],
    receiptCalls: null,
  };
}

describe('isNewer', () => {
  it('prefers the view with more generations, whatever the clock says', () => {
    expect(isNewer(view('a', 3, '2026-01-01T00:00:01Z'), view('a', 2, '2026-01-01T00:00:09Z'))).toBe(true);
    expect(isNewer(view('a', 2, '2026-01-01T00:00:09Z'), view('a', 3, '2026-01-01T00:00:01Z'))).toBe(false);
  });

  it('breaks a tie by the update time, accepting an equal one', () => {
    expect(isNewer(view('a', 2, '2026-01-01T00:00:02Z'), view('a', 2, '2026-01-01T00:00:01Z'))).toBe(true);
    expect(isNewer(view('a', 2, '2026-01-01T00:00:01Z'), view('a', 2, '2026-01-01T00:00:01Z'))).toBe(true);
    expect(isNewer(view('a', 2, '2026-01-01T00:00:00Z'), view('a', 2, '2026-01-01T00:00:01Z'))).toBe(false);
  });
});

describe('upsertSession and removeSession', () => {
  it('keeps the newer view when an older one arrives late', () => {
    const newer = view('a', 5, '2026-01-01T00:00:05Z');
    const sessions = upsertSession(new Map(), newer);
    const after = upsertSession(sessions, view('a', 4, '2026-01-01T00:00:04Z'));
    expect(after).toBe(sessions);
    expect(after.get('a')).toBe(newer);
  });

  it('removes a deleted session and ignores an unknown id', () => {
    const sessions = upsertSession(new Map(), view('a', 1, null));
    expect(removeSession(sessions, 'a').size).toBe(0);
    expect(removeSession(sessions, 'b')).toBe(sessions);
  });
});

describe('nestSessions', () => {
  const child = (id: string, parentId: string, updatedAt: string) => ({
    ...view(id, 1, updatedAt),
    parentId,
  });

  it('puts each sub-agent session under its parent, in the list order, and indents it by depth', () => {
    const rows = nestSessions([
      child('agent-b', 'main', '2026-01-01T00:00:09Z'),
      view('other', 1, '2026-01-01T00:00:05Z'),
      view('main', 1, '2026-01-01T00:00:01Z'),
      child('agent-a', 'main', '2026-01-01T00:00:03Z'),
      child('agent-a-1', 'agent-a', '2026-01-01T00:00:04Z'),
    ]);
    expect(rows.map((row) => [row.view.id, row.depth])).toEqual([
      ['other', 0],
      ['main', 0],
      ['agent-b', 1],
      ['agent-a', 1],
      ['agent-a-1', 2],
    ]);
  });

  it('lists a child whose parent is not listed, and a loop of parents, once each at the top', () => {
    const rows = nestSessions([
      child('orphan', 'gone', '2026-01-01T00:00:01Z'),
      child('x', 'y', '2026-01-01T00:00:02Z'),
      child('y', 'x', '2026-01-01T00:00:03Z'),
    ]);
    expect(rows.map((row) => row.view.id).sort()).toEqual(['orphan', 'x', 'y']);
    expect(rows.find((row) => row.view.id === 'orphan')?.depth).toBe(0);
  });
});

describe('sortSessions', () => {
  it('lists the most recently updated first among equals, never-updated ones last', () => {
    const sorted = sortSessions([
      view('old', 1, '2026-01-01T00:00:01Z'),
      view('new', 1, '2026-01-01T00:00:09Z'),
      view('idle', 0, null),
    ]);
    expect(sorted.map((session) => session.id)).toEqual(['new', 'old', 'idle']);
  });

  it('puts the sessions that need attention first: critical, caution, healthy, unknown', () => {
    const sorted = sortSessions([
      view('healthy-recent', 3, '2026-01-01T00:00:09Z', 'healthy'),
      view('critical-old', 3, '2026-01-01T00:00:01Z', 'critical'),
      view('unknown', 3, '2026-01-01T00:00:08Z', 'unknown'),
      view('caution', 3, '2026-01-01T00:00:05Z', 'caution'),
    ]);
    expect(sorted.map((session) => session.id)).toEqual([
      'critical-old',
      'caution',
      'healthy-recent',
      'unknown',
    ]);
  });
});

describe('countByHealth', () => {
  it('counts each level, a session without health as unknown', () => {
    expect(
      countByHealth([view('a', 1, null, 'critical'), view('b', 1, null, 'critical'), view('c', 0, null)]),
    ).toEqual({ critical: 2, caution: 0, healthy: 0, unknown: 1 });
  });
});

describe('applyDelta', () => {
  const point = (index: number) =>
    ({
      index,
      timestamp: `2026-11-22T12:00:0${index}Z`,
      promptTokens: 1000 * index,
      completionTokens: 10,
      health: 'healthy',
      regulatorLevel: 'LOW',
      viability: 90,
      burnRate: 10,
      action: 'continue',
      countdown: null,
      reminder: false,
    }) as const;
  const base = {
    id: 's',
    model: 'm',
    agent: null,
    createdAt: '2026-11-22T12:00:00Z',
    updatedAt: '2026-11-22T12:00:01Z',
    generations: 2,
    profile: profileFixture({ contextWindow: 1, optimalMaxTokens: 1, criticalMaxTokens: 1 }),
    signals: signalsFixture(),
    health: healthFixture('unknown'),
    regulator: null,
    verdict: null,
    verdictAt: null,
    workingDirectory: null,
    agentProcessId: null,
    parentId: null,
    proxy: null,
    ...namingFixture(),
    timeline: [point(0), point(1)],
    markers: [],
    receiptCalls: null,
  };

  it('appends the points an update adds and takes its summary, never a point twice', () => {
    const { timeline: _t, markers: _m, receiptCalls: _r, ...summary } = { ...base, generations: 3 };
    const next = applyDelta(base, {
      sessionId: 's',
      summary,
      points: [point(1), point(2)],
      markers: [{ type: 'compaction', timestamp: '2026-11-22T12:00:02Z', index: 2, detail: 'auto' }],
    });
    expect(next.generations).toBe(3);
    expect(next.timeline.map((each) => each.index)).toEqual([0, 1, 2]);
    expect(next.markers).toHaveLength(1);
  });
});
