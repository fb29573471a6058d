import type { SessionEvent } from '../../src/contract/index.js';

/** One model event received live on a session's stream (level changes, reminders, the countdown). */
export interface LiveEvent {
  name: string;
  /** When it happened: the event's own time (ISO 8601, as every time the API answers). */
  at: string;
  text: string;
}

/** The time of a streamed event (its `at`), or `received` for a message without one. */
export function eventTime(data: unknown, received: string): string {
  const at = typeof data === 'object' && data !== null ? (data as { at?: unknown }).at : undefined;
  return typeof at === 'string' && !Number.isNaN(Date.parse(at)) ? at : received;
}

/**
 * The events a session stream carries besides `session` and `deleted`: the health model's (docs/sessions-api.md)
 * and the session's own.
 */
export const MODEL_EVENT_NAMES = [
  'level_changed',
  'reminder_added',
  'reminder_updated',
  'reminder_dropped',
  'countdown',
  'forced_new_round',
  'verdict_changed',
  'regulator_level_changed',
  'compaction',
  'usage_unavailable',
  'window_threshold',
] as const satisfies readonly SessionEvent['type'][];
// Every event type of the contract is listed: a new one fails the build here, not silently on the page.
const everyEventListed: SessionEvent['type'] extends (typeof MODEL_EVENT_NAMES)[number] ? true : never = true;
void everyEventListed;

const TITLES: Readonly<Record<string, string>> = {
  level_changed: 'Health level changed',
  reminder_added: 'Reminder added',
  reminder_updated: 'Reminder updated',
  reminder_dropped: 'Reminder dropped',
  countdown: 'Countdown',
  forced_new_round: 'Forced new round',
  verdict_changed: 'Verdict changed',
  regulator_level_changed: 'Regulator level changed',
  compaction: 'Compaction',
  usage_unavailable: 'Usage unavailable',
  window_threshold: 'Usage window threshold',
};

/**
 * A line of text for a model event. The event's own fields are shown as they come, because the dashboard
 * must not reinterpret what the session decided: `from → to` when both are given, the reminder text when
 * there is one, and the remaining scalar fields as `key value`.
 */
export function describeEvent(name: string, data: unknown): string {
  const title = TITLES[name] ?? name;
  if (typeof data !== 'object' || data === null) return title;
  const fields = { ...(data as Record<string, unknown>) };
  delete fields.sessionId;
  delete fields.type;
  // The time of the event is the row's own column.
  delete fields.at;
  const parts: string[] = [];
  if (fields.from !== undefined && fields.to !== undefined) {
    parts.push(`${String(fields.from)} → ${String(fields.to)}`);
    delete fields.from;
    delete fields.to;
  }
  const text = typeof fields.text === 'string' ? fields.text : undefined;
  delete fields.text;
  for (const [key, value] of Object.entries(fields)) {
    if (value === null || typeof value === 'object') continue;
    parts.push(`${key} ${String(value)}`);
  }
  if (text) parts.push(`“${text}”`);
  return parts.length ? `${title}: ${parts.join(', ')}` : title;
}
