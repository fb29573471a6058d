import type { SessionPressure } from '../pressure/session-pressure.js';
import type { Priority } from '../pressure/types.js';
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
    case 'wait':
      return 2;
    case 'compress':
      return 3;
    case 'terminate':
      return 4;
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
 * Combines the models' reasons as DESIGN.md's verdict table says: terminate > compress > wait >
 * optimize > continue, and the priority is the highest any model gave. Each reason is already in session terms (the
 * regulator's through {@link regulatorReason}).
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
 * DESIGN.md's verdict table, the regulator's row: it speaks through its suggested action, except its terminate.
 * In a session, terminate means the work must stop, which the budget and KV models say; the regulator's terminate
 * becomes what relieves its cause. Context (the CRITICAL level, memory over 95% of the window) is relieved by a
 * new round; the budget's runway (under 5 minutes at this rate) by slowing down until the budget model stops the
 * work once it is spent.
 */
const REGULATOR_TERMINATE: Readonly<
  Record<'context' | 'runway', { action: VerdictAction; priority: Priority; newRoundDue: boolean }>
> = {
  context: { action: 'compress', priority: 'urgent', newRoundDue: true },
  runway: { action: 'optimize', priority: 'high', newRoundDue: false },
};

/**
 * The regulator's reason in a session's verdict: its level, viability, thresholds and notes, and its action in
 * session terms ({@link REGULATOR_TERMINATE}). The report itself is left as the regulator gave it.
 * `windowShare` is the unrounded share of the window the last prompt took (its figure is quoted).
 */
export function regulatorReason(
  regulator: Pick<SessionPressure, 'report' | 'notes' | 'terminateCauses'>,
  windowShare: number | null,
): VerdictReason & { newRoundDue: boolean } {
  const p = regulator.report.pressure;
  const notes = regulator.notes;
  const thresholds = p.thresholdsExceeded.length ? `; thresholds ${p.thresholdsExceeded.join(', ')}` : '';
  const figures = `${p.level} pressure, viability ${p.sessionViability}/100${thresholds}${notes.length ? ` (${notes.join('; ')})` : ''}`;
  if (p.suggestedAction !== 'terminate') {
    return {
      model: 'regulator',
      action: p.suggestedAction,
      priority: p.recommendations.priority,
      reason: figures,
      newRoundDue: false,
    };
  }
  const causes = regulator.terminateCauses;
  if (causes.includes('critical_level') || causes.includes('memory_over_95')) {
    const cause = causes.includes('critical_level')
      ? 'the CRITICAL level'
      : `memory ${Math.round((windowShare ?? 0) * 100 * 10) / 10}% of the window (> 95%)`;
    return {
      model: 'regulator',
      ...REGULATOR_TERMINATE.context,
      reason: `${figures}: the regulator's terminate comes from context pressure (${cause}), relieved by a new round, not by stopping`,
    };
  }
  return {
    model: 'regulator',
    ...REGULATOR_TERMINATE.runway,
    reason: `${figures}: the regulator's terminate comes from the budget's runway (${p.estimatedMinutesRemaining ?? '?'} minutes at this rate); slow down — the budget model stops the work when it is spent`,
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
