import { describe, expect, it } from 'vitest';
import { SessionMonitor } from './session-monitor.js';
import type { UsageUpdate } from './session-options.js';

const T0 = Date.parse('2026-12-02T09:00:00Z');
const MINUTE = 60_000;
const RESET_SECONDS = (T0 + 210 * MINUTE) / 1000;

function call(minute: number, fiveHourFraction: number, extra: Record<string, string> = {}): UsageUpdate {
  return {
    timestamp: T0 + minute * MINUTE,
    usage: {
      available: true,
      source: 'anthropic',
      model: 'claude-sonnet-4-5',
      promptTokens: 20_000,
      completionTokens: 500,
      totalTokens: 20_500,
      cachedReadTokens: 18_000,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
    },
    headers: {
      'anthropic-ratelimit-unified-status': 'allowed',
      'anthropic-ratelimit-unified-5h-utilization': String(fiveHourFraction),
      'anthropic-ratelimit-unified-5h-reset': String(RESET_SECONDS),
      'anthropic-ratelimit-unified-7d-utilization': '0.2',
      'anthropic-ratelimit-unified-7d-reset': String(RESET_SECONDS + 4 * 86_400),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      ...extra,
    },
  };
}

function monitor(): SessionMonitor {
  let id = 0;
  return new SessionMonitor({
    now: () => T0 + 200 * MINUTE,
    clockSkewMs: 86_400_000,
    generateId: () => `s${++id}`,
  });
}

describe('a session with subscription windows', () => {
  it('says wait, with the time, when the 5-hour window will run out before its reset at the measured pace', async () => {
    const sessions = monitor();
    await sessions.create({ model: 'claude-sonnet-4-5', id: 'a' });
    await sessions.postUsage('a', call(0, 0.2));
    const answer = await sessions.postUsage('a', call(30, 0.35));
    // 20% → 35% in 30 min: 30%/h; 65% left lasts 130 min, the reset is 180 min away: a 50-minute pause.
    expect(answer.verdict.action).toBe('wait');
    expect(answer.verdict.windowWait).toEqual({
      window: 'five_hour',
      seconds: 3000,
      until: new Date(T0 + 80 * MINUTE).toISOString(),
    });
    // The per-minute quotas' wait (which a proxy may hold a request for) is not the window's.
    expect(answer.verdict.waitSeconds).toBeNull();
    const reason = answer.verdict.reasons.find((one) => one.model === 'window');
    expect(reason?.reason).toContain('5h window 35% used at 30%/h recently: runs out 11:40Z, resets 12:30Z');
    const view = await sessions.view('a');
    const fiveHour = view.signals.windows?.find((window) => window.id === 'five_hour');
    expect(fiveHour).toMatchObject({
      label: '5h',
      usedPercent: 35,
      burnPercentPerHour: 30,
      minutesRemaining: 130,
      runsOutAt: new Date(T0 + 160 * MINUTE).toISOString(),
      resetsAt: new Date(RESET_SECONDS * 1000).toISOString(),
      bindsBeforeReset: true,
      sessionPercent: 15,
    });
  });

  it('never says wait when the window lasts until its reset at the measured pace', async () => {
    const sessions = monitor();
    await sessions.create({ model: 'claude-sonnet-4-5', id: 'a' });
    await sessions.postUsage('a', call(0, 0.2));
    const answer = await sessions.postUsage('a', call(30, 0.23));
    expect(answer.verdict.action).not.toBe('wait');
    expect(answer.verdict.windowWait).toBeNull();
    expect(answer.verdict.reasons.find((one) => one.model === 'window')?.action).toBe('continue');
  });

  it("credits each session with its own rises of the window, the proxy's view of every session", async () => {
    const sessions = monitor();
    await sessions.create({ model: 'claude-sonnet-4-5', id: 'parent' });
    await sessions.create({ model: 'claude-sonnet-4-5', id: 'sub' });
    await sessions.postUsage('parent', call(0, 0.1));
    await sessions.postUsage('sub', call(1, 0.14));
    await sessions.postUsage('sub', call(2, 0.2));
    await sessions.postUsage('parent', call(3, 0.22));
    const parent = (await sessions.view('parent')).signals.windows?.find(
      (window) => window.id === 'five_hour',
    );
    const sub = (await sessions.view('sub')).signals.windows?.find((window) => window.id === 'five_hour');
    // The first figure (10%) is nobody's; the sub-agent took it to 20% (10 points), the parent from 20% to 22%.
    expect(sub?.sessionPercent).toBe(10);
    expect(parent?.sessionPercent).toBe(2);
  });

  it('emits window_threshold once as the window crosses 90% and once when it binds', async () => {
    const sessions = monitor();
    const seen: string[] = [];
    sessions.subscribe((event) => {
      if (event.type === 'changed')
        for (const change of event.events)
          if (change.type === 'window_threshold') seen.push(change.threshold);
    });
    await sessions.create({ model: 'claude-sonnet-4-5', id: 'a' });
    await sessions.postUsage('a', call(0, 0.85));
    await sessions.postUsage('a', call(10, 0.91));
    await sessions.postUsage('a', call(20, 0.92));
    expect(seen).toEqual(['binds', 'used_90_percent']);
  });

  it("takes the status line's or a log's windows from the update itself", async () => {
    const sessions = monitor();
    await sessions.create({ model: 'claude-sonnet-4-5', id: 'a' });
    const { headers: _headers, ...bare } = call(0, 0);
    await sessions.postUsage('a', {
      ...bare,
      windows: [
        {
          id: 'primary',
          usedPercent: 13,
          resetsAt: T0 + 100 * MINUTE,
          windowMinutes: 300,
          status: null,
          source: 'log',
          at: T0,
        },
      ],
    });
    const windows = (await sessions.view('a')).signals.windows;
    expect(windows?.map((window) => [window.label, window.source, window.usedPercent])).toEqual([
      ['5h', 'log', 13],
    ]);
  });
});
