import { describe, expect, it } from 'vitest';
import { readCodexLog } from '../usage/read-codex-log.js';
import { readTrace } from '../usage/test-helpers/traces.js';
import { replayLogText } from './replay.js';

// Two Codex rollouts of one account that ran at the same time (test/fixtures/traces/SOURCES.md).
const LONG = 'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const SHORT = 'codex/rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl';

type Json = Record<string, unknown>;

/** Every `rate_limits` figure of a rollout, read straight from its lines (not through barometer's reader). */
function recordedFigures(file: string): Array<{ at: number; id: string; used: number; resetsAt: number }> {
  const figures: Array<{ at: number; id: string; used: number; resetsAt: number }> = [];
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
  return figures;
}

describe('a Codex rollout’s rate_limits', () => {
  it('go with each call as the latest figure of each window since the call before', () => {
    const log = readCodexLog(readTrace(LONG));
    const first = log.calls[0]?.windows;
    // The first call's own event says 13% of the 5-hour window, 4% of the week (the next event says 14%).
    expect(
      first?.map(({ id, usedPercent, windowMinutes, source }) => ({
        id,
        usedPercent,
        windowMinutes,
        source,
      })),
    ).toEqual([
      { id: 'primary', usedPercent: 13, windowMinutes: 300, source: 'log' },
      { id: 'secondary', usedPercent: 4, windowMinutes: 10_080, source: 'log' },
    ]);
    expect(first?.[0]?.resetsAt).toBe(1_771_864_834_000);
    expect(log.calls.every((call) => call.windows?.length === 2)).toBe(true);
  });
});

describe('replaying a Codex rollout with its windows', () => {
  const figures = recordedFigures(LONG);
  const result = replayLogText(readTrace(LONG));

  it('shows at each call the figures the log records, each with its burn and forecast', () => {
    let checked = 0;
    for (const call of result.calls) {
      const at = Date.parse(call.timestamp);
      for (const window of call.windows ?? []) {
        // The log's last figure of this window at or before the call.
        const recorded = figures.filter((figure) => figure.id === window.id && figure.at <= at).at(-1);
        expect(window.usedPercent).toBe(recorded?.used);
        expect(Date.parse(window.resetsAt ?? '')).toBe(recorded?.resetsAt);
        checked++;
      }
    }
    expect(checked).toBe(2 * 286);
    expect(result.calls[0]?.windows?.map((window) => window.label)).toEqual(['5h', '7d']);
  });

  it('checks each call’s forecast against what the log shows later', () => {
    let lasts = 0;
    let projected = 0;
    let errorSum = 0;
    const binding: string[] = [];
    for (const call of result.calls) {
      const at = Date.parse(call.timestamp);
      const five = call.windows?.find((window) => window.id === 'primary');
      if (five === undefined) continue;
      const reset = Date.parse(five.resetsAt ?? '');
      // What the log shows later in the same period (up to its reset): the figures after this call.
      const later = figures.filter(
        (figure) => figure.id === 'primary' && figure.at > at && Math.abs(figure.resetsAt - reset) < 180_000,
      );
      const spentLater = later.some((figure) => figure.used >= 100);
      if (five.bindsBeforeReset) binding.push(call.timestamp);
      else {
        // A forecast that the window lasts: the log confirms it, the window never ran out before its reset.
        expect(spentLater).toBe(false);
        lasts++;
      }
      // The verdict waits exactly when the 5-hour window binds.
      expect(call.action === 'wait').toBe(five.bindsBeforeReset);
      // The pace projected to the period's last figure, beside what the log then says (printed, not a rule).
      const last = later.at(-1);
      if (last !== undefined && five.burnPercentPerHour !== null) {
        projected++;
        const hours = (last.at - at) / 3_600_000;
        errorSum += Math.abs(Math.min(100, five.usedPercent + five.burnPercentPerHour * hours) - last.used);
      }
    }
    // The account burnt 13–15% in the window's first 15 minutes (it began 11:40:34; the other rollout ran too): at
    // that pace it would run out by 14:45, before its 16:40 reset; the log shows the pace fell (27% at the reset).
    // Those 4 calls are the only ones forecast to bind; the burn is never read over seconds (13% → 14% in 9 s).
    expect(binding).toEqual([
      '2026-02-23T11:54:58.922Z',
      '2026-02-23T11:55:07.795Z',
      '2026-02-23T11:55:14.212Z',
      '2026-02-23T11:55:19.081Z',
    ]);
    expect(lasts).toBe(282);
    console.log(
      `codex rollout: ${lasts + binding.length} forecasts of the 5-hour window; ${lasts} said it lasts and the log confirms each; ${binding.length} said it binds (the period's first 15 minutes) and the log shows the pace fell; the pace projected to each period's last figure errs by ${(errorSum / projected).toFixed(1)} points on average (${projected} projections)`,
    );
  });

  it('starts a new period at each reset the log records', () => {
    const resets = new Set(
      result.calls.flatMap((call) =>
        (call.windows ?? []).filter((window) => window.id === 'primary').map((window) => window.resetsAt),
      ),
    );
    // Three periods, as the log's resets_at say (Codex states a reset a few seconds apart from event to event).
    const recorded = new Set(
      figures
        .filter((figure) => figure.id === 'primary')
        .map((figure) => new Date(figure.resetsAt).toISOString()),
    );
    expect(resets).toEqual(recorded);
    const minutes = [...resets].map((reset) => reset?.slice(0, 16));
    expect(new Set(minutes)).toEqual(
      new Set([
        '2026-02-23T16:40',
        '2026-02-23T23:47',
        '2026-02-23T23:48',
        '2026-02-24T13:16',
        '2026-02-24T13:17',
      ]),
    );
  });

  it('reads the other rollout of the same account in the same 5-hour period', () => {
    const other = replayLogText(readTrace(SHORT));
    const windows = other.calls.flatMap((call) => call.windows ?? []);
    expect(new Set(windows.filter((w) => w.id === 'primary').map((w) => w.resetsAt))).toEqual(
      new Set(['2026-02-23T16:40:34.000Z']),
    );
    expect(other.calls.at(-1)?.windows?.find((w) => w.id === 'primary')?.usedPercent).toBe(24);
  });
});
