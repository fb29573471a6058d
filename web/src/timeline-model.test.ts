import { describe, expect, it } from 'vitest';
import type { ReplayCall, ReplayResult, SessionView, TimelinePoint } from '../../src/contract/index.js';
import {
  calibrationFixture,
  healthFixture,
  namingFixture,
  profileFixture,
  signalsFixture,
} from './test-fixtures.js';
import {
  type ChartPoint,
  chartModelOfReplay,
  chartModelOfSession,
  describeChart,
  hasScores,
  hasWhatIf,
  healthBands,
  layoutMarkerLabels,
} from './timeline-model.js';

const point = (
  index: number,
  health: TimelinePoint['health'],
  promptTokens: number | null,
): TimelinePoint => ({
  index,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
  promptTokens,
  completionTokens: 100,
  health,
  regulatorLevel: 'LOW',
  viability: 80,
  burnRate: 10,
  action: 'continue',
  countdown: health === 'critical' ? 5 : null,
  reminder: health !== 'healthy',
});

function view(overrides: Partial<SessionView> = {}): SessionView {
  return {
    id: 's1',
    model: 'm',
    agent: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:03:00.000Z',
    generations: 3,
    profile: profileFixture({ contextWindow: 200000, optimalMaxTokens: 100000, criticalMaxTokens: 180000 }),
    signals: signalsFixture(),
    // A session before its first usage: no measured prompt, the profile's thresholds.
    health: healthFixture('unknown', { optimal: 100000, critical: 180000, limit: 200000 }),
    regulator: null,
    verdict: null,
    verdictAt: null,
    workingDirectory: null,
    agentProcessId: null,
    parentId: null,
    proxy: null,
    ...namingFixture(),
    timeline: [point(0, 'healthy', 50000), point(1, 'caution', 120000), point(2, 'critical', 190000)],
    markers: [
      { type: 'compaction', timestamp: '2026-01-01T00:02:30.000Z', index: 2, detail: '190,000 → 40,000' },
    ],
    receiptCalls: null,
    ...overrides,
  };
}

describe('chartModelOfSession', () => {
  it('takes the thresholds from the health view', () => {
    expect(chartModelOfSession(view())).toMatchObject({
      optimal: 100000,
      critical: 180000,
      contextWindow: 200000,
    });
    const withHealth = view({
      health: healthFixture('caution', { optimal: 90000, critical: 150000, limit: 200000 }),
    });
    expect(chartModelOfSession(withHealth)).toMatchObject({ optimal: 90000, critical: 150000 });
  });

  it('keeps every generation with its level, countdown and reminder, by index', () => {
    const model = chartModelOfSession(view());
    expect(model.points.map((p) => [p.x, p.promptTokens, p.health, p.countdown, p.reminder])).toEqual([
      [0, 50000, 'healthy', null, false],
      [1, 120000, 'caution', null, true],
      [2, 190000, 'critical', 5, true],
    ]);
  });

  it('labels markers with their detail', () => {
    expect(chartModelOfSession(view()).markers).toEqual([
      { x: 2, type: 'compaction', label: 'Compaction: 190,000 → 40,000' },
    ]);
  });
});

function call(
  index: number,
  fields: Pick<ReplayCall, 'promptTokens' | 'health' | 'regulatorLevel' | 'action'>,
): ReplayCall {
  return {
    index,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
    completionTokens: 1,
    reasons: [],
    model: 'claude-opus-4-6',
    contextWindow: 200000,
    taskCompleted: false,
    costUsd: null,
    ...fields,
  };
}

const replay: ReplayResult = {
  format: 'claude-code',
  skippedLines: [],
  recoveredLines: [],
  model: 'claude-opus-4-6',
  contextWindow: 200000,
  calls: [
    call(0, { promptTokens: 170000, health: 'caution', regulatorLevel: 'HIGH', action: 'compress' }),
    call(1, { promptTokens: 36000, health: 'healthy', regulatorLevel: 'LOW', action: 'continue' }),
  ],
  compactions: [
    { timestamp: '2026-01-01T00:00:30.000Z', trigger: 'auto', preTokens: 170251, beforeCallIndex: 1 },
  ],
  summary: {
    calls: 2,
    compactions: 1,
    tasksCompleted: 0,
    costUsd: null,
    unpricedCalls: 2,
    cacheHitPercent: null,
    firstCompressCallIndex: 0,
    peakPromptTokens: 170000,
    promptTokens: 206000,
    completionTokens: 0,
    total: { calls: 2, promptTokens: 206000, completionTokens: 0, costUsd: null, unpricedCalls: 2 },
  },
};

describe('chartModelOfReplay', () => {
  it('puts a recorded compaction between the calls around it', () => {
    const model = chartModelOfReplay(replay);
    expect(model.markers).toEqual([
      { x: 0.5, type: 'compaction', label: 'Compaction (auto, 170,251 tokens before)' },
    ]);
  });

  it('has no scores and no thresholds: a replay answers none, the window is its line', () => {
    const model = chartModelOfReplay(replay);
    expect(hasScores(model)).toBe(false);
    expect(model).toMatchObject({ optimal: null, critical: null, contextWindow: 200000 });
  });

  it('draws the what-if prompt beside the recorded one, and each eviction before the call it preceded', () => {
    expect(hasWhatIf(chartModelOfReplay(replay))).toBe(false);
    const whatIf = {
      ...replay,
      calls: replay.calls.map((call, index) => ({
        ...call,
        whatIfPromptTokens: [120000, 36000][index] ?? null,
      })),
      whatIf: {
        real: { promptTokens: 206000, costUsd: 1, peakPromptTokens: 170000, compactions: 1 },
        policy: {
          promptTokens: 156000,
          costUsd: 0.8,
          peakPromptTokens: 120000,
          compactions: 0,
          evictions: 1,
          trimmedAtArrival: 0,
          archivedItems: 3,
          archivedBytes: 9000,
          rereads: 0,
          rereadTokens: 0,
          quotedRereads: 0,
          recaps: 0,
          callsAboveCompactionPoint: 0,
        },
        savedPercent: 24.3,
        costSavedPercent: 20,
        archiveVerified: true,
        archiveFailures: [],
        compactionPoint: 167000,
        calibration: calibrationFixture(0.6, 2.6),
        evictions: [
          {
            beforeCallIndex: 1,
            taskId: 'subtask-1',
            boundary: 'command',
            detail: 'git commit',
            items: 3,
            bytes: 9000,
            tokensFreed: 50000,
            archive: '/api/v1/archives/whatif/subtask-1',
          },
        ],
        unpricedCalls: 0,
      },
    } satisfies ReplayResult;
    const model = chartModelOfReplay(whatIf);
    expect(hasWhatIf(model)).toBe(true);
    expect(model.points.map((point) => point.whatIfPromptTokens)).toEqual([120000, 36000]);
    expect(model.markers).toEqual([
      { x: 0.5, type: 'compaction', label: 'Compaction (auto, 170,251 tokens before)' },
      { x: 0.5, type: 'eviction', label: 'What-if eviction of subtask-1 (3 items, 50,000 tokens)' },
    ]);
    expect(describeChart(model)).toBe(
      "2 generations; peak prompt 170,000 tokens; with barometer's policy 120,000; last generation healthy; 1 compaction, 1 what-if eviction.",
    );
  });
});

describe('healthBands', () => {
  const at = (x: number, health: ChartPoint['health']): ChartPoint => ({
    x,
    health,
    timestamp: null,
    promptTokens: 1,
    regulatorLevel: null,
    viability: null,
    burnRate: null,
    countdown: null,
    reminder: false,
    action: null,
  });

  it('merges consecutive generations of one level into one band, half a step either side', () => {
    const points = [
      at(0, 'healthy'),
      at(1, 'healthy'),
      at(2, 'caution'),
      at(3, 'critical'),
      at(4, 'critical'),
    ];
    expect(healthBands(points)).toEqual([
      { from: -0.5, to: 1.5, level: 'healthy' },
      { from: 1.5, to: 2.5, level: 'caution' },
      { from: 2.5, to: 4.5, level: 'critical' },
    ]);
  });

  it('draws nothing for an empty timeline', () => {
    expect(healthBands([])).toEqual([]);
  });
});

describe('describeChart', () => {
  it('summarises generations, the peak, the last level and the markers', () => {
    expect(describeChart(chartModelOfSession(view()))).toBe(
      '3 generations; peak prompt 190,000 tokens; last generation critical; 1 compaction.',
    );
  });
});

describe('layoutMarkerLabels (chart marker labels do not overlap)', () => {
  it('keeps labels far apart on the first row', () => {
    expect(
      layoutMarkerLabels([
        { x: 0, width: 80 },
        { x: 200, width: 80 },
      ]),
    ).toEqual([0, 0]);
  });

  it('stacks labels that would overlap, and leaves out what fits in no row', () => {
    const labels = [0, 10, 20, 30].map((x) => ({ x, width: 80 }));
    expect(layoutMarkerLabels(labels, 3, 6)).toEqual([0, 1, 2, null]);
  });

  it('never places two labels of one row closer than the gap', () => {
    const labels = Array.from({ length: 40 }, (_, index) => ({ x: (index * 37) % 500, width: 70 }));
    const rows = layoutMarkerLabels(labels, 3, 6);
    for (let a = 0; a < labels.length; a++) {
      for (let b = 0; b < labels.length; b++) {
        if (a === b || rows[a] === null || rows[a] !== rows[b]) continue;
        const [left, right] =
          labels[a]!.x <= labels[b]!.x ? [labels[a]!, labels[b]!] : [labels[b]!, labels[a]!];
        expect(left.x + left.width + 6).toBeLessThanOrEqual(right.x);
      }
    }
  });
});
