import { describe, expect, it } from 'vitest';
import { aggregateReport } from './aggregate-report.js';
import { dayOf } from './day-of.js';
import type { LogReport, ReportCall } from './log-report.js';
import { reportSlots } from './report-slots.js';

const utc = dayOf('UTC');

function call(time: string, model: string, figures: Partial<ReportCall> = {}): ReportCall {
  return {
    time,
    model,
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 100,
    cacheWriteTokens: 20,
    costUsd: 1,
    estimated: false,
    promptTokens: 130,
    health: 'healthy',
    streamedOutputTokens: 0,
    streamedCostUsd: 0,
    ...figures,
  };
}

const alpha: LogReport = {
  path: '/logs/a.jsonl',
  agent: 'claude-code',
  project: 'alpha',
  session: 'a',
  slots: reportSlots([
    call('2026-01-01T10:00:00Z', 'opus'),
    call('2026-01-01T23:59:59Z', 'opus', { health: 'caution', promptTokens: 150_000, costUsd: 2 }),
    call('2026-01-02T00:00:01Z', 'sonnet', { health: 'critical', promptTokens: 190_000, costUsd: null }),
  ]),
  compactions: [
    { time: '2026-01-01T23:00:00Z', kind: 'auto' },
    { time: '2026-01-02T00:30:00Z', kind: 'manual' },
  ],
  whatIf: { savedPromptTokens: 1000, savedCostUsd: 0.5, compactionsAvoided: 1 },
};
const beta: LogReport = {
  path: '/logs/b.jsonl',
  agent: 'codex',
  project: 'beta',
  session: 'b',
  slots: reportSlots([call('2026-01-02T12:00:00Z', 'gpt', { costUsd: 4 })]),
  compactions: [],
  whatIf: null,
};

describe('aggregateReport', () => {
  it('puts each call, compaction and what-if on its day, with a total row', () => {
    const report = aggregateReport([alpha, beta], 'daily', {}, utc);
    expect(report.rows.map((row) => [row.key, row.calls, row.costUsd, row.unpricedCalls])).toEqual([
      ['2026-01-01', 2, 3, 0],
      ['2026-01-02', 2, 4, 1],
    ]);
    const [first, second] = report.rows;
    expect([first!.autoCompactions, first!.manualCompactions, second!.manualCompactions]).toEqual([1, 0, 1]);
    // The what-if of a session counts once, on the day of its first call.
    expect(first!.whatIf).toEqual({
      sessions: 1,
      savedPromptTokens: 1000,
      savedCostUsd: 0.5,
      compactionsAvoided: 1,
    });
    expect(second!.whatIf.sessions).toBe(0);
    expect(first!.cautionPercent).toBe(50);
    expect(second!.criticalPercent).toBe(50);
    expect(report.total).toMatchObject({
      key: 'total',
      calls: 4,
      inputTokens: 40,
      outputTokens: 20,
      cacheReadTokens: 400,
      cacheWriteTokens: 80,
      costUsd: 7,
      unpricedCalls: 1,
      peakPromptTokens: 190_000,
      cautionPercent: 25,
      criticalPercent: 25,
      agents: ['claude-code', 'codex'],
      firstDay: '2026-01-01',
      lastDay: '2026-01-02',
    });
  });

  it('groups by session, project and model, the costliest first', () => {
    expect(aggregateReport([alpha, beta], 'session', {}, utc).rows.map((row) => row.key)).toEqual(['b', 'a']);
    expect(aggregateReport([alpha, beta], 'project', {}, utc).rows.map((row) => row.key)).toEqual([
      'beta',
      'alpha',
    ]);
    const models = aggregateReport([alpha, beta], 'model', {}, utc);
    expect(models.rows.map((row) => [row.key, row.calls])).toEqual([
      ['gpt', 1],
      ['opus', 2],
      ['sonnet', 1],
    ]);
    // Compactions and the what-if go to the model the session mostly ran on.
    expect(models.rows[1]!.autoCompactions + models.rows[1]!.manualCompactions).toBe(2);
    expect(models.rows[1]!.whatIf.sessions).toBe(1);
  });

  it('narrows by day range, project and agent', () => {
    const since = aggregateReport([alpha, beta], 'daily', { since: '2026-01-02' }, utc);
    expect(since.total.calls).toBe(2);
    // The session's first call in range is on 2026-01-02: its what-if counts there.
    expect(since.rows[0]!.whatIf.sessions).toBe(1);
    expect(aggregateReport([alpha, beta], 'daily', { until: '2026-01-01' }, utc).total.calls).toBe(2);
    expect(
      aggregateReport([alpha, beta], 'session', { project: 'beta' }, utc).rows.map((row) => row.key),
    ).toEqual(['b']);
    expect(aggregateReport([alpha, beta], 'session', { agent: 'claude-code' }, utc).total.calls).toBe(3);
    expect(aggregateReport([alpha, beta], 'daily', { since: '2027-01-01' }, utc)).toMatchObject({
      rows: [],
      total: { calls: 0, costUsd: 0, peakPromptTokens: null },
    });
  });

  it('counts days in the time zone asked for', () => {
    const tokyo = aggregateReport([alpha], 'daily', {}, dayOf('Asia/Tokyo'));
    // 10:00Z is 19:00 in Tokyo (Jan 1); 23:59:59Z and 00:00:01Z are Jan 2 there.
    expect(tokyo.rows.map((row) => [row.key, row.calls])).toEqual([
      ['2026-01-01', 1],
      ['2026-01-02', 2],
    ]);
  });
});
