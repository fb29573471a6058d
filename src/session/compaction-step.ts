import { recordCompactionResolved } from '../compaction/evaluate-triggers.js';
import { BarometerValidationError } from '../errors/validation.js';
import { type Evicted, settleEvictions, tallyEviction } from './eviction-savings.js';
import { isoTime, notAhead } from './iso-time.js';
import { verdictAfterCompaction } from './rejudge.js';
import type { SessionEvent } from './session-schemas.js';
import { triggerSettingsOf } from './session-settings.js';
import type { SessionState } from './session-state.js';
import type { StepContext } from './step-session.js';

/** A compaction as a caller reports it: the context size before (default: the last prompt) and after. */
export interface CompactionReport {
  before?: number;
  after?: number;
  trigger?: string;
  timestamp?: number | string;
  /** The compaction was an eviction by barometer: what it removed and where the originals are. */
  evicted?: Evicted;
}

/** Compactions by barometer itself (its tombstones stay in the context); any other is the agent's own. */
const isBarometers = (trigger: string | undefined) => trigger?.startsWith('barometer') === true;

/**
 * Tells a state a compaction happened (the agent's own or barometer's), so that the triggers' loop guards hold
 * until the context grows again, and judges the verdict again from what is known until the next call (the
 * after-size when reported, else unknown health, no reminder, no compaction advice). Pure, like
 * {@link stepSession}.
 * @throws BarometerValidationError for a bad time, or `after` larger than `before`
 */
export function recordCompactionStep(
  state: SessionState,
  compaction: CompactionReport,
  context: StepContext,
): {
  state: SessionState;
  event: Extract<SessionEvent, { type: 'compaction' }>;
  /** What else changed: the verdict (`verdict_changed`). */
  events: SessionEvent[];
} {
  const at =
    compaction.timestamp === undefined
      ? (state.lastAt ?? context.now)
      : notAhead(compaction.timestamp, 'timestamp', context.latest);
  const before = compaction.before ?? state.lastPrompt;
  const after = compaction.after;
  if (before !== null && after !== undefined && after > before) {
    throw new BarometerValidationError([
      {
        field: 'after',
        value: after,
        message: `must not exceed before (${before} tokens${compaction.before === undefined ? ', the last prompt' : ''}): a compaction does not grow the context`,
        allowed: { max: before },
      },
    ]);
  }
  let next = state;
  if (before !== null && after !== undefined) {
    next = {
      ...state,
      triggers: recordCompactionResolved(
        state.triggers,
        { before: Math.round(before), after: Math.round(after) },
        triggerSettingsOf(state),
      ),
    };
  }
  // Savings: an eviction's freed tokens accrue per later call; the agent's own compaction summarises them away.
  const evictions = compaction.evicted
    ? tallyEviction(state.evictions, compaction.evicted, state.generations)
    : isBarometers(compaction.trigger)
      ? state.evictions
      : settleEvictions(state.evictions, state.generations);
  if (evictions !== undefined && evictions !== state.evictions) next = { ...next, evictions };
  // A compaction recorded before the session's first call changes no advice: there is none yet.
  const judged =
    state.lastVerdict === null
      ? { state: next, events: [] }
      : verdictAfterCompaction(
          next,
          after === undefined ? null : Math.round(after),
          Math.max(at, state.lastAt ?? at),
        );
  return {
    state: judged.state,
    events: judged.events,
    event: {
      type: 'compaction',
      at: isoTime(at),
      trigger: compaction.trigger ?? 'manual',
      before,
      after: after ?? null,
      ...(compaction.evicted ? { evicted: compaction.evicted } : {}),
    },
  };
}
