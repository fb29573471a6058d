import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../usage/usage-record.js';
import { Session } from './session.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const usage = (promptTokens: number, completionTokens = 500): UsageRecord => ({
  available: true,
  source: 'manual',
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  cachedReadTokens: 0,
  cachedWriteTokens: 0,
  reasoningTokens: 0,
});

describe('advice a user would follow: terminate means stop, context pressure means a new round', () => {
  it('a Claude Code session at 96% of its window gets compress, urgent, a new round due — not terminate', () => {
    // The found case: claude-opus-4-6 under Claude Code works in 167,000 tokens; 96% is 160,320.
    const s = new Session({ model: 'claude-opus-4-6', agent: 'claude-code' }, { now: () => T0 });
    const update = s.update({ usage: usage(160_320), timestamp: T0 });
    expect(update.signals.window).toBe(167_000);
    expect(update.regulator.report.pressure.suggestedAction).toBe('terminate');
    expect(update.verdict).toMatchObject({ action: 'compress', priority: 'urgent', newRoundDue: true });
    const regulator = update.verdict.reasons.find((reason) => reason.model === 'regulator');
    expect(regulator?.reason).toContain('memory 96% of the window (> 95%)');
    expect(regulator?.reason).toContain('relieved by a new round, not by stopping');
  });

  it('terminates when the token budget will be spent by the next request', () => {
    const s = new Session(
      { model: 'test-model', contextWindow: 200_000, tokenBudget: 100_000 },
      { now: () => T0 },
    );
    expect(s.update({ usage: usage(30_000, 1_000), timestamp: T0 }).verdict.action).not.toBe('terminate');
    // 62,000 used, 38,000 left: the next request sends at least 31,000 + 1,000 → still fits.
    expect(s.update({ usage: usage(30_000, 1_000), timestamp: T0 + 1000 }).verdict.action).not.toBe(
      'terminate',
    );
    // 93,000 used, 7,000 left < 31,000: the next request cannot be paid.
    const update = s.update({ usage: usage(30_000, 1_000), timestamp: T0 + 2000 });
    expect(update.verdict).toMatchObject({ action: 'terminate', priority: 'urgent', newRoundDue: false });
    expect(update.verdict.reasons.find((reason) => reason.model === 'budget')?.reason).toBe(
      'token budget spent by the next request: 7000 of 100000 left, the next request sends at least 31000 (the last prompt and completion)',
    );
  });

  it('announces the forced new round once and keeps it due until the prompt falls below critical', () => {
    // critical = 90% of 200,000 = 180,000.
    const s = new Session({ model: 'test-model', contextWindow: 200_000 }, { now: () => T0 });
    const updates = Array.from({ length: 15 }, (_, index) =>
      s.update({ usage: usage(185_000), timestamp: T0 + index * 1000 }),
    );
    const forced = updates.flatMap((update) =>
      update.events.filter((event) => event.type === 'forced_new_round'),
    );
    expect(forced).toHaveLength(1);
    expect(updates.map((update) => update.verdict.newRoundDue)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    const after = s.update({ usage: usage(150_000), timestamp: T0 + 20_000 });
    expect(after.verdict.newRoundDue).toBe(false);
    // Reminder and countdown updates do not flood the feed: 15 critical generations, 8 health events in all.
    const health = updates.flatMap((update) =>
      update.events.filter((event) =>
        ['level_changed', 'reminder_added', 'reminder_updated', 'countdown', 'forced_new_round'].includes(
          event.type,
        ),
      ),
    );
    expect(health.map((event) => event.type)).toEqual([
      'level_changed',
      'reminder_added',
      'countdown',
      'countdown',
      'countdown',
      'countdown',
      'countdown',
      'forced_new_round',
    ]);
  });
});

describe('a session never contradicts itself', () => {
  it('shows a viability under 75 beside MODERATE: 74.6 is shown as 74, not 75', () => {
    // No TPM limit, no drift: viability = 100 − 0.4 × memory; 127,000 of 200,000 is 63.5% → 74.6, MODERATE.
    const s = new Session({ model: 'test-model', contextWindow: 200_000 }, { now: () => T0 });
    const { regulator } = s.update({ usage: usage(127_000), timestamp: T0 });
    expect(regulator.report.pressure.level).toBe('MODERATE');
    expect(regulator.report.pressure.sessionViability).toBe(74);
  });

  it("writes the reminder with the latest prompt, so its figure and the session's agree", () => {
    const s = new Session({ model: 'test-model', contextWindow: 200_000 }, { now: () => T0 });
    expect(s.update({ usage: usage(120_000), timestamp: T0 }).health.reminder?.text).toContain(
      '120,000 tokens',
    );
    // The next caution generation does not re-issue the reminder (cadence 10), but its text is current.
    const next = s.update({ usage: usage(131_500), timestamp: T0 + 1000 });
    expect(next.health.reminder?.text).toContain('The last prompt was 131,500 tokens');
    expect(next.signals.lastPromptTokens).toBe(131_500);
  });
});

describe('a compaction resets the advice until the next call', () => {
  it('without an after-size: unknown health, no reminder, no compress, no new round (the found case: 102,168 tokens)', () => {
    const s = new Session({ model: 'claude-opus-4-6', agent: 'claude-code' }, { now: () => T0 });
    const before = s.update({ usage: usage(102_168), timestamp: T0 });
    expect(before.verdict.action).toBe('compress');
    expect(before.health.reminder?.text).toContain('102,168');
    s.recordCompaction({ trigger: 'auto', timestamp: T0 + 1000 });
    expect(s.health()).toMatchObject({
      level: 'unknown',
      reminder: null,
      promptTokens: null,
      countdown: null,
    });
    expect(s.lastVerdict).toMatchObject({ action: 'continue', newRoundDue: false });
    expect(JSON.stringify(s.lastVerdict)).not.toContain('102168');
    // The next call judges again from its own usage.
    expect(s.update({ usage: usage(40_000), timestamp: T0 + 2000 }).health.level).toBe('healthy');
  });

  it('with an after-size: judged on it (healthy at 30,000 tokens), the critical countdown ended', () => {
    const s = new Session({ model: 'claude-opus-4-6', agent: 'claude-code' }, { now: () => T0 });
    const critical = s.update({ usage: usage(160_320), timestamp: T0 });
    expect(critical.verdict).toMatchObject({ action: 'compress', newRoundDue: true });
    s.recordCompaction({ after: 30_000, trigger: 'manual', timestamp: T0 + 1000 });
    expect(s.health()).toMatchObject({
      level: 'healthy',
      promptTokens: 30_000,
      reminder: null,
      countdown: null,
    });
    expect(s.lastVerdict).toMatchObject({ action: 'continue', newRoundDue: false });
    expect(s.lastVerdict?.reasons.find((reason) => reason.model === 'health')?.reason).toBe(
      'healthy after the compaction: 30000 tokens <= optimal 100000',
    );
  });
});
