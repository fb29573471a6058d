import type { HealthThresholds } from './health-thresholds.js';

/** The owner name of the one reminder context health manages. */
export const CONTEXT_HEALTH_REMINDER = 'context_health';

/** What the reminder text is built from. */
export interface ReminderFigures {
  promptTokens: number;
  thresholds: HealthThresholds;
}

/**
 * A count with its thousands grouped: 1,234,567. By hand rather than with toLocaleString, so the text is the same
 * whatever ICU data Node was built with; by slices rather than a lookahead regular expression, which took ~3× as
 * long (150–170 ns against 50–65 ns a figure here; the text is written on every update in caution or critical).
 */
export function groupedCount(value: number): string {
  const digits = String(Math.round(value));
  const sign = digits.charCodeAt(0) === 45 ? 1 : 0; // '-'
  let grouped = '';
  let end = digits.length;
  while (end - sign > 3) {
    grouped = `,${digits.slice(end - 3, end)}${grouped}`;
    end -= 3;
  }
  return digits.slice(0, end) + grouped;
}

const tokens = groupedCount;

function windowShare({ promptTokens, thresholds }: ReminderFigures): string {
  if (thresholds.limit === undefined) return '';
  const percent = Math.round((promptTokens / thresholds.limit) * 100);
  return `${percent}% of the ${tokens(thresholds.limit)}-token window`;
}

function generations(count: number): string {
  return count === 1 ? '1 more generation' : `${count} more generations`;
}

/**
 * The reminder shown while the context is over its optimal size: says the numbers, and how to recover without
 * losing anything.
 */
export function cautionReminderText(figures: ReminderFigures): string {
  const { promptTokens, thresholds } = figures;
  const share = windowShare(figures);
  const critical =
    thresholds.critical === undefined ? '' : `; it turns critical above ${tokens(thresholds.critical)}`;
  return (
    `Context health: caution. The last prompt was ${tokens(promptTokens)} tokens${share ? ` (${share})` : ''}, ` +
    `over the optimal size of ${tokens(thresholds.optimal)}${critical}. ` +
    'Work gets slower and less reliable as the context grows. At the next good stopping point, write down what ' +
    'must survive (decisions, open questions, next steps, files touched) in your task notes or a carried-over ' +
    'reminder, then start a new round with a fresh context. Your task notes and existing reminders are kept.'
  );
}

/**
 * The reminder shown while the context is critical: urgent, with the countdown to the forced new round.
 * @param countdown critical generations left before a new round is forced; 0 means it is being forced now.
 */
export function criticalReminderText(figures: ReminderFigures & { countdown: number }): string {
  const { promptTokens, thresholds, countdown } = figures;
  const share = windowShare(figures);
  const consequence =
    countdown > 0
      ? `If the context is still critical ${generations(countdown)} from now, a new round will be forced.`
      : 'A new round is being forced now; only your task notes and reminders carry over.';
  return (
    `Context health: CRITICAL. The last prompt was ${tokens(promptTokens)} tokens${share ? ` (${share})` : ''}, ` +
    `over the critical size of ${tokens(thresholds.critical ?? thresholds.optimal)}. ` +
    'Generations are close to failing or stalling. Start a new round now: first save what must survive ' +
    '(decisions, open questions, next steps) to your task notes or a carried-over reminder. ' +
    consequence
  );
}
