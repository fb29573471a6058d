import { cautionReminderText, criticalReminderText } from '../health/health-reminder.js';
import type { SessionHealth } from './session-schemas.js';
import { thresholdsOf } from './session-settings.js';
import type { SessionState } from './session-state.js';

/**
 * The health part of a state: level, thresholds, the owned reminder (its text written out) and the countdown.
 * The reminder speaks of the latest prompt, so that its figure and the session's own always agree.
 */
export function healthOf(state: SessionState): SessionHealth {
  const t = state.thresholds;
  const kept = state.reminder;
  let reminder: SessionHealth['reminder'] = null;
  if (kept !== null) {
    const figures = { promptTokens: state.lastPrompt ?? kept.prompt, thresholds: thresholdsOf(state) };
    reminder = {
      id: 'context_health',
      text:
        kept.countdown === null
          ? cautionReminderText(figures)
          : criticalReminderText({ ...figures, countdown: kept.countdown }),
    };
  }
  return {
    level: state.health.level,
    promptTokens: state.lastPrompt,
    optimal: t.optimal,
    critical: t.critical,
    limit: t.limit,
    reminder,
    countdown: state.health.countdown,
  };
}
