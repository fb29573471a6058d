import type { PressureLevel, Priority } from '../pressure/types.js';
import type { VerdictReason } from './session-schemas.js';

/** What a session needs to know of its pool when it decides: read from the pool store just before the step. */
export interface PoolStanding {
  poolId: string;
  /** The pool's pressure level (seed 000's levels). */
  level: PressureLevel;
  /**
   * Used plus reserved as a share of the pool's most pressed limit (its token budget, or a per-minute limit),
   * 0–1 and above 1 when settled usage overran it.
   */
  usedFraction: number;
  /** This session's priority ceiling: the share of the budget up to which its reservations are admitted. */
  ceiling: number;
}

const percent = (fraction: number) => `${Math.round(fraction * 1000) / 10}%`;

/**
 * The pool model of the verdict (DESIGN.md's table, seed 000's cross-agent coordination): below its ceiling an
 * agent continues; at or over it, its reservations would be refused, so it defers (optimize); and at a HIGH or
 * CRITICAL pool a low-priority agent defers so that the others continue. Urgent work (ceiling 1.0) defers only
 * when the budget is spent.
 */
export function poolReason(standing: PoolStanding | null, priority: Priority): VerdictReason | null {
  if (standing === null) return null;
  const { poolId, level, usedFraction, ceiling } = standing;
  const share = `pool ${poolId} holds ${percent(usedFraction)} of its limits (${level})`;
  if (usedFraction >= ceiling) {
    return {
      model: 'pool',
      action: 'optimize',
      priority,
      reason: `${share}, at or over the ${priority} ceiling of ${percent(ceiling)}: defer this agent's work until the pool frees up (reservations of its priority are refused)`,
    };
  }
  if (priority === 'low' && (level === 'HIGH' || level === 'CRITICAL')) {
    return {
      model: 'pool',
      action: 'optimize',
      priority: 'low',
      reason: `${share}: a low-priority agent defers so that higher-priority ones continue`,
    };
  }
  return {
    model: 'pool',
    action: 'continue',
    priority: 'low',
    reason: `${share}, below the ${priority} ceiling of ${percent(ceiling)}`,
  };
}
