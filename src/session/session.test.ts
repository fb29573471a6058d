import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../usage/usage-record.js';
import { Session } from './session.js';
import { sessionSummary } from './session-timeline.js';

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
const unavailable: UsageRecord = {
  available: false,
  source: 'openai-chat',
  reason: 'response carried no usage',
};

function session(options: Partial<ConstructorParameters<typeof Session>[0]> = {}) {
  return new Session({ model: 'test-model', contextWindow: 200_000, ...options }, { now: () => T0 });
}

describe('Session signals', () => {
  it('keeps the last prompt, the percent of the window, age and budget', () => {
    const s = session({ tokenBudget: 1_000_000 });
    s.update({ usage: usage(20_000, 1_000), timestamp: T0 });
    const update = s.update({ usage: usage(50_000, 2_000), timestamp: T0 + 90_000 });
    expect(update.signals).toMatchObject({
      lastPromptTokens: 50_000,
      lastCompletionTokens: 2_000,
      window: 200_000,
      percentOfWindow: 25,
      ageSeconds: 90,
      tokenBudget: 1_000_000,
      budgetUsed: 73_000,
      budgetRemaining: 927_000,
      driftPercent: null,
    });
  });

  it('measures burn over a sliding five-minute window and the last 60 s against the TPM limit', () => {
    const s = session({ tpmLimit: 100_000 });
    s.update({ usage: usage(10_000, 0), timestamp: T0 });
    s.update({ usage: usage(20_000, 0), timestamp: T0 + 120_000 });
    const update = s.update({ usage: usage(30_000, 0), timestamp: T0 + 150_000 });
    // 60,000 tokens in the 5-minute window → 12,000/min; the last 60 s hold the last two calls.
    expect(update.signals.burnRateTokensPerMin).toBe(12_000);
    expect(update.signals.tokensLastMinute).toBe(50_000);
    expect(update.signals.tpmLeft).toBe(50_000);
    // Six minutes later nothing is left in either window.
    expect(s.signals(T0 + 150_000 + 360_000)).toMatchObject({ burnRateTokensPerMin: 0, tokensLastMinute: 0 });
  });

  it('keeps the drift the caller reports', () => {
    const s = session();
    expect(s.update({ usage: usage(1000), driftPercent: 40 }).signals.driftPercent).toBe(40);
  });
});

describe('Session health (seed 003)', () => {
  it('goes healthy → caution → critical with the owned reminder and a countdown to a forced new round', () => {
    // window 200,000: optimal 100,000, critical 180,000
    const s = session();
    expect(s.update({ usage: usage(50_000) }).health).toMatchObject({ level: 'healthy', reminder: null });
    const caution = s.update({ usage: usage(120_000) });
    expect(caution.health.level).toBe('caution');
    expect(caution.health.reminder?.id).toBe('context_health');
    expect(caution.events.map((event) => event.type)).toContain('reminder_added');
    expect(caution.verdict.action).toBe('compress');
    const critical = s.update({ usage: usage(185_000) });
    expect(critical.health).toMatchObject({ level: 'critical', countdown: 4 });
    expect(critical.health.reminder?.text).not.toBe(caution.health.reminder?.text);
    expect(critical.verdict.priority).toBe('urgent');
    const types: string[] = [];
    for (let generation = 0; generation < 4; generation++) {
      types.push(...s.update({ usage: usage(186_000) }).events.map((event) => event.type));
    }
    expect(types.filter((type) => type === 'forced_new_round')).toHaveLength(1);
    const healthy = s.update({ usage: usage(30_000) });
    expect(healthy.health).toMatchObject({ level: 'healthy', reminder: null, countdown: null });
    expect(healthy.events.map((event) => event.type)).toContain('reminder_dropped');
  });

  it('says unknown, never zeros, when usage is unavailable', () => {
    const s = session();
    const update = s.update({ usage: unavailable });
    expect(update.health.level).toBe('unknown');
    expect(update.signals.lastPromptTokens).toBeNull();
    expect(update.verdict.reasons.find((reason) => reason.model === 'health')).toMatchObject({
      action: 'continue',
      reason: expect.stringContaining('usage unavailable'),
    });
  });
});

describe('the verdict', () => {
  it('lists the reason of every model that spoke, including those that said continue', () => {
    const s = session({ tokenBudget: 500_000, kv: { nCtx: 300_000 } });
    const update = s.update({ usage: usage(10_000) });
    expect(update.verdict.action).toBe('continue');
    expect(update.verdict.reasons.map((reason) => reason.model)).toEqual([
      'health',
      'regulator',
      'kv',
      'triggers',
      'budget',
    ]);
  });

  it('terminates when the token budget is exhausted', () => {
    const s = session({ tokenBudget: 10_000 });
    const update = s.update({ usage: usage(9_000, 1_500) });
    expect(update.verdict.action).toBe('terminate');
    expect(update.verdict.reasons.find((reason) => reason.model === 'budget')?.reason).toContain('exhausted');
  });

  it('compresses when the KV headroom is gone and terminates when KV is critical', () => {
    // nCtx 16,384, soft limit 1,024: 15,800 used → headroom −440.
    const low = session({ kv: { nCtx: 16_384 } }).update({ usage: usage(15_300, 500) });
    expect(low.verdict.reasons.find((reason) => reason.model === 'kv')?.action).toBe('compress');
    const critical = session({ kv: { nCtx: 16_384 } }).update({ usage: usage(16_300, 50) });
    expect(critical.verdict.action).toBe('terminate');
  });

  it('reads the KV budget from the engine’s own cell count once an update names it (kvCellsUsed)', () => {
    // 2,048 cells, nBatch 64 (so the hard limit is 64), soft limit 256. From usage: 300 + 20 = 320 cells,
    // remaining 1,728, headroom 1,472, 84% available (1,728 / 2,048 = 84.4%).
    const s = session({ kv: { nCtx: 2048, nBatch: 64, softLimit: 256 } });
    expect(s.update({ usage: usage(300, 20) }).signals.kv).toEqual({
      nCtx: 2048,
      cellsUsed: 320,
      remaining: 1728,
      softLimit: 256,
      hardLimit: 64,
      nBatch: 64,
      headroom: 1472,
      critical: false,
      percentAvailable: 84,
      unbounded: false,
      source: 'usage',
    });
    // The engine holds 2,000 cells (a fork's branch, other sequences): remaining 48 < 64 is critical.
    const engine = s.update({ usage: usage(300, 20), kvCellsUsed: 2000 });
    expect(engine.signals.kv).toMatchObject({
      cellsUsed: 2000,
      remaining: 48,
      headroom: -208,
      critical: true,
    });
    expect(engine.signals.kv?.source).toBe('engine');
    expect(engine.verdict.action).toBe('terminate');
    expect(engine.verdict.reasons.find((reason) => reason.model === 'kv')?.reason).toBe(
      'KV critical: 48 cells remaining, headroom -208 < hard limit 64',
    );
    // The engine's count stands until an update names another: a prompt's tokens are one sequence's only.
    expect(s.update({ usage: usage(310, 20) }).signals.kv).toMatchObject({
      cellsUsed: 2000,
      source: 'engine',
    });
    expect(s.update({ usage: usage(310, 20), kvCellsUsed: 100 }).signals.kv).toMatchObject({
      cellsUsed: 100,
      critical: false,
    });
  });

  it('carries no KV figures for a session without KV settings', () => {
    expect(session().update({ usage: usage(300, 20), kvCellsUsed: 2000 }).signals.kv).toBeUndefined();
  });

  it('fires the standard trigger above 200,000 tokens, then holds it until the context grows', () => {
    const s = session({ contextWindow: 1_000_000, optimalMaxTokens: 900_000 });
    const fired = s.update({ usage: usage(210_000) });
    expect(fired.trigger).toMatchObject({ fire: true, trigger: 'standard' });
    expect(fired.verdict.action).toBe('compress');
    const again = s.update({ usage: usage(211_000) });
    expect(again.trigger.fire).toBe(false);
    expect(again.verdict.reasons.find((reason) => reason.model === 'triggers')?.reason).toContain('locked');
  });

  it('says in its triggers line what fired or what blocked it, and leaves every guard to trigger.reasons', () => {
    const s = session({ contextWindow: 1_000_000, optimalMaxTokens: 900_000 });
    const triggersLine = (update: ReturnType<typeof s.update>) =>
      update.verdict.reasons.find((reason) => reason.model === 'triggers')?.reason;
    const quiet = s.update({ usage: usage(150_000) });
    expect(triggersLine(quiet)).toBe('no trigger reached');
    expect(quiet.trigger.reasons).toContain('standard: 150000 tokens <= 200000');
    // Over the standard threshold (200,000): the line that fired, not the trail.
    const fired = s.update({ usage: usage(210_000) });
    expect(triggersLine(fired)).toBe('standard compaction triggered: standard: 210000 tokens > 200000');
    // Locked until the context grows 10% over 210,000 tokens: the guard that blocked.
    const held = s.update({ usage: usage(211_000) });
    expect(triggersLine(held)).toBe(
      'no trigger: standard blocked by a guard (locked: a trigger fired at 210000 tokens and no compaction was recorded; blocked until 231000 tokens)',
    );
    expect(held.trigger.reasons).toContain('minTurns: 3 turns >= 1: passed');
  });

  it('fires survival when the next request would not fit the TPM quota left and waiting takes too long, urgently', () => {
    const s = session({ tpmLimit: 100_000, maxWaitSeconds: 30 });
    s.update({ usage: usage(40_000, 0), timestamp: T0 });
    // 80,000 used in the last minute; next request ~40,000 × 1.2 > 20,000 left; the first call's 40,000 leave the
    // window 50 s from now, longer than the 30 s the session waits.
    const update = s.update({ usage: usage(40_000, 0), timestamp: T0 + 10_000 });
    expect(update.trigger).toMatchObject({ fire: true, trigger: 'survival' });
    expect(update.verdict).toMatchObject({ action: 'compress', priority: 'urgent', waitSeconds: 50 });
  });

  it('waits instead of compressing when the quota admits the next request within maxWaitSeconds (60 s default)', () => {
    const s = session({ tpmLimit: 100_000 });
    s.update({ usage: usage(40_000, 0), timestamp: T0 });
    const update = s.update({ usage: usage(40_000, 0), timestamp: T0 + 10_000 });
    expect(update.trigger.fire).toBe(false);
    expect(update.verdict).toMatchObject({ action: 'wait', priority: 'high', waitSeconds: 50 });
  });

  it('maps burn onto the regulator so that 100 is the TPM limit, and says what it did not measure', () => {
    const s = session({ tpmLimit: 10_000 });
    s.update({ usage: usage(25_000, 0), timestamp: T0 });
    const update = s.update({ usage: usage(25_000, 0), timestamp: T0 + 1_000 });
    // 50,000 tokens over 5 minutes = 10,000/min = the TPM limit → burn 100.
    expect(update.regulator.report.pressure.tokenBurnRate).toBe(100);
    expect(update.regulator.notes).toContain('drift not measured');
    const unscaled = session().update({ usage: usage(1000) });
    expect(unscaled.regulator.report.pressure.tokenBurnRate).toBe(0);
    expect(unscaled.regulator.notes).toContain('burn not scaled: no TPM limit');
    expect(unscaled.regulator.tokensRemaining).toBeNull();
    expect(unscaled.regulator.minutesRemaining).toBeNull();
  });
});

describe('the regulator as a session sees it', () => {
  it('reports no budget figures and no budget threshold without a token budget (never invented)', () => {
    const pressure = session().update({ usage: usage(1000) }).regulator.report.pressure;
    expect(pressure.estimatedTokensRemaining).toBeNull();
    expect(pressure.estimatedMinutesRemaining).toBeNull();
    expect(
      pressure.thresholdsExceeded.filter(
        (code) => code.startsWith('token_budget') || code === 'eol_approaching',
      ),
    ).toEqual([]);
  });

  it('reports real tokens and minutes left, and judges eol_approaching on them', () => {
    const s = session({ tokenBudget: 100_000, tpmLimit: 1_000_000 });
    s.update({ usage: usage(40_000, 0), timestamp: T0 });
    // 90,000 used; 10,000 left at 90,000 tokens over the 5-minute window = 18,000/min → 0.6 minutes.
    const update = s.update({ usage: usage(50_000, 0), timestamp: T0 + 60_000 });
    expect(update.regulator.report.pressure.estimatedTokensRemaining).toBe(10_000);
    expect(update.regulator.report.pressure.estimatedMinutesRemaining).toBe(0.6);
    expect(update.regulator.report.pressure.thresholdsExceeded).toContain('eol_approaching');
    expect(update.regulator.report.pressure.recommendations.shouldTerminate).toBe(true);
  });

  it('compares the unrounded memory (regression: 80.0005% was rounded to 80.0 and missed memory_critical)', () => {
    const update = session({
      contextWindow: 2_000_000,
      optimalMaxTokens: 1_999_000,
      criticalMaxTokens: 1_999_500,
    }).update({
      usage: usage(1_600_010),
    });
    expect(update.signals.percentOfWindow).toBe(80);
    expect(update.regulator.report.pressure.thresholdsExceeded).toContain('memory_critical');
  });
});

describe('creating a session', () => {
  it('uses the registry and the agent effective window', () => {
    const codex = new Session({ model: 'gpt-5.3-codex', agent: 'codex' });
    expect(codex.thresholds.limit).toBe(258_400);
    const claude = new Session({ model: 'claude-opus-4-6', agent: 'claude-code' });
    expect(claude.thresholds.limit).toBe(167_000);
  });

  it('creates a session for a model of no known family: no window, health unknown, every call unpriced', () => {
    // Regression (issue 37): an id the registry did not know failed session creation (BR_ERR_UNKNOWN_MODEL), so the
    // proxy recorded nothing of a whole Claude Code session.
    const s = new Session({ model: 'acme-7' }, { now: () => T0 });
    expect(s.thresholds.limit).toBeUndefined();
    expect(s.profile).toEqual({ id: 'acme-7' });
    const update = s.update({ usage: usage(50_000, 1_000), timestamp: T0 });
    expect(update.health.level).toBe('unknown');
    expect(update.verdict.reasons.find((reason) => reason.model === 'health')?.reason).toBe(
      'context health unknown: no window known',
    );
    expect(update.costUsd).toBeNull();
    expect(update.signals).toMatchObject({
      costUsd: null,
      costEstimated: false,
      unpricedCalls: 1,
      window: null,
    });
    expect(new Session({ model: 'acme-7', contextWindow: 32_000 }).thresholds.limit).toBe(32_000);
  });

  it('measures and prices an unknown model of a known family as its newest known model, marked estimated', () => {
    // claude-opus-5-5 (Claude Code 2.1.328's default) is estimated from claude-opus-4-8: 1M listed, $5 / $25.
    const s = new Session({ model: 'claude-opus-5-5', agent: 'claude-code' }, { now: () => T0 });
    expect(s.profile).toMatchObject({
      estimatedFrom: 'claude-opus-4-8',
      windowSource: 'family-estimate',
      priceSource: 'family-estimate',
    });
    // Claude Code's rule on the estimated 1M window: 200,000 − 33,000.
    expect(s.thresholds.limit).toBe(167_000);
    const update = s.update({ usage: usage(160_000, 1_000), timestamp: T0 });
    expect(update.health.level).toBe('critical');
    // 160,000 × $5 + 1,000 × $25, per million.
    expect(update.costUsd).toBeCloseTo(0.825, 9);
    expect(update.signals).toMatchObject({ costEstimated: true, unpricedCalls: 0 });
  });

  it("reads a state written by the previous version, whose sources say builtin, as the registry's", () => {
    const current = new Session({ model: 'claude-sonnet-4-5' }, { now: () => T0 }).state;
    const { windowSource: _, ...older } = current.profile;
    const stored = {
      ...current,
      profile: { ...older, source: 'builtin', priceSource: 'builtin', reasoningSource: 'builtin' },
    };
    const resumed = Session.fromState(JSON.parse(JSON.stringify(stored)));
    expect(resumed.profile).toMatchObject({
      source: 'registry',
      priceSource: 'registry',
      reasoningSource: 'registry',
    });
    expect(sessionSummary(resumed.state).profile).toMatchObject({
      source: 'registry',
      priceSource: 'registry',
    });
  });

  it('rejects KV settings the KV model refuses when the session is created, not at its first update', () => {
    expect(() => session({ kv: { nCtx: 8192, hardLimit: 64, nBatch: 512 } })).toThrow(/kv\.hardLimit/);
  });

  it("keeps only the profile's fields that are set (no key left undefined)", () => {
    const { profile } = new Session({ model: 'my-private-model', contextWindow: 32_000 }).state;
    expect(Object.values(profile)).not.toContain(undefined);
    expect(profile).toMatchObject({ id: 'my-private-model', contextLength: 32_000, effectiveWindow: 32_000 });
  });

  it('generates a different version 4 UUID for each session without an id', () => {
    const ids = Array.from({ length: 300 }, () => new Session({ model: 'x', contextWindow: 1000 }).state.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('rejects unknown options and bad ids', () => {
    expect(() => new Session({ model: 'x', contextWindow: 1000, colour: 'red' } as never)).toThrow(/colour/);
    expect(() => new Session({ model: 'x', contextWindow: 1000, id: '../etc' })).toThrow(/id/);
  });
});

describe('the time of an update', () => {
  it('is the clock when the update has none, but never before the previous update (a clock behind another)', () => {
    let clock = T0 + 10_000;
    const s = new Session({ model: 'test-model', contextWindow: 200_000 }, { now: () => clock });
    expect(s.update({ usage: usage(1000) }).at).toBe(T0 + 10_000);
    clock = T0 + 4000; // another instance's clock, six seconds behind
    expect(s.update({ usage: usage(1000) }).at).toBe(T0 + 10_000);
    clock = T0 + 12_000;
    expect(s.update({ usage: usage(1000) }).at).toBe(T0 + 12_000);
    // A time the caller gives is taken as given.
    expect(s.update({ usage: usage(1000), timestamp: T0 }).at).toBe(T0);
  });
});
