import { contextPressure } from '../kv/context-pressure.js';
import type { VerdictReason } from './session-schemas.js';
import type { SessionState } from './session-state.js';

/**
 * The KV budget's say (seed 001; DESIGN.md's verdict table) on the cells the last prompt and completion hold:
 * headroom > 0 continues, headroom ≤ 0 is compress (tool results are refused), critical terminates. Undefined
 * for a session without KV settings.
 */
export function kvReason(state: SessionState): VerdictReason | undefined {
  const kv = state.options.kv;
  if (!kv) return undefined;
  const snapshot = contextPressure({
    ...kv,
    cellsUsed: (state.lastPrompt ?? 0) + (state.lastCompletion ?? 0),
  });
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
