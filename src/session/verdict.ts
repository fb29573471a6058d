import type { PressureReport, Priority } from '../pressure/types.js';
import type { Verdict, VerdictAction, VerdictReason } from './session-schemas.js';

export type { Verdict, VerdictAction, VerdictModel, VerdictReason } from './session-schemas.js';

const ACTION_RANK: Readonly<Record<VerdictAction, number>> = {
  continue: 0,
  optimize: 1,
  compress: 2,
  terminate: 3,
};
const PRIORITY_RANK: Readonly<Record<Priority, number>> = { low: 0, normal: 1, high: 2, urgent: 3 };

/**
 * Combines the models' reasons as DESIGN.md's verdict table says: terminate > compress > optimize >
 * continue, and the priority is the highest any model gave.
 */
export function combineVerdict(reasons: VerdictReason[]): Verdict {
  let action: VerdictAction = 'continue';
  let priority: Priority = 'low';
  for (const reason of reasons) {
    reason.reason = flatten(reason.reason);
    if (ACTION_RANK[reason.action] > ACTION_RANK[action]) action = reason.action;
    if (PRIORITY_RANK[reason.priority] > PRIORITY_RANK[priority]) priority = reason.priority;
  }
  return { action, priority, reasons };
}

/** The regulator speaks through its suggested action, as is. */
export function regulatorReason(report: PressureReport, notes: string[]): VerdictReason {
  const p = report.pressure;
  const thresholds = p.thresholdsExceeded.length ? `; thresholds ${p.thresholdsExceeded.join(', ')}` : '';
  return {
    model: 'regulator',
    action: p.suggestedAction,
    priority: p.recommendations.priority,
    reason: `${p.level} pressure, viability ${p.sessionViability}/100${thresholds}${notes.length ? ` (${notes.join('; ')})` : ''}`,
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
