import { describe, expect, it } from 'vitest';
import { healthThresholds } from './health-thresholds.js';
import {
  cautionCadence,
  type HealthObservation,
  type HealthState,
  HealthStateSchema,
  type HealthStep,
  initialHealthState,
  type StepHealthOptions,
  stepHealth,
} from './step-health.js';

// limit 272,000, optimal 200,000 → critical 244,800.
const thresholds = healthThresholds({ contextLength: 272_000, optimalMaxTokens: 200_000 });
const HEALTHY = 120_000;
const CAUTION = 210_000;
const CRITICAL = 250_000;

/** Runs prompts through stepHealth from the initial state, returning every step. */
function run(prompts: ReadonlyArray<number | undefined>, options: StepHealthOptions = {}): HealthStep[] {
  let state: HealthState = initialHealthState();
  const steps: HealthStep[] = [];
  for (const promptTokens of prompts) {
    const observation: HealthObservation =
      promptTokens === undefined ? { available: false } : { available: true, promptTokens };
    const step = stepHealth(state, observation, { thresholds, ...options });
    steps.push(step);
    state = step.state;
  }
  return steps;
}

const actions = (steps: HealthStep[]) => steps.map((step) => step.reminder.action);
const eventsOf = (step: HealthStep | undefined, type: string) =>
  (step?.events ?? []).filter((event) => event.type === type);

describe('cautionCadence (appendix vectors)', () => {
  it('is 10 when unset, 10 for 0 and 3 for 3.9', () => {
    expect(cautionCadence(undefined)).toBe(10);
    expect(cautionCadence(0)).toBe(10);
    expect(cautionCadence(3.9)).toBe(3);
  });

  it('falls back to 10 for negative and non-finite values', () => {
    expect(cautionCadence(-4)).toBe(10);
    expect(cautionCadence(Number.NaN)).toBe(10);
  });
});

describe('stepHealth in caution', () => {
  it('adds the caution reminder on entering caution, with the numbers', () => {
    const [step] = run([CAUTION]);
    expect(step?.level).toBe('caution');
    expect(step?.reminder.action).toBe('add');
    expect(step?.reminder.owner).toBe('context_health');
    expect(step?.reminder.text).toContain('210,000 tokens (77% of the 272,000-token window)');
    expect(step?.reminder.text).toContain('optimal size of 200,000');
    expect(step?.reminder.text).toContain('critical above 244,800');
    expect(step?.events).toEqual([
      { type: 'level_changed', from: 'unknown', to: 'caution', promptTokens: CAUTION },
      { type: 'reminder_added', level: 'caution' },
    ]);
  });

  it('repeats the reminder every 10 generations by default', () => {
    const steps = run(Array(25).fill(CAUTION));
    const emitted = actions(steps).flatMap((action, index) =>
      action === 'none' ? [] : [[index + 1, action]],
    );
    expect(emitted).toEqual([
      [1, 'add'],
      [11, 'update'],
      [21, 'update'],
    ]);
  });

  it('repeats every 3 generations with a cadence of 3.9', () => {
    const steps = run(Array(8).fill(CAUTION), { cautionCadence: 3.9 });
    expect(actions(steps)).toEqual(['add', 'none', 'none', 'update', 'none', 'none', 'update', 'none']);
  });

  it('does not count unknown generations towards the cadence', () => {
    const steps = run([CAUTION, undefined, undefined, CAUTION, CAUTION], { cautionCadence: 3 });
    expect(actions(steps)).toEqual(['add', 'none', 'none', 'none', 'none']);
  });
});

describe('stepHealth in critical', () => {
  it('counts down 5 critical generations and forces a new round at 0', () => {
    const steps = run(Array(5).fill(CRITICAL));
    expect(steps.map((step) => eventsOf(step, 'countdown'))).toEqual(
      [4, 3, 2, 1, 0].map((remaining) => [{ type: 'countdown', remaining }]),
    );
    expect(steps.slice(0, 4).every((step) => eventsOf(step, 'forced_new_round').length === 0)).toBe(true);
    expect(eventsOf(steps[4], 'forced_new_round')).toEqual([
      { type: 'forced_new_round', promptTokens: CRITICAL, critical: 244_800 },
    ]);
  });

  it('updates the reminder every critical generation, since it carries the countdown', () => {
    const steps = run(Array(3).fill(CRITICAL));
    expect(actions(steps)).toEqual(['add', 'update', 'update']);
    expect(steps[0]?.reminder.text).toContain('CRITICAL');
    expect(steps[0]?.reminder.text).toContain('over the critical size of 244,800');
    expect(steps[0]?.reminder.text).toContain('still critical 4 more generations from now');
    expect(steps[2]?.reminder.text).toContain('2 more generations');
  });

  it('says the round is being forced on the last generation', () => {
    const steps = run(Array(5).fill(CRITICAL));
    expect(steps[3]?.reminder.text).toContain('1 more generation from now');
    expect(steps[4]?.reminder.text).toContain('A new round is being forced now');
  });

  it('uses distinct texts for caution and critical', () => {
    const [caution, critical] = run([CAUTION, CRITICAL]);
    expect(caution?.reminder.text).toMatch(/^Context health: caution\./);
    expect(critical?.reminder.text).toMatch(/^Context health: CRITICAL\./);
    expect(critical?.reminder.action).toBe('update');
  });

  it('resets the countdown when the context is healthy again', () => {
    const steps = run([CRITICAL, CRITICAL, HEALTHY, CRITICAL]);
    expect(steps[2]?.state.countdown).toBeNull();
    expect(eventsOf(steps[3], 'countdown')).toEqual([{ type: 'countdown', remaining: 4 }]);
  });

  it('keeps the countdown through caution, so hovering at the line cannot dodge it', () => {
    const steps = run([CRITICAL, CRITICAL, CAUTION, CRITICAL]);
    expect(steps[2]?.state.countdown).toBe(3);
    expect(steps[2]?.reminder.action).toBe('update');
    expect(steps[2]?.reminder.text).toMatch(/^Context health: caution\./);
    expect(eventsOf(steps[3], 'countdown')).toEqual([{ type: 'countdown', remaining: 2 }]);
  });

  it('announces the forced round once and keeps it due while the prompt stays critical', () => {
    const steps = run(Array(9).fill(CRITICAL));
    expect(steps.flatMap((step) => eventsOf(step, 'forced_new_round'))).toHaveLength(1);
    expect(eventsOf(steps[4], 'forced_new_round')).toHaveLength(1);
    expect(steps.slice(4).map((step) => step.state.countdown)).toEqual([0, 0, 0, 0, 0]);
    expect(steps.slice(5).flatMap((step) => eventsOf(step, 'countdown'))).toEqual([]);
    // The agent still gets the reminder's text every generation.
    expect(steps[8]?.reminder).toMatchObject({
      action: 'update',
      text: expect.stringContaining('A new round is being forced now'),
    });
  });

  it('ends a due round once the prompt falls below critical; a later critical stretch counts down again', () => {
    const steps = run([...Array(5).fill(CRITICAL), CAUTION, CRITICAL]);
    expect(steps[5]?.state.countdown).toBeNull();
    expect(eventsOf(steps[6], 'countdown')).toEqual([{ type: 'countdown', remaining: 4 }]);
  });

  it('does not flood the feed: 20 critical generations make 8 events', () => {
    const steps = run(Array(20).fill(CRITICAL));
    const types = steps.flatMap((step) => step.events.map((event) => event.type));
    // level_changed and reminder_added on entry, 5 countdown figures, one forced round.
    expect(types).toEqual([
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

  it('leaves the text out when the caller writes it (reminderText: false), deciding the same', () => {
    const prompts = [CAUTION, CRITICAL, CRITICAL, CAUTION, HEALTHY];
    const withText = run(prompts);
    const without = run(prompts, { reminderText: false });
    expect(without.map((step) => step.reminder.text)).toEqual(prompts.map(() => undefined));
    expect(without.map((step) => step.reminder.action)).toEqual(withText.map((step) => step.reminder.action));
    expect(without.map((step) => step.state)).toEqual(withText.map((step) => step.state));
    expect(without.map((step) => step.events)).toEqual(withText.map((step) => step.events));
    expect(withText[0]?.reminder.text).toContain('caution');
  });

  it('honours a criticalCountdown option', () => {
    const steps = run(Array(2).fill(CRITICAL), { criticalCountdown: 2 });
    expect(eventsOf(steps[1], 'forced_new_round')).toHaveLength(1);
  });
});

describe('stepHealth leaving caution', () => {
  it('drops the reminder once a prompt is below optimal', () => {
    const steps = run([CAUTION, HEALTHY]);
    expect(steps[1]?.reminder).toEqual({ owner: 'context_health', action: 'drop' });
    expect(eventsOf(steps[1], 'reminder_dropped')).toEqual([
      { type: 'reminder_dropped', promptTokens: HEALTHY },
    ]);
    expect(steps[1]?.state.reminder).toBe('none');
  });

  it('keeps the reminder at exactly the optimal size, which is healthy but not below it', () => {
    const steps = run([CAUTION, 200_000, 199_999]);
    expect(steps[1]?.level).toBe('healthy');
    expect(actions(steps)).toEqual(['add', 'none', 'drop']);
  });

  it('drops a critical reminder too once the new round starts small', () => {
    const steps = run([...Array(5).fill(CRITICAL), 36_081]);
    expect(steps[5]?.reminder.action).toBe('drop');
  });

  it('does nothing while healthy without a reminder', () => {
    expect(actions(run([HEALTHY, HEALTHY]))).toEqual(['none', 'none']);
  });
});

describe('stepHealth with unavailable usage', () => {
  it('is unknown and leaves the reminder and countdown alone', () => {
    const steps = run([CRITICAL, undefined]);
    expect(steps[1]?.level).toBe('unknown');
    expect(steps[1]?.reminder.action).toBe('none');
    expect(steps[1]?.state).toEqual({ ...steps[0]?.state, level: 'unknown' });
    expect(steps[1]?.events).toEqual([{ type: 'level_changed', from: 'critical', to: 'unknown' }]);
  });

  it('ignores a prompt figure on a generation marked unavailable', () => {
    const step = stepHealth(
      initialHealthState(),
      { available: false, promptTokens: CRITICAL },
      { thresholds },
    );
    expect(step.level).toBe('unknown');
  });
});

describe('stepHealth state', () => {
  it('stays a few numbers that the state schema accepts', () => {
    const steps = run([CAUTION, CRITICAL, CRITICAL]);
    const state = steps[2]?.state;
    expect(HealthStateSchema.safeParse(state).success).toBe(true);
    expect(state).toEqual({ level: 'critical', reminder: 'critical', sinceReminder: 0, countdown: 3 });
  });

  it('does not change the state it is given', () => {
    const state = Object.freeze(initialHealthState());
    expect(() =>
      stepHealth(state, { available: true, promptTokens: CRITICAL }, { thresholds }),
    ).not.toThrow();
    expect(state).toEqual(initialHealthState());
  });

  it('uses the default thresholds (optimal 100,000) when none are given', () => {
    expect(stepHealth(initialHealthState(), { available: true, promptTokens: 100_001 }).level).toBe(
      'caution',
    );
  });
});
