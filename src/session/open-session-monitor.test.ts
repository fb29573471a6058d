import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreProblem } from '../store/sqlite-state-store.js';
import { openSessionMonitor } from './open-session-monitor.js';

/** A data dir written by the release before the database, and what that release read back from it. */
const FIXTURES = fileURLToPath(new URL('../store/fixtures/', import.meta.url));
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'data-dir-f817969.expected.json'), 'utf8')) as {
  views: Record<string, unknown>;
};
/** The time the expected views were read at (see data-dir-f817969.read.ts.txt). */
const READ_AT = Date.parse('2026-11-20T10:01:00Z');

type View = Record<string, unknown> & { profile: Record<string, unknown>; signals: Record<string, unknown> };

/** The fields a view gained after f817969, as a session of that release answers them (checked in {@link asOf}). */
const ADDED_SINCE = {
  top: { evictions: null, proxy: null, receipt: null, receiptCalls: null, subAgents: [], title: null },
  profile: {
    estimatedFrom: null,
    family: null,
    priceSource: 'registry',
    source: 'registry',
    unpricedReason: null,
    windowSource: 'registry',
  },
  signals: { costEstimated: false, unpricedCalls: 0 },
};

/** A view as f817969 answered it: the fields added since are checked to hold their defaults, then left out. */
function asOf(answer: unknown): unknown {
  const view = structuredClone(answer) as View;
  const { top, profile, signals } = ADDED_SINCE;
  expect(view).toMatchObject(top);
  expect(view.profile).toMatchObject(profile);
  expect(view.signals).toMatchObject(signals);
  // Its project is named from its working directory; its totals are its own calls (no sub-agents).
  expect(view.project).toBe(
    String(view.workingDirectory ?? '')
      .split('/')
      .slice(-2)
      .join('/') || null,
  );
  expect(view.totals).toMatchObject({ calls: view.generations, unpricedCalls: 0 });
  for (const key of [...Object.keys(top), 'project', 'totals']) delete view[key];
  for (const key of Object.keys(profile)) delete view.profile[key];
  for (const key of Object.keys(signals)) delete view.signals[key];
  return view;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function olderDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'barometer-older-'));
  dirs.push(dir);
  cpSync(join(FIXTURES, 'data-dir-f817969'), dir, { recursive: true });
  return dir;
}

describe('openSessionMonitor on a data dir of the release before the database (f817969)', () => {
  it('imports every session once, as that release read it back, and says so in one line', async () => {
    const dataDir = olderDataDir();
    const problems: StoreProblem[] = [];
    const monitor = await openSessionMonitor({
      dataDir,
      now: () => READ_AT,
      onProblem: (problem) => problems.push(problem),
    });
    // Every field that release answered, as it answered it; the fields added since come with their defaults.
    for (const [id, view] of Object.entries(EXPECTED.views))
      expect(asOf(await monitor.view(id))).toEqual(view);
    expect(problems).toEqual([
      {
        id: '*',
        action: 'import',
        reason: `imported 3 sessions from ${join(dataDir, 'sessions')} into ${join(dataDir, 'barometer.db')}; the folder is kept as ${join(dataDir, 'sessions.imported')}`,
      },
    ]);
    // The files stay, as they were, beside the database.
    expect(existsSync(join(dataDir, 'sessions'))).toBe(false);
    expect(readFileSync(join(dataDir, 'sessions.imported', 'logged.state.jsonl'), 'utf8')).toBe(
      readFileSync(join(FIXTURES, 'data-dir-f817969', 'sessions', 'logged.state.jsonl'), 'utf8'),
    );
    await monitor.close();

    // Once: the next start finds nothing to import, and the sessions in the database.
    const again: StoreProblem[] = [];
    const reopened = await openSessionMonitor({
      dataDir,
      now: () => READ_AT,
      onProblem: (p) => again.push(p),
    });
    expect(again).toEqual([]);
    expect(asOf(await reopened.view('logged'))).toEqual(EXPECTED.views.logged);
    expect(await reopened.store.size()).toBe(3);
    await reopened.close();
  });

  it('goes on from the imported state: the next update of a session follows its last generation', async () => {
    const dataDir = olderDataDir();
    const monitor = await openSessionMonitor({ dataDir, now: () => READ_AT });
    const answer = await monitor.postUsage('logged', {
      timestamp: READ_AT,
      usage: {
        available: true,
        source: 'manual',
        promptTokens: 40_000,
        completionTokens: 100,
        totalTokens: 40_100,
        cachedReadTokens: 0,
        cachedWriteTokens: 0,
        reasoningTokens: 0,
      },
    });
    expect(answer.generation).toBe(6);
    const view = await monitor.view('logged');
    expect(view.timeline.map((point) => point.index)).toEqual([0, 1, 2, 3, 4, 5]);
    const markers = (EXPECTED.views.logged as { markers: unknown[] }).markers;
    // The imported markers, then whatever this update marked.
    expect(view.markers.slice(0, markers.length)).toEqual(markers);
    await monitor.close();
  });
});
