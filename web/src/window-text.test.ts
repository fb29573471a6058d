import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/contract/index.js';
import { accountWindows, type WindowView, windowLine, windowPace, windowShare } from './window-text.js';

function window(overrides: Partial<WindowView>): WindowView {
  return {
    id: 'five_hour',
    label: '5h',
    source: 'headers',
    status: null,
    usedPercent: 60,
    leftPercent: 40,
    resetsAt: '2026-12-03T12:00:00.000Z',
    windowMinutes: 300,
    at: '2026-12-03T10:40:00.000Z',
    burnPercentPerHour: 44.62,
    burnBasis: 'recent',
    minutesRemaining: 53.8,
    runsOutAt: '2026-12-03T11:33:47.000Z',
    minutesToReset: 80,
    bindsBeforeReset: true,
    exhausted: false,
    pauseMinutes: 26.2,
    thresholds: [],
    sessionPercent: 26,
    ...overrides,
  };
}

const session = (id: string, windows: WindowView[]) =>
  ({ id, signals: { windows } }) as unknown as SessionView;

describe('window text', () => {
  it("names the session's share and, where the proxy told them apart, its sub-agents' shares, largest first", () => {
    expect(windowShare(window({}))).toBe('this session burnt 26% of the 5h window');
    expect(
      windowShare(
        window({
          subAgentPercents: [
            { agentId: 'agent-explore', percent: 15 },
            { agentId: 'agent-review', percent: 8 },
          ],
        }),
      ),
    ).toBe('this session burnt 26% of the 5h window (sub-agent agent-explore 15%, agent-review 8%)');
  });

  it('says when a binding window runs out and resets, and that a lasting one lasts', () => {
    process.env.TZ = 'UTC';
    expect(windowLine(window({}))).toBe('5h 60% · runs out 11:33 · resets 12:00');
    expect(windowLine(window({ bindsBeforeReset: false }))).toBe('5h 60% · lasts until its reset at 12:00');
    expect(windowLine(window({ exhausted: true, usedPercent: 100 }))).toBe('5h 100% · spent · resets 12:00');
    expect(windowPace(window({ burnBasis: 'window', burnPercentPerHour: 16 }))).toBe(
      '16%/h since the window began',
    );
    expect(windowPace(window({ burnPercentPerHour: null }))).toBe('pace not measured yet');
  });

  it('takes each window from the newest figure and lists the sessions’ shares of that period, largest first', () => {
    const older = window({ at: '2026-12-03T10:30:00.000Z', usedPercent: 35, sessionPercent: 4 });
    const lastPeriod = window({ resetsAt: '2026-12-03T07:00:00.000Z', sessionPercent: 50 });
    const answer = accountWindows([
      session('alpha', [older]),
      session('beta', [window({})]),
      session('gamma', [lastPeriod]),
    ]);
    expect(answer.map(({ window: shown, shares }) => [shown.usedPercent, shares])).toEqual([
      [
        60,
        [
          { id: 'beta', percent: 26 },
          { id: 'alpha', percent: 4 },
        ],
      ],
    ]);
  });
});
