import type { PressureReport, Priority } from '../pressure/types.js';
import type { Verdict, VerdictAction, VerdictReason } from './session-schemas.js';

export type { Verdict, VerdictAction, VerdictModel, VerdictReason } from './session-schemas.js';

/**
 * Ranks by switch, not by a table: a table read with the reasons' varying keys is a megamorphic keyed load in
 * V8, paid several times on every update.
 */
function actionRank(action: VerdictAction): number {
  switch (action) {
    case 'continue':
      return 0;
    case 'optimize':
      return 1;
    case 'compress':
      return 2;
    case 'terminate':
      return 3;
  }
}

function priorityRank(priority: Priority): number {
  switch (priority) {
    case 'low':
      return 0;
    case 'normal':
      return 1;
    case 'high':
      return 2;
    case 'urgent':
      return 3;
  }
}

/**
 * Combines the models' reasons as DESIGN.md's verdict table says: terminate > compress > optimize >
 * continue, and the priority is the highest any model gave.
 */
export function combineVerdict(
  reasons: VerdictReason[],
  extras: Pick<Verdict, 'newRoundDue' | 'waitSeconds' | 'thinking'> = {
    newRoundDue: false,
    waitSeconds: null,
    thinking: null,
  },
): Verdict {
  let action: VerdictAction = 'continue';
  let priority: Priority = 'low';
  for (const reason of reasons) {
    reason.reason = flatten(reason.reason);
    if (actionRank(reason.action) > actionRank(action)) action = reason.action;
    if (priorityRank(reason.priority) > priorityRank(priority)) priority = reason.priority;
  }
  // Written out rather than spread: this runs on every update.
  return {
    action,
    priority,
    newRoundDue: extras.newRoundDue,
    waitSeconds: extras.waitSeconds,
    thinking: extras.thinking,
    reasons,
  };
}

/**
 * The regulator speaks through its suggested action, except its terminate: in a session, terminate means the
 * work must stop (the budget model and the KV model say when). A terminate caused by context (memory over 95% of
 * the window, or the CRITICAL level) is compress, urgent, with a new round due (DESIGN.md's verdict table);
 * one caused by the budget's runway (minutes < 5) is optimize, high.
 * `memoryPercent` is the unrounded share of the window the last prompt took.
 */
export function regulatorReason(
  report: PressureReport,
  notes: string[],
  memoryPercent: number | null = null,
): VerdictReason & { newRound: boolean } {
  const p = report.pressure;
  const thresholds = p.thresholdsExceeded.length ? `; thresholds ${p.thresholdsExceeded.join(', ')}` : '';
  const figures = `${p.level} pressure, viability ${p.sessionViability}/100${thresholds}${notes.length ? ` (${notes.join('; ')})` : ''}`;
  const contextCause =
    p.level === 'CRITICAL'
      ? 'the CRITICAL level'
      : memoryPercent !== null && memoryPercent > 95
        ? `memory ${Math.round(memoryPercent * 10) / 10}% of the window (> 95%)`
        : undefined;
  if (p.suggestedAction === 'terminate' && contextCause !== undefined) {
    return {
      model: 'regulator',
      action: 'compress',
      priority: 'urgent',
      reason: `${figures}: the regulator's terminate comes from context pressure (${contextCause}), relieved by a new round, not by stopping`,
      newRound: true,
    };
  }
  if (p.suggestedAction === 'terminate') {
    // Not context: the budget runs out within minutes at this rate (eol). Stopping is the budget model's call
    // (spent, or spent by the next request); until then the advice is to slow down.
    return {
      model: 'regulator',
      action: 'optimize',
      priority: 'high',
      reason: `${figures}: the regulator's terminate comes from the budget's runway (${p.estimatedMinutesRemaining ?? '?'} minutes at this rate); slow down — the budget model stops the work when it is spent`,
      newRound: false,
    };
  }
  return {
    model: 'regulator',
    action: p.suggestedAction,
    priority: p.recommendations.priority,
    reason: figures,
    newRound: false,
  };
}

/**
 * A string built by concatenation is a tree of pieces in V8 until something reads it whole; a verdict is
 * kept between updates, so its reasons are flattened once (coercion to a number reads the whole string).
 */
function flatten(text: string): string {
  // biome-ignore lint/suspicious/noGlobalIsNan: the coercion is the point
  isNaN(text as unknown as number);
  return text;
}
