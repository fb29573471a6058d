import { type ContextPressure, contextPressure } from '../kv/context-pressure.js';
import type { SessionKvFigures, VerdictReason } from './session-schemas.js';
import type { SessionState } from './session-state.js';

/**
 * The session's KV budget snapshot (seed 001), or undefined for a session without KV settings. Its cells are the
 * engine's own count when an update named it (`kvCellsUsed`: a local engine's cache, forks and every sequence
 * included), otherwise the cells the last prompt and completion hold (one sequence's tokens).
 */
export function kvSnapshotOf(state: SessionState): ContextPressure | undefined {
  const kv = state.options.kv;
  if (!kv) return undefined;
  return contextPressure({
    ...kv,
    cellsUsed: state.kvCellsUsed ?? (state.lastPrompt ?? 0) + (state.lastCompletion ?? 0),
  });
}

/** The KV figures the session's signals carry (what the dashboard shows), or undefined without KV settings. */
export function kvFiguresOf(state: SessionState): SessionKvFigures | undefined {
  const snapshot = kvSnapshotOf(state);
  if (!snapshot) return undefined;
  return { ...snapshot.toJSON(), source: state.kvCellsUsed === undefined ? 'usage' : 'engine' };
}

/**
 * The KV budget's say (seed 001; DESIGN.md's verdict table) on the session's cells: headroom > 0 continues,
 * headroom ≤ 0 is compress (tool results are refused), critical terminates. Undefined for a session without KV
 * settings.
 */
export function kvReason(state: SessionState): VerdictReason | undefined {
  const snapshot = kvSnapshotOf(state);
  if (!snapshot) return undefined;
  const figures = `${snapshot.remaining} cells remaining, headroom ${snapshot.headroom}`;
  if (snapshot.critical) {
    return {
      model: 'kv',
      action: 'terminate',
      priority: 'urgent',
      reason: `KV critical: ${figures} < hard limit ${snapshot.hardLimit}`,
    };
  }
  if (snapshot.headroom <= 0) {
    return {
      model: 'kv',
      action: 'compress',
      priority: 'high',
      reason: `KV headroom exhausted: ${figures}; tool results are refused`,
    };
  }
  return { model: 'kv', action: 'continue', priority: 'low', reason: `KV: ${figures}` };
}
