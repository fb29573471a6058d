import * as z from 'zod';
import { type HealthLevel, HealthLevelSchema, healthLevel } from './health-level.js';
import { CONTEXT_HEALTH_REMINDER, cautionReminderText, criticalReminderText } from './health-reminder.js';
import { type HealthThresholds, healthThresholds } from './health-thresholds.js';

/** Generations between repeats of the caution reminder when no cadence (or a cadence below 1) is set. */
export const DEFAULT_CAUTION_CADENCE = 10;
/** Critical generations before a new round is forced. */
export const DEFAULT_CRITICAL_COUNTDOWN = 5;

/**
 * Per-session context-health state: a few numbers, so it can be kept in any store.
 * - `reminder`: which text the owned reminder currently shows (`none` when it is not shown);
 * - `sinceReminder`: caution generations since the reminder was last emitted;
 * - `countdown`: critical generations left before a forced new round, or null when no countdown runs.
 */
export const HealthStateSchema = z.strictObject({
  level: HealthLevelSchema,
  reminder: z.enum(['none', 'caution', 'critical']),
  sinceReminder: z.int().min(0),
  countdown: z.int().min(0).nullable(),
});
export type HealthState = z.infer<typeof HealthStateSchema>;

/** The state of a session before its first generation. */
export function initialHealthState(): HealthState {
  return { level: 'unknown', reminder: 'none', sinceReminder: 0, countdown: null };
}

/** One generation's usage, as far as context health needs it. */
export interface HealthObservation {
  /** Whether the provider reported usage for this generation. */
  available: boolean;
  /** Provider-reported prompt tokens (cached ones included). */
  promptTokens?: number;
}

export interface StepHealthOptions {
  /** @default healthThresholds({}) — optimal 100,000, no known window */
  thresholds?: HealthThresholds;
  /** Repeat the caution reminder every this many generations; floored, and values below 1 mean the default. @default 10 */
  cautionCadence?: number;
  /** Critical generations before a forced new round; floored, and values below 1 mean the default. @default 5 */
  criticalCountdown?: number;
  /**
   * Write the reminder's text into the instruction (`add`, `update`). A caller that writes the text itself from
   * the state (a session does, when it is read) turns this off. @default true
   */
  reminderText?: boolean;
}

/** What to do with the owned `context_health` reminder after this generation. */
export interface ReminderInstruction {
  readonly owner: typeof CONTEXT_HEALTH_REMINDER;
  readonly action: 'add' | 'update' | 'drop' | 'none';
  /** The text to show, for `add` and `update`. */
  readonly text?: string;
}

export type HealthEvent =
  | { type: 'level_changed'; from: HealthLevel; to: HealthLevel; promptTokens?: number }
  | { type: 'reminder_added'; level: 'caution' | 'critical' }
  | { type: 'reminder_updated'; level: 'caution' | 'critical' }
  | { type: 'reminder_dropped'; promptTokens: number }
  | { type: 'countdown'; remaining: number }
  | { type: 'forced_new_round'; promptTokens: number; critical: number };

export interface HealthStep {
  readonly state: HealthState;
  readonly level: HealthLevel;
  readonly reminder: ReminderInstruction;
  readonly events: readonly HealthEvent[];
}

/** A count option as the seed's source reads it: floored, and unset or below 1 means the fallback. */
export function positiveCount(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  const floored = Math.floor(value);
  return floored >= 1 ? floored : fallback;
}

/**
 * The caution cadence in effect for an option value.
 * @example cautionCadence(undefined) // 10; cautionCadence(0) // 10; cautionCadence(3.9) // 3
 */
export function cautionCadence(value?: number): number {
  return positiveCount(value, DEFAULT_CAUTION_CADENCE);
}

/**
 * Advances context health by one generation (seed 003). Pure: the caller keeps the state.
 *
 * - Entering caution adds the reminder; while in caution it is repeated every `cautionCadence` generations.
 * - Each critical generation counts down from `criticalCountdown`; at 0 a `forced_new_round` event is emitted (the
 *   caller restarts the round with its carried-over state) and the countdown starts afresh. The reminder is
 *   updated every critical generation, since its text carries the countdown.
 * - A healthy generation resets the countdown; caution only pauses it, so hovering at the critical line cannot
 *   dodge the forced round. The reminder is dropped once a prompt is below the optimal size.
 * - Unavailable usage gives `unknown` and changes nothing else: no information is not good news.
 */
export function stepHealth(
  state: HealthState,
  observation: HealthObservation,
  options: StepHealthOptions = {},
): HealthStep {
  const thresholds = options.thresholds ?? healthThresholds();
  const promptTokens = observation.available ? observation.promptTokens : undefined;
  const level = healthLevel(promptTokens, thresholds);
  const events: HealthEvent[] = [];
  if (level !== state.level) {
    events.push(
      promptTokens === undefined || level === 'unknown'
        ? { type: 'level_changed', from: state.level, to: level }
        : { type: 'level_changed', from: state.level, to: level, promptTokens },
    );
  }
  // Written out: a spread that redefines a key takes V8's generic path, and this runs on every update.
  const next: HealthState = {
    level,
    reminder: state.reminder,
    sinceReminder: state.sinceReminder,
    countdown: state.countdown,
  };
  let reminder: ReminderInstruction = { owner: CONTEXT_HEALTH_REMINDER, action: 'none' };

  if (level === 'unknown' || promptTokens === undefined) {
    return { state: next, level, reminder, events };
  }

  if (level === 'healthy') {
    next.countdown = null;
    if (state.reminder !== 'none' && promptTokens < thresholds.optimal) {
      next.reminder = 'none';
      next.sinceReminder = 0;
      reminder = { owner: CONTEXT_HEALTH_REMINDER, action: 'drop' };
      events.push({ type: 'reminder_dropped', promptTokens });
    }
  } else if (level === 'caution') {
    // A forced round is over once the prompt is below critical; a countdown still running is kept, so hovering
    // at the line cannot dodge it.
    if (state.countdown === 0) next.countdown = null;
    const due =
      state.reminder === 'caution' && state.sinceReminder + 1 >= cautionCadence(options.cautionCadence);
    if (state.reminder === 'caution' && !due) {
      next.sinceReminder = state.sinceReminder + 1;
    } else {
      const action = state.reminder === 'none' ? 'add' : 'update';
      reminder = withText(action, options, () => cautionReminderText({ promptTokens, thresholds }));
      events.push({ type: action === 'add' ? 'reminder_added' : 'reminder_updated', level: 'caution' });
      next.reminder = 'caution';
      next.sinceReminder = 0;
    }
  } else {
    const action = state.reminder === 'none' ? 'add' : 'update';
    next.reminder = 'critical';
    next.sinceReminder = 0;
    // The reminder's text carries the figures, so it is rewritten every critical generation; the feed hears of
    // it only when it appears or turns critical.
    if (state.reminder !== 'critical') {
      events.push({ type: action === 'add' ? 'reminder_added' : 'reminder_updated', level: 'critical' });
    }
    if (state.countdown === 0) {
      // The new round was forced already and stays due until the prompt falls below critical: not forced again.
      next.countdown = 0;
      reminder = withText(action, options, () =>
        criticalReminderText({ promptTokens, thresholds, countdown: 0 }),
      );
    } else {
      const start = state.countdown ?? positiveCount(options.criticalCountdown, DEFAULT_CRITICAL_COUNTDOWN);
      const countdown = Math.max(0, start - 1);
      events.push({ type: 'countdown', remaining: countdown });
      reminder = withText(action, options, () =>
        criticalReminderText({ promptTokens, thresholds, countdown }),
      );
      next.countdown = countdown;
      if (countdown === 0) {
        events.push({
          type: 'forced_new_round',
          promptTokens,
          critical: thresholds.critical ?? thresholds.optimal,
        });
      }
    }
  }
  return { state: next, level, reminder, events };
}

/** An add or update instruction, with its text unless the caller writes the text itself. */
function withText(
  action: 'add' | 'update',
  options: StepHealthOptions,
  text: () => string,
): ReminderInstruction {
  return options.reminderText === false
    ? { owner: CONTEXT_HEALTH_REMINDER, action }
    : { owner: CONTEXT_HEALTH_REMINDER, action, text: text() };
}
