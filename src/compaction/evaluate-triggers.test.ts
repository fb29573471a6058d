import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import {
  createTriggerState,
  evaluateTriggers,
  recordCompaction,
  type TriggerConfig,
  type TriggerState,
  triggerCheckText,
} from './evaluate-triggers.js';

describe('appendix vectors (threshold 200,000, minTurns 5)', () => {
  const config: TriggerConfig = { tokenThreshold: 200_000, minTurns: 5 };
  const fires = (tokens: number, turns: number) =>
    evaluateTriggers(createTriggerState(), { tokens, turns }, config).fire;

  it('does not fire at 150,000 tokens after 10 turns', () => expect(fires(150_000, 10)).toBe(false));
  it('does not fire at 210,000 tokens after only 3 turns', () => {
    const decision = evaluateTriggers({}, { tokens: 210_000, turns: 3 }, config);
    expect(decision.fire).toBe(false);
    expect(decision.reasons.join('\n')).toMatch(/too few turns/);
  });
  it('fires at 210,000 tokens after 10 turns', () => expect(fires(210_000, 10)).toBe(true));
  it('does not fire at exactly 200,000 tokens (the threshold is exclusive)', () =>
    expect(fires(200_000, 5)).toBe(false));
  it('fires at 200,001 tokens after 5 turns, in standard mode', () => {
    const decision = evaluateTriggers({}, { tokens: 200_001, turns: 5 }, config);
    expect(decision).toMatchObject({ fire: true, trigger: 'standard' });
  });
  it('refuses a second call right after triggering ("locked")', () => {
    const first = evaluateTriggers({}, { tokens: 200_001, turns: 5 }, config);
    const second = evaluateTriggers(first.state, { tokens: 200_001, turns: 6 }, config);
    expect(second.fire).toBe(false);
    expect(second.reasons.join('\n')).toMatch(/locked: .*blocked/);
  });
});

describe('semantic mode', () => {
  it('fires when a task completes with more than 50,000 tokens, even after one turn', () => {
    const decision = evaluateTriggers({}, { tokens: 50_001, turns: 1, taskCompleted: true });
    expect(decision).toMatchObject({ fire: true, trigger: 'semantic' });
  });
  it('does not fire when a task completes at 50,000 tokens or fewer', () => {
    expect(evaluateTriggers({}, { tokens: 50_000, turns: 3, taskCompleted: true }).fire).toBe(false);
  });
  it('does not fire on 60,000 tokens without a task completion', () => {
    expect(evaluateTriggers({}, { tokens: 60_000, turns: 3 }).fire).toBe(false);
  });
  it('takes its threshold from the config', () => {
    const decision = evaluateTriggers(
      {},
      { tokens: 20_001, turns: 1, taskCompleted: true },
      { semanticThreshold: 20_000 },
    );
    expect(decision.trigger).toBe('semantic');
  });
});

describe('survival mode', () => {
  const now = 1_000_000;
  // 900,000 tokens used 59.999 s ago: 100,000 of the 1,000,000 TPM left.
  const busy = [{ at: now - 59_999, tokens: 900_000 }];

  it('fires when next × 1.2 exceeds the TPM left in the measured window', () => {
    // 100,000 × 1.2 = 120,000 > 1,000,000 − 900,000.
    const decision = evaluateTriggers({}, { tokens: 100_000, turns: 3, now, usageEvents: busy });
    expect(decision).toMatchObject({ fire: true, trigger: 'survival' });
  });
  it('does not fire when next × 1.2 fits exactly', () => {
    // 83,000 × 1.2 = 99,600 ≤ 100,000.
    expect(evaluateTriggers({}, { tokens: 83_000, turns: 3, now, usageEvents: busy }).fire).toBe(false);
  });
  it('forgets usage that is 60 seconds old or more', () => {
    const old = [{ at: now - 60_000, tokens: 900_000 }];
    expect(evaluateTriggers({}, { tokens: 100_000, turns: 3, now, usageEvents: old }).fire).toBe(false);
  });
  it('sums every event inside the window', () => {
    const events = [
      { at: now - 50_000, tokens: 500_000 },
      { at: now - 10_000, tokens: 400_000 },
      { at: now - 70_000, tokens: 900_000 },
    ];
    const decision = evaluateTriggers({}, { tokens: 100_000, turns: 3, now, usageEvents: events });
    expect(decision.trigger).toBe('survival');
    expect(decision.reasons.join('\n')).toContain('1000000 - 900000 used');
  });
  it('uses the given next-request estimate instead of the context size', () => {
    const small = { turns: 3, now, usageEvents: busy, estimatedNextRequestTokens: 80_000 };
    expect(evaluateTriggers({}, { tokens: 100_000, ...small }).fire).toBe(false);
  });
  it('overrides minTurns, the lock and the growth guard', () => {
    const guarded: TriggerState = {
      lockedAtTokens: 100_000,
      lastCompaction: { before: 300_000, after: 100_000, stalled: false },
    };
    const decision = evaluateTriggers(
      guarded,
      { tokens: 100_000, turns: 0, now, usageEvents: busy },
      { minTurns: 5 },
    );
    expect(decision).toMatchObject({ fire: true, trigger: 'survival' });
    const reasons = decision.reasons.join('\n');
    expect(reasons).toMatch(/minTurns: .*blocked/);
    expect(reasons).toMatch(/locked: .*blocked/);
    expect(reasons).toMatch(/overriding every other gate/);
  });
  it('is not evaluated without usage events, and says so', () => {
    const decision = evaluateTriggers({}, { tokens: 900_000, turns: 0 }, { minTurns: 1 });
    expect(decision.reasons.join('\n')).toMatch(/survival: no timestamped usage events/);
  });
  it('is not evaluated without a TPM limit', () => {
    const decision = evaluateTriggers(
      {},
      { tokens: 100_000, turns: 0, now, usageEvents: busy },
      { tpmLimit: null },
    );
    expect(decision.fire).toBe(false);
    expect(decision.reasons.join('\n')).toMatch(/no TPM limit/);
  });
});

describe('loop guards', () => {
  const config: TriggerConfig = { tokenThreshold: 100_000 };

  it('waits for 10% growth over the post-compaction size', () => {
    const state = recordCompaction({}, { before: 300_000, after: 100_000 });
    expect(state.lastCompaction?.stalled).toBe(false);
    const blocked = evaluateTriggers(state, { tokens: 109_999, turns: 9 }, config);
    expect(blocked.fire).toBe(false);
    expect(blocked.reasons.join('\n')).toMatch(/growth: .*blocked/);
    expect(evaluateTriggers(state, { tokens: 110_000, turns: 9 }, config).fire).toBe(true);
  });
  it('marks a compaction that removed less than 5% as stalled and waits for 25% growth', () => {
    const state = recordCompaction({}, { before: 104_000, after: 100_000 });
    expect(state.lastCompaction?.stalled).toBe(true);
    const blocked = evaluateTriggers(state, { tokens: 124_999, turns: 9 }, config);
    expect(blocked.fire).toBe(false);
    expect(blocked.reasons.join('\n')).toMatch(/stalled: .*blocked/);
    expect(evaluateTriggers(state, { tokens: 125_000, turns: 9 }, config).fire).toBe(true);
  });
  it('does not call a compaction that removed exactly 5% stalled', () => {
    expect(recordCompaction({}, { before: 100_000, after: 95_000 }).lastCompaction?.stalled).toBe(false);
  });
  it('releases the lock when a compaction is recorded', () => {
    const fired = evaluateTriggers({}, { tokens: 150_000, turns: 2 }, config);
    const state = recordCompaction(fired.state, { before: 150_000, after: 20_000 });
    expect(state.lockedAtTokens).toBeUndefined();
    expect(evaluateTriggers(state, { tokens: 130_000, turns: 3 }, config).fire).toBe(true);
  });
  it('re-arms without a compaction once the context grew 10% past the size it fired at', () => {
    const fired = evaluateTriggers({}, { tokens: 210_000, turns: 2 });
    expect(evaluateTriggers(fired.state, { tokens: 230_999, turns: 3 }).fire).toBe(false);
    expect(evaluateTriggers(fired.state, { tokens: 231_000, turns: 3 }).fire).toBe(true);
  });
  it('lists every guard decision, including the ones that passed', () => {
    const decision = evaluateTriggers({}, { tokens: 10, turns: 1 });
    const reasons = decision.reasons.join('\n');
    for (const guard of ['semantic:', 'standard:', 'minTurns:', 'locked:', 'growth:', 'survival:']) {
      expect(reasons).toContain(guard);
    }
  });
});

describe('purity and validation', () => {
  it('returns a new state and leaves the given one untouched', () => {
    const state: TriggerState = {};
    const decision = evaluateTriggers(state, { tokens: 300_000, turns: 1 });
    expect(state).toEqual({});
    expect(decision.state.lockedAtTokens).toBe(300_000);
  });
  it('rejects an unknown config key, naming it', () => {
    const call = () => evaluateTriggers({}, { tokens: 1, turns: 1 }, { threshold: 5 } as TriggerConfig);
    expect(call).toThrow(BarometerValidationError);
    try {
      call();
    } catch (error) {
      expect((error as BarometerValidationError).issues[0]?.field).toBe('threshold');
    }
  });
  it('rejects negative tokens', () => {
    expect(() => evaluateTriggers({}, { tokens: -1, turns: 1 })).toThrow(/tokens/);
  });
});

describe('the decision as data', () => {
  it('returns every rule and guard as a check with its code, outcome and figures, and writes each as its line', () => {
    const first = evaluateTriggers({}, { tokens: 210_000, turns: 3, taskCompleted: true }, { minTurns: 1 });
    const decision = evaluateTriggers(first.state, { tokens: 220_000, turns: 4 }, { minTurns: 5 });
    expect(decision.fire).toBe(false);
    expect(decision.blocked).toBe('standard');
    expect(decision.checks).toEqual([
      { code: 'semantic', outcome: 'no_task' },
      { code: 'standard', outcome: 'fired', tokens: 220_000, threshold: 200_000 },
      { code: 'minTurns', outcome: 'blocked', turns: 4, minTurns: 5 },
      // Locked at 210,000 by the first trigger: 10% more, 231,000, re-arms it.
      {
        code: 'locked',
        outcome: 'blocked',
        lockedAtTokens: 210_000,
        tokens: 220_000,
        unlockAt: 231_000.00000000003,
      },
      { code: 'growth', outcome: 'none' },
      { code: 'survival', outcome: 'not_evaluated', missing: 'events' },
    ]);
    expect(decision.reasons).toEqual([
      ...decision.checks.map(triggerCheckText),
      'no compaction: standard blocked by a guard',
    ]);
    expect(decision.reasons[3]).toBe(
      'locked: a trigger fired at 210000 tokens and no compaction was recorded; blocked until 231000 tokens',
    );
  });

  it('names the mode that fired and no blocked mode; nothing blocked when no trigger was reached', () => {
    const fired = evaluateTriggers({}, { tokens: 200_001, turns: 5 });
    expect(fired).toMatchObject({ fire: true, trigger: 'standard' });
    expect(fired.blocked).toBeUndefined();
    const quiet = evaluateTriggers({}, { tokens: 1_000, turns: 5 });
    expect(quiet.blocked).toBeUndefined();
    expect(quiet.reasons.at(-1)).toBe('no compaction: no trigger reached');
  });
});
