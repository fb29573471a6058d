import {
  type TriggerCheck,
  type TriggerDecision,
  triggerCheckText,
} from '../compaction/evaluate-triggers.js';
import type { VerdictReason } from './session-schemas.js';
import type { SessionThinking } from './session-thinking.js';

/** The triggers' trail on an update without a usage figure: they need the prompt's size. */
export const TRIGGERS_NOT_EVALUATED = 'no usage figure this generation: triggers not evaluated';

/**
 * The triggers' say (seed 004; DESIGN.md's verdict table): a trigger that fired is compress (survival urgent),
 * a lowered thinking budget is optimize, else continue. The line names what decided, built from the decision's
 * checks: the rule that fired, or the guards that blocked. Every check is in the answer's `trigger.reasons`; the
 * verdict does not repeat the whole trail. `evaluated` is false when the update had no usage figure.
 */
export function triggerReason(
  trigger: TriggerDecision,
  evaluated: boolean,
  thinking: SessionThinking,
): VerdictReason {
  const mode = trigger.trigger;
  if (trigger.fire && mode !== undefined) {
    return {
      model: 'triggers',
      action: 'compress',
      priority: mode === 'survival' ? 'urgent' : 'high',
      reason: `${mode} compaction triggered: ${textsOf(trigger.checks, (check) => check.code === mode && check.outcome === 'fired')}`,
    };
  }
  if (thinking.low) {
    return { model: 'triggers', action: 'optimize', priority: 'normal', reason: thinking.reason ?? '' };
  }
  return {
    model: 'triggers',
    action: 'continue',
    priority: 'low',
    reason: noTriggerReason(trigger, evaluated),
  };
}

/** Why nothing fired: not evaluated, no trigger reached, or a trigger held back by the guards that blocked. */
function noTriggerReason(trigger: TriggerDecision, evaluated: boolean): string {
  if (!evaluated) return `no trigger: ${TRIGGERS_NOT_EVALUATED}`;
  if (trigger.blocked === undefined) return 'no trigger reached';
  const blocked = textsOf(trigger.checks, (check) => check.outcome === 'blocked');
  const what = `${trigger.blocked} blocked by a guard`;
  return blocked === '' ? `no trigger: ${what}` : `no trigger: ${what} (${blocked})`;
}

/** The lines of the checks that pass `test`, joined. */
function textsOf(checks: readonly TriggerCheck[], test: (check: TriggerCheck) => boolean): string {
  let lines = '';
  for (const check of checks) {
    if (!test(check)) continue;
    const line = triggerCheckText(check);
    lines += lines === '' ? line : `; ${line}`;
  }
  return lines;
}
