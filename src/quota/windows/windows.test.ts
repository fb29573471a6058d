import { describe, expect, it } from 'vitest';
import { windowsFromCodex } from './codex-rate-limits.js';
import { StatuslineRateLimitsSchema, windowsFromStatusline } from './statusline-rate-limits.js';
import { readUnifiedHeaders } from './unified-headers.js';
import { type UsageWindow, windowLabel } from './usage-window.js';
import { windowAdvice } from './window-advice.js';
import { forecastWindow } from './window-forecast.js';
import { MAX_WINDOW_SAMPLES, trackWindows, type WindowTrack } from './window-track.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 11, 2, 9, 0, 0);

function fiveHour(at: number, usedPercent: number, resetsAt: number): UsageWindow {
  return { id: 'five_hour', usedPercent, resetsAt, windowMinutes: 300, status: null, source: 'headers', at };
}

describe('unified rate-limit headers', () => {
  it('reads the 5-hour and 7-day windows as Claude Code does: a fraction shown as a percentage, reset in epoch seconds', () => {
    const headers = new Map([
      ['anthropic-ratelimit-unified-status', 'allowed'],
      ['anthropic-ratelimit-unified-5h-utilization', '0.6234'],
      ['anthropic-ratelimit-unified-5h-reset', '1796205600'],
      ['anthropic-ratelimit-unified-5h-status', 'allowed_warning'],
      ['anthropic-ratelimit-unified-7d-utilization', '0.41'],
      ['anthropic-ratelimit-unified-7d-reset', '1796550000'],
      ['anthropic-ratelimit-unified-representative-claim', 'five_hour'],
      ['anthropic-ratelimit-unified-reset', '1796205600'],
    ]);
    const read = readUnifiedHeaders(headers, T0);
    // round(0.6234 × 1000) / 10 = 62.3 (Claude Code's status line figure).
    expect(read.windows).toEqual([
      {
        id: 'five_hour',
        usedPercent: 62.3,
        resetsAt: 1_796_205_600_000,
        windowMinutes: 300,
        status: 'allowed_warning',
        source: 'headers',
        at: T0,
      },
      {
        id: 'seven_day',
        usedPercent: 41,
        resetsAt: 1_796_550_000_000,
        windowMinutes: 10_080,
        status: null,
        source: 'headers',
        at: T0,
      },
    ]);
    expect(read.representativeClaim).toBe('five_hour');
    expect(read.status).toBe('allowed');
  });

  it('caps the share at 100 and ignores values that are not numbers', () => {
    const read = readUnifiedHeaders(
      new Map([
        ['anthropic-ratelimit-unified-5h-utilization', '1.07'],
        ['anthropic-ratelimit-unified-7d-utilization', 'n/a'],
      ]),
      T0,
    );
    expect(read.windows.map((window) => [window.id, window.usedPercent, window.resetsAt])).toEqual([
      ['five_hour', 100, null],
    ]);
  });

  it('makes a model-scoped weekly window of a rejection that names it', () => {
    const read = readUnifiedHeaders(
      new Map([
        ['anthropic-ratelimit-unified-status', 'rejected'],
        ['anthropic-ratelimit-unified-representative-claim', 'seven_day_opus'],
        ['anthropic-ratelimit-unified-reset', '1796550000'],
      ]),
      T0,
    );
    expect(read.windows).toEqual([
      {
        id: 'seven_day_opus',
        usedPercent: 100,
        resetsAt: 1_796_550_000_000,
        windowMinutes: 10_080,
        status: 'rejected',
        source: 'headers',
        at: T0,
      },
    ]);
    expect(windowLabel(read.windows[0]!)).toBe('7d opus');
  });
});

describe('status line and Codex windows', () => {
  it("reads the status line's rate_limits (used_percentage 0-100, resets_at in epoch seconds)", () => {
    const parsed = StatuslineRateLimitsSchema.parse({
      five_hour: { used_percentage: 23.5, resets_at: 1738425600 },
      seven_day: { used_percentage: 41.2, resets_at: 1738857600 },
    });
    const windows = windowsFromStatusline(parsed, T0);
    expect(windows.map((window) => [windowLabel(window), window.usedPercent, window.resetsAt])).toEqual([
      ['5h', 23.5, 1_738_425_600_000],
      ['7d', 41.2, 1_738_857_600_000],
    ]);
  });

  it('reads a Codex rollout event (copied from test/fixtures/codex-windows) and the older resets_in_seconds', () => {
    const windows = windowsFromCodex(
      {
        limit_id: 'codex',
        primary: { used_percent: 13.0, window_minutes: 300, resets_at: 1771864834 },
        secondary: { used_percent: 4.0, window_minutes: 10080, resets_at: 1772355702 },
      },
      T0,
    );
    expect(
      windows.map((window) => [window.id, windowLabel(window), window.usedPercent, window.resetsAt]),
    ).toEqual([
      ['primary', '5h', 13, 1_771_864_834_000],
      ['secondary', '7d', 4, 1_772_355_702_000],
    ]);
    expect(windowsFromCodex({ primary: { used_percent: 5, resets_in_seconds: 60 } }, T0)[0]?.resetsAt).toBe(
      T0 + 60_000,
    );
    expect(windowsFromCodex({ primary: { used_percent: 'x' } }, T0)).toEqual([]);
    expect(windowsFromCodex(null, T0)).toEqual([]);
  });
});

describe('window forecast', () => {
  const reset = T0 + 210 * MINUTE;
  function track(points: Array<[number, number]>, resetsAt = reset): WindowTrack {
    let tracks: WindowTrack[] = [];
    for (const [minute, used] of points)
      tracks = trackWindows(tracks, [fiveHour(T0 + minute * MINUTE, used, resetsAt)]);
    return tracks[0]!;
  }

  it('forecasts the run-out from the recent burn and says it binds before the reset, with the pause that avoids it', () => {
    // 20% → 35% in 30 minutes: 30%/h, 0.5%/min; 65% left → 130 minutes; the reset is 180 minutes away.
    const forecast = forecastWindow(
      track([
        [0, 20],
        [30, 35],
      ]),
    );
    expect(forecast.burnPercentPerHour).toBe(30);
    expect(forecast.burnBasis).toBe('recent');
    expect(forecast.minutesRemaining).toBe(130);
    expect(forecast.runsOutAt).toBe(T0 + 160 * MINUTE);
    expect(forecast.minutesToReset).toBe(180);
    expect(forecast.bindsBeforeReset).toBe(true);
    expect(forecast.pauseMinutes).toBe(50);
    expect(forecast.thresholds).toEqual([]);
    const advice = windowAdvice([forecast]);
    expect(advice?.action).toBe('wait');
    expect(advice?.wait).toEqual({ id: 'five_hour', seconds: 3000, until: T0 + 80 * MINUTE });
    expect(advice?.reason).toContain('runs out 11:40Z');
    expect(advice?.reason).toContain('resets 12:30Z');
  });

  it('does not bind, and says continue, when the window lasts until its reset at the pace measured', () => {
    // 20% → 23% in 30 minutes: 6%/h; 77% left → 770 minutes, the reset in 180.
    const forecast = forecastWindow(
      track([
        [0, 20],
        [30, 23],
      ]),
    );
    expect(forecast.minutesRemaining).toBe(770);
    expect(forecast.bindsBeforeReset).toBe(false);
    expect(forecast.pauseMinutes).toBe(0);
    expect(windowAdvice([forecast])).toMatchObject({ action: 'continue', wait: null });
  });

  it('measures the burn from the last figure before the lookback (a tenth of the window), not the first', () => {
    // Lookback 30 min: at minute 90 the reference is minute 60 (40%), not minute 0.
    const forecast = forecastWindow(
      track(
        [
          [0, 10],
          [60, 40],
          [75, 41],
          [90, 43],
        ],
        T0 + 300 * MINUTE,
      ),
    );
    expect(forecast.burnPercentPerHour).toBe(6);
  });

  it('never reads the burn over less than the lookback: one whole point seconds later is not hundreds of percent an hour', () => {
    // A Codex rollout's figures (test/fixtures/traces/codex): 13% then 14% nine seconds later, in a window that began
    // 14 minutes before. Over 9 s that is 400%/h; over the 30-minute lookback, all 14 points of the young window: 28%/h.
    const young = forecastWindow(
      track(
        [
          [0, 13],
          [0.15, 14],
        ],
        T0 + 286 * MINUTE,
      ),
    );
    expect(young.burnBasis).toBe('recent');
    expect(young.burnPercentPerHour).toBe(28);
    // Joined mid-window (it began 90 minutes before): the change since the first figure, over the lookback.
    const joined = forecastWindow(
      track([
        [0, 30],
        [1, 31],
      ]),
    );
    expect(joined.burnPercentPerHour).toBe(2);
    expect(joined.bindsBeforeReset).toBe(false);
  });

  it('falls back to the average since the window began when one figure is all there is', () => {
    // Reset at 210 min → began at -90 min; 30% in 90 min = 20%/h; 70% left → 210 min: exactly at the reset, no bind.
    const forecast = forecastWindow(track([[0, 30]]));
    expect(forecast.burnBasis).toBe('window');
    expect(forecast.burnPercentPerHour).toBe(20);
    expect(forecast.minutesRemaining).toBe(210);
    expect(forecast.bindsBeforeReset).toBe(false);
  });

  it('flags the budget tiers and eol_approaching as seed 000 does, and waits out a spent window until its reset', () => {
    const nearly = forecastWindow(
      track([
        [0, 80],
        [30, 96],
      ]),
    );
    // 32%/h; 4% left → 7.5 minutes.
    expect(nearly.thresholds).toEqual(['token_budget_5_percent', 'eol_approaching']);
    expect(
      forecastWindow(
        track([
          [0, 80],
          [30, 91],
        ]),
      ).thresholds,
    ).toContain('token_budget_10_percent');
    const spent = forecastWindow(
      track([
        [0, 90],
        [30, 100],
      ]),
    );
    expect(spent.exhausted).toBe(true);
    expect(spent.pauseMinutes).toBe(180);
    expect(windowAdvice([spent])).toMatchObject({
      action: 'wait',
      priority: 'urgent',
      wait: { seconds: 10_800 },
    });
  });

  it('asks to optimize, not to wait days, when a weekly window binds', () => {
    const weekly: UsageWindow = {
      id: 'seven_day',
      usedPercent: 50,
      resetsAt: T0 + 5 * 1440 * MINUTE,
      windowMinutes: 10_080,
      status: null,
      source: 'statusline',
      at: T0,
    };
    // Began 2 days ago: 25%/day → 2 more days to 100%, the reset in 5.
    const forecast = forecastWindow(trackWindows([], [weekly])[0]!);
    expect(forecast.bindsBeforeReset).toBe(true);
    expect(windowAdvice([forecast])).toMatchObject({ action: 'optimize', wait: null });
  });
});

describe('window tracks', () => {
  it('starts a new period at a later reset, and keeps one across a small drift of the stated reset', () => {
    let tracks = trackWindows([], [fiveHour(T0, 10, T0 + 100 * MINUTE)]);
    tracks = trackWindows(tracks, [fiveHour(T0 + MINUTE, 12, T0 + 100 * MINUTE + 5_000)]);
    expect(tracks[0]?.samples).toHaveLength(2);
    tracks = trackWindows(tracks, [fiveHour(T0 + 101 * MINUTE, 1, T0 + 401 * MINUTE)]);
    expect(tracks[0]?.samples).toEqual([[T0 + 101 * MINUTE, 1]]);
  });

  it("credits a session with each rise over the account's last figure, and nothing for a period's first figure", () => {
    const reset = T0 + 200 * MINUTE;
    const mine = trackWindows([], [fiveHour(T0, 30, reset)]);
    expect(mine[0]?.sessionPercent).toBe(0);
    // Another session took the window to 36%; this one's next answer says 40%: 4 points are this session's.
    const account = trackWindows([], [fiveHour(T0 + MINUTE, 36, reset)]);
    const after = trackWindows(mine, [fiveHour(T0 + 2 * MINUTE, 40, reset)], account);
    expect(after[0]?.sessionPercent).toBe(4);
    // Alone (no account figure): its rise over its own last one.
    expect(trackWindows(after, [fiveHour(T0 + 3 * MINUTE, 41.5, reset)])[0]?.sessionPercent).toBe(5.5);
  });

  it('keeps at most MAX_WINDOW_SAMPLES samples, the first and the newest', () => {
    let tracks: WindowTrack[] = [];
    for (let minute = 0; minute < 200; minute++)
      tracks = trackWindows(tracks, [fiveHour(T0 + minute * MINUTE, minute / 4, T0 + 300 * MINUTE)]);
    const samples = tracks[0]!.samples;
    expect(samples).toHaveLength(MAX_WINDOW_SAMPLES);
    expect(samples[0]).toEqual([T0, 0]);
    expect(samples.at(-1)).toEqual([T0 + 199 * MINUTE, 49.75]);
  });
});
