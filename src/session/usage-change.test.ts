import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../usage/usage-record.js';
import type { SessionOptions } from './session-options.js';
import type { SessionRecord } from './session-record.js';
import { createSessionState } from './session-state.js';
import { ColumnTimeline } from './session-timeline.js';
import { usageAnswerOf, usageChange } from './usage-change.js';

const start = Date.parse('2026-12-01T10:00:00Z');
const now = () => start + 60_000;

function record(options: Partial<SessionOptions> = {}): SessionRecord {
  const state = createSessionState(
    { id: 's1', model: 'custom', contextWindow: 200_000, ...options },
    { now: () => start },
  );
  return { state, timeline: new ColumnTimeline(), touchedAt: start };
}

const usage: UsageRecord = {
  available: true,
  source: 'manual',
  promptTokens: 20_000,
  completionTokens: 500,
  totalTokens: 20_500,
  cachedReadTokens: 0,
  cachedWriteTokens: 0,
  reasoningTokens: 0,
};

const poolReason = (change: ReturnType<typeof usageChange>) =>
  change.kind === 'applied'
    ? change.applied.step.update.verdict.reasons.find((reason) => reason.model === 'pool')
    : undefined;

describe('usageChange', () => {
  it('applies an update to a session in no pool: one generation more, its point on the timeline, touched now', () => {
    const current = record();
    const change = usageChange(current, { usage }, { now, skewMs: 300_000, pool: undefined });
    if (change.kind !== 'applied') throw new Error('expected the update applied');
    expect(change.record.state.generations).toBe(1);
    expect(change.record.state.lastPrompt).toBe(20_000);
    expect(change.record.touchedAt).toBe(start + 60_000);
    expect(change.applied.point.promptTokens).toBe(20_000);
    expect(poolReason(change)).toBeUndefined();
    // The record given is left as it was: a store may call the change again on it.
    expect(current.state.generations).toBe(0);
    expect(current.touchedAt).toBe(start);
  });

  it('answers that a pooled session needs its pool read first, at normal priority unless given, changing nothing', () => {
    const current = record({ poolId: 'team' });
    expect(usageChange(current, { usage }, { now, skewMs: 300_000, pool: undefined })).toEqual({
      kind: 'needs-pool',
      pool: { id: 'team', priority: 'normal' },
    });
    expect(current.state.generations).toBe(0);
    const urgent = record({ poolId: 'team', poolPriority: 'urgent' });
    expect(usageChange(urgent, { usage }, { now, skewMs: 300_000, pool: undefined })).toEqual({
      kind: 'needs-pool',
      pool: { id: 'team', priority: 'urgent' },
    });
  });

  it('applies a pooled session’s update once its pool was read, even when it could not be (null)', () => {
    const team = { id: 'team', priority: 'normal' };
    const unread = usageChange(
      record({ poolId: 'team' }),
      { usage },
      {
        now,
        skewMs: 300_000,
        pool: { of: team, standing: null },
      },
    );
    expect(poolReason(unread)).toMatchObject({
      action: 'continue',
      reason: 'pool team does not exist (or could not be read): not counted',
    });
    const standing = { poolId: 'team', level: 'HIGH' as const, usedFraction: 0.75, ceiling: 0.5 };
    const read = usageChange(
      record({ poolId: 'team', poolPriority: 'low' }),
      { usage },
      {
        now,
        skewMs: 300_000,
        pool: { of: { id: 'team', priority: 'low' }, standing },
      },
    );
    // 75% held is over the low ceiling of 50%: the low-priority agent defers.
    expect(poolReason(read)).toMatchObject({ action: 'optimize' });
  });

  it('asks for its pool again when the standing was read for another pool or priority (the session made again)', () => {
    const standing = { poolId: 'team', level: 'LOW' as const, usedFraction: 0.1, ceiling: 0.7 };
    const current = record({ poolId: 'other', poolPriority: 'high' });
    const options = { now, skewMs: 300_000 };
    expect(
      usageChange(
        current,
        { usage },
        { ...options, pool: { of: { id: 'team', priority: 'high' }, standing } },
      ),
    ).toEqual({ kind: 'needs-pool', pool: { id: 'other', priority: 'high' } });
    expect(
      usageChange(
        current,
        { usage },
        { ...options, pool: { of: { id: 'other', priority: 'low' }, standing } },
      ),
    ).toEqual({ kind: 'needs-pool', pool: { id: 'other', priority: 'high' } });
  });

  it('gives a session in no pool no pool model, whatever standing was read for it', () => {
    const standing = { poolId: 'team', level: 'HIGH' as const, usedFraction: 0.75, ceiling: 0.5 };
    const change = usageChange(
      record(),
      { usage },
      {
        now,
        skewMs: 300_000,
        pool: { of: { id: 'team', priority: 'low' }, standing },
      },
    );
    expect(change.kind).toBe('applied');
    expect(poolReason(change)).toBeUndefined();
  });

  it('refuses an update timed beyond the allowed skew', () => {
    expect(() =>
      usageChange(
        record(),
        { usage, timestamp: start + 60_000 + 300_001 },
        { now, skewMs: 300_000, pool: undefined },
      ),
    ).toThrow();
  });
});

describe('usageAnswerOf', () => {
  it('answers with the session, its generation and what the step decided', () => {
    const change = usageChange(record(), { usage }, { now, skewMs: 300_000, pool: undefined });
    if (change.kind !== 'applied') throw new Error('expected the update applied');
    const answer = usageAnswerOf('s1', change.record, change.applied);
    const { update } = change.applied.step;
    expect(answer).toEqual({
      sessionId: 's1',
      generation: 1,
      at: change.applied.point.timestamp,
      costUsd: update.costUsd,
      verdict: update.verdict,
      health: update.health,
      signals: update.signals,
      regulator: update.regulator.report.pressure,
      trigger: {
        fire: update.trigger.fire,
        trigger: update.trigger.trigger ?? null,
        reasons: update.trigger.reasons,
      },
      events: update.events,
    });
    expect(answer.verdict.action).toBe('continue');
  });
});
