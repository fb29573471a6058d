import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatStatusline } from '../cli/format-statusline.js';
import { BarometerValidationError } from '../errors/validation.js';
import { replayLogText } from '../session/replay.js';
import { Session } from '../session/session.js';
import { normalizeUsage } from '../usage/normalize-usage.js';
import { parseStatuslineInput, statuslineReport } from './claude-code-statusline.js';

const EXAMPLE = readFileSync(new URL('../../examples/statusline-input.json', import.meta.url), 'utf8');
const TRANSCRIPT = fileURLToPath(
  new URL(
    '../../test/fixtures/traces/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
    import.meta.url,
  ),
);
const plain = (_color: string, text: string) => text;

describe('statuslineReport', () => {
  it('takes the last call from context_window.current_usage and judges it as a Session of the model would', () => {
    const input = parseStatuslineInput(EXAMPLE);
    const report = statuslineReport(input);
    const session = new Session({ model: 'claude-opus-4-6', agent: 'claude-code' });
    const update = session.update({
      usage: normalizeUsage('anthropic', {
        model: 'claude-opus-4-6',
        usage: {
          input_tokens: 1204,
          output_tokens: 830,
          cache_creation_input_tokens: 2411,
          cache_read_input_tokens: 118000,
        },
      }),
    });
    expect(report).toEqual({
      model: 'claude-opus-4-6',
      health: update.health.level,
      promptTokens: 121_615,
      window: 167_000,
      percentOfWindow: update.signals.percentOfWindow,
      action: update.verdict.action,
      newRoundDue: false,
      // The sample's transcript is not on this machine: no cost to show (never Claude Code's `total_cost_usd`).
      costUsd: null,
      source: 'context_window',
      // No `rate_limits` in this input (an API-key user's): no windows.
      windows: [],
      windowWait: null,
    });
    expect(report.health).toBe('caution');
    expect(report.action).toBe('compress');
    expect(formatStatusline(report, plain)).toBe('● 73% of 167k · 121,615 tokens · compress');
  });

  it("reads the transcript's last call when context_window is absent (older Claude Code versions)", () => {
    const input = parseStatuslineInput(
      JSON.stringify({
        model: { id: 'claude-opus-4-6' },
        transcript_path: TRANSCRIPT,
        cost: { total_cost_usd: 9.5 },
      }),
    );
    const report = statuslineReport(input);
    const replay = replayLogText(readFileSync(TRANSCRIPT, 'utf8'));
    expect(report.source).toBe('transcript');
    expect(report.promptTokens).toBe(replay.calls.at(-1)!.promptTokens);
    expect(report.health).toBe('caution');
    // The cost is barometer's price of every call of the transcript (its sub-agents' included), as replay gives it.
    expect(report.costUsd).not.toBe(9.5);
    const withSubagent = replayLogText(readFileSync(TRANSCRIPT, 'utf8'), {
      subagents: [
        {
          name: 'agent-acompact-e1f845.jsonl',
          text: readFileSync(
            TRANSCRIPT.replace(/\.jsonl$/, '/subagents/agent-acompact-e1f845.jsonl'),
            'utf8',
          ),
        },
      ],
    });
    expect(withSubagent.summary.total.costUsd).toBeGreaterThan(replay.summary.total.costUsd!);
    expect(report.costUsd).toBeCloseTo(withSubagent.summary.total.costUsd ?? Number.NaN, 9);
  });

  it('also reads the transcript when context_window has no current_usage yet, and says when there is no usage at all', () => {
    const none = statuslineReport(
      parseStatuslineInput(
        JSON.stringify({
          model: { id: 'claude-sonnet-4-5' },
          context_window: { context_window_size: 200000, current_usage: null },
        }),
      ),
    );
    expect(none).toMatchObject({
      health: 'unknown',
      promptTokens: null,
      action: null,
      source: 'none',
      costUsd: null,
    });
    expect(formatStatusline(none, plain)).toBe('● — of 167k · no usage yet');
  });

  it("measures a model the registry does not know against the window Claude Code states, narrowed by the agent's rule", () => {
    const report = statuslineReport(
      parseStatuslineInput(
        JSON.stringify({
          model: { id: 'claude-future-9' },
          context_window: {
            context_window_size: 200000,
            current_usage: { input_tokens: 5000, output_tokens: 10 },
          },
        }),
      ),
    );
    expect(report.window).toBe(167_000);
    expect(report.health).toBe('healthy');
  });

  it("measures Claude Code's default claude-opus-5-5 without a stated window: its family's estimate, Claude Code's rule", () => {
    // Regression (issue 37): with no context_window (older versions, or before the first call) the status line of a
    // model the registry does not list failed (unknown model) instead of showing anything.
    const report = statuslineReport(
      parseStatuslineInput(JSON.stringify({ model: { id: 'claude-opus-5-5' } })),
    );
    // claude-opus-4-8's 1M window (the family estimate) under Claude Code's 200K cap, less its 33,000.
    expect(report).toMatchObject({ window: 167_000, health: 'unknown', source: 'none' });
    const stated = statuslineReport(
      parseStatuslineInput(
        JSON.stringify({
          model: { id: 'claude-opus-5-5' },
          context_window: { context_window_size: 1000000, current_usage: { input_tokens: 300_000 } },
        }),
      ),
    );
    // The 1M Claude Code states wins over the estimate, as a stated window: no 200K cap.
    expect(stated).toMatchObject({ window: 967_000, health: 'caution' });
  });

  it('honours the [1m] opt-in of a model listed at 1M', () => {
    const report = statuslineReport(
      parseStatuslineInput(
        JSON.stringify({
          model: { id: 'claude-opus-4-6[1m]' },
          context_window: {
            context_window_size: 1000000,
            current_usage: { input_tokens: 10, cache_read_input_tokens: 400000, output_tokens: 1 },
          },
        }),
      ),
    );
    expect(report.window).toBe(967_000);
    expect(report.health).toBe('caution');
  });

  it('names the field when the input is not the status line JSON', () => {
    expect(() => parseStatuslineInput('not json')).toThrow(BarometerValidationError);
    try {
      parseStatuslineInput('{"model":{}}');
    } catch (error) {
      expect((error as BarometerValidationError).issues[0]!.field).toBe('model.id');
    }
  });
});

describe('formatStatusline', () => {
  it('colours the dot by health only', () => {
    const colored = formatStatusline(
      statuslineReport(parseStatuslineInput(EXAMPLE)),
      (color, text) => `<${color}>${text}</${color}>`,
    );
    expect(colored).toBe('<yellow>●</yellow> 73% of 167k · 121,615 tokens · compress');
  });
});

/**
 * Claude Code 2.1.328's status line input for a Claude.ai subscriber: the keys its builder writes (read in the npm
 * binary `@anthropic-ai/claude-code-linux-x64@2.1.328`), `rate_limits` as https://code.claude.com/docs/en/statusline
 * and the 2.1.80 CHANGELOG state it — `five_hour` and `seven_day`, `used_percentage` (0-100) and `resets_at` (epoch
 * seconds): the 5-hour window resets at 14:30Z, the weekly one on Monday.
 */
const SUBSCRIBER = readFileSync(
  new URL('../../examples/statusline-input-subscription.json', import.meta.url),
  'utf8',
);

describe('statuslineReport with the plan windows of rate_limits', () => {
  const at = (time: string) => Date.parse(`2026-12-03T${time}:00Z`);
  const refresh = (time: string, fiveHour: number, dir: string) => {
    const input = parseStatuslineInput(SUBSCRIBER);
    if (input.rate_limits?.five_hour) input.rate_limits.five_hour.used_percentage = fiveHour;
    return statuslineReport(input, { now: () => at(time), costCheckpointDir: dir, readCost: () => null });
  };

  it('shows the 5-hour window with when it runs out and resets, measured over the refreshes, and waits only when it binds', () => {
    const previous = process.env.TZ;
    process.env.TZ = 'UTC';
    const dir = mkdtempSync(join(tmpdir(), 'barometer-statusline-windows-'));
    try {
      // 12:00, 40% of the window that began at 09:30: 40 points in 150 min; 60% left lasts 225 min, past the reset.
      const first = refresh('12:00', 40, dir);
      const firstFive = first.windows.find((window) => window.id === 'five_hour');
      expect(firstFive).toMatchObject({
        label: '5h',
        source: 'statusline',
        usedPercent: 40,
        burnBasis: 'window',
        burnPercentPerHour: 16,
        minutesRemaining: 225,
        bindsBeforeReset: false,
        resetsAt: '2026-12-03T14:30:00.000Z',
      });
      expect(first.action).toBe('continue');
      expect(first.windowWait).toBeNull();
      expect(formatStatusline(first, plain, at('12:00'))).toBe(
        '● 24% of 167k · 40,310 tokens · continue · 5h 40% · resets 14:30 · 7d 41%',
      );

      // 12:30, 55%: 15 points in the last 30 min, 30%/h; 45% left lasts 90 min, until 14:00, before the 14:30 reset.
      const second = refresh('12:30', 55, dir);
      expect(second.windows.find((window) => window.id === 'five_hour')).toMatchObject({
        usedPercent: 55,
        burnBasis: 'recent',
        burnPercentPerHour: 30,
        minutesRemaining: 90,
        runsOutAt: '2026-12-03T14:00:00.000Z',
        minutesToReset: 120,
        bindsBeforeReset: true,
        pauseMinutes: 30,
      });
      expect(second.action).toBe('wait');
      expect(second.windowWait).toEqual({
        window: 'five_hour',
        seconds: 1800,
        until: '2026-12-03T13:00:00.000Z',
      });
      expect(formatStatusline(second, plain, at('12:30'))).toBe(
        '● 24% of 167k · 40,310 tokens · wait · 5h 55% · runs out 14:00 · resets 14:30 · 7d 41%',
      );
      // The share turns red when the window binds.
      const red = (color: string, text: string) => (color === 'red' ? `<${text}>` : text);
      expect(formatStatusline(second, red, at('12:30'))).toContain('5h <55%> · runs out 14:00');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      if (previous === undefined) delete process.env.TZ;
      else process.env.TZ = previous;
    }
  });

  it('shows no window segment without rate_limits, and refuses a rate_limits share that is not a number', () => {
    const input = JSON.parse(SUBSCRIBER);
    delete input.rate_limits;
    expect(statuslineReport(parseStatuslineInput(JSON.stringify(input))).windows).toEqual([]);
    input.rate_limits = { five_hour: { used_percentage: 'high', resets_at: 1796308200 } };
    expect(() => parseStatuslineInput(JSON.stringify(input))).toThrow(
      /rate_limits\.five_hour\.used_percentage/,
    );
  });
});
