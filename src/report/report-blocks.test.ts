import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatReportTable } from '../cli/format-report.js';
import { readTrace, TRACES } from '../usage/test-helpers/traces.js';
import type { LogReport, ReportSlot } from './log-report.js';
import { makeReport } from './make-report.js';
import { groupBlocks } from './report-blocks.js';

type Json = Record<string, unknown>;
const HOUR = 3_600_000;
const T0 = Date.parse('2024-01-01T10:00:00Z');

function slot(firstAt: number, lastAt = firstAt): ReportSlot {
  return {
    time: new Date(firstAt - (firstAt % (15 * 60_000))).toISOString(),
    firstAt: new Date(firstAt).toISOString(),
    lastAt: new Date(lastAt).toISOString(),
    model: 'claude-sonnet-4-5',
    calls: 1,
    inputTokens: 1000,
    outputTokens: 500,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.01,
    estimatedCostUsd: 0,
    unpricedCalls: 0,
    peakPromptTokens: 1000,
    cautionCalls: 0,
    criticalCalls: 0,
    streamedOutputTokens: 0,
    streamedCostUsd: 0,
  };
}

const LOG = {
  path: 'x',
  agent: 'claude-code',
  project: 'p',
  session: 's',
  slots: [],
  compactions: [],
  whatIf: null,
} as LogReport;
const starts = (times: number[]) =>
  groupBlocks(times.map((time) => ({ slot: slot(time), log: LOG }))).map((group) =>
    'gapFrom' in group
      ? `gap ${new Date(group.gapFrom).toISOString()}–${new Date(group.gapTo).toISOString()}`
      : `${new Date(group.start).toISOString()} ×${group.entries.length}`,
  );

// The rules of ccusage's identifySessionBlocks (ryoppippi/ccusage, src/_session-blocks.ts), as docs/rules.md states them.
describe('5-hour blocks as ccusage counts them', () => {
  it('puts calls within 5 hours of the block start in one block, starting at the first call floored to the UTC hour', () => {
    expect(starts([T0 + 0.9 * HOUR, T0 + 2 * HOUR, T0 + 4.9 * HOUR])).toEqual([
      '2024-01-01T10:00:00.000Z ×3',
    ]);
  });

  it('starts a new block for a call more than 5 hours after the block start, with no gap when calls kept coming', () => {
    expect(starts([T0 + 0.5 * HOUR, T0 + 3 * HOUR, T0 + 5.5 * HOUR])).toEqual([
      '2024-01-01T10:00:00.000Z ×2',
      '2024-01-01T15:00:00.000Z ×1',
    ]);
  });

  it('adds a gap block after more than 5 hours without calls, from the last call + 5 hours to the next call', () => {
    expect(starts([T0, T0 + 2 * HOUR, T0 + 8 * HOUR])).toEqual([
      '2024-01-01T10:00:00.000Z ×2',
      'gap 2024-01-01T17:00:00.000Z–2024-01-01T18:00:00.000Z',
      '2024-01-01T18:00:00.000Z ×1',
    ]);
  });

  it('measures a gap between real calls, not between quarter hours: 4 h 59 min is no gap', () => {
    // Calls at 10:14 and 15:13 (slots 10:00 and 15:00, 5 h apart): less than 5 hours of silence.
    const groups = groupBlocks([
      { slot: slot(T0 + 14 * 60_000), log: LOG },
      { slot: slot(T0 + 5 * HOUR + 13 * 60_000), log: LOG },
    ]);
    expect(groups.map((group) => ('gapFrom' in group ? 'gap' : 'block'))).toEqual(['block', 'block']);
  });
});

/** Every `rate_limits` figure of the rollouts, read straight from their lines. */
function recordedFigures(files: string[]): Array<{ at: number; id: string; used: number; resetsAt: number }> {
  const figures: Array<{ at: number; id: string; used: number; resetsAt: number }> = [];
  for (const file of files)
    for (const line of readTrace(file).split('\n')) {
      if (!line.includes('"rate_limits"')) continue;
      const record = JSON.parse(line) as Json;
      const limits = (record.payload as Json).rate_limits as Record<string, Json> | null;
      if (!limits) continue;
      for (const id of ['primary', 'secondary'])
        figures.push({
          at: Date.parse(record.timestamp as string),
          id,
          used: limits[id]?.used_percent as number,
          resetsAt: (limits[id]?.resets_at as number) * 1000,
        });
    }
  return figures.sort((a, b) => a.at - b.at);
}

describe('barometer report --view blocks on two Codex rollouts of one account', () => {
  const files = [
    'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
    'codex/rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl',
  ];
  const now = Date.parse('2026-02-24T12:30:00Z');
  const report = () =>
    makeReport(
      { view: 'blocks', timeZone: 'UTC', now },
      {
        roots: [],
        paths: files.map((file) => fileURLToPath(new URL(file, TRACES))),
        cacheFile: null,
        whatIf: false,
      },
    );

  it('shows the blocks with their burn and projection, and the windows the logs record in each', async () => {
    const result = await report();
    const blocks = result.blocks ?? [];
    expect(blocks.map((block) => [block.start, block.gap, block.active])).toEqual([
      ['2026-02-23T11:00:00.000Z', false, false],
      ['2026-02-23T18:00:00.000Z', false, false],
      // Silence from the last call (20:34:46Z) + 5 hours to the next call.
      ['2026-02-24T01:34:46.547Z', true, false],
      ['2026-02-24T08:00:00.000Z', false, true],
    ]);
    // One row per block with calls; every call of both rollouts in one of them (286 + 83).
    expect(result.rows.map((row) => row.key)).toEqual(
      blocks.filter((block) => !block.gap).map((block) => block.start),
    );
    expect(result.total.calls).toBe(286 + 83);
    // The active block's projection: its tokens (input + output) plus its burn until its end, 30 minutes on.
    const active = blocks.at(-1)!;
    const row = result.rows.at(-1)!;
    expect(active.projection?.remainingMinutes).toBe(30);
    expect(active.projection?.totalTokens).toBe(
      Math.round(row.inputTokens + row.outputTokens + (active.burn?.tokensPerMinute ?? 0) * 30),
    );
    expect(active.projection?.totalCostUsd).toBe(
      Math.round((row.costUsd + ((active.burn?.costPerHour ?? 0) / 60) * 30) * 100) / 100,
    );
    // Each block's windows: the last figure the logs record within its 5 hours.
    const figures = recordedFigures(files);
    for (const block of blocks.filter((one) => !one.gap)) {
      const within = figures.filter(
        (figure) => figure.at >= Date.parse(block.start) && figure.at < Date.parse(block.end),
      );
      for (const window of block.windows) {
        const last = within.filter((figure) => figure.id === window.id).at(-1);
        expect([window.usedPercent, Date.parse(window.resetsAt ?? '')]).toEqual([last?.used, last?.resetsAt]);
      }
      expect(block.windows.map((window) => window.label)).toEqual(['5h', '7d']);
    }
    const table = formatReportTable(result);
    expect(table).toContain('2026-02-23 11:00–16:00Z  ended');
    expect(table).toContain('5h 27% resets 16:40Z · 7d 8%');
    expect(table).toMatch(/2026-02-24 08:00–13:00Z {2}active .* in 30 min {2}5h 25% resets 13:16Z · 7d 20%/);
  });
});
