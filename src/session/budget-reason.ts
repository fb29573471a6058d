import type { SessionSignals, VerdictReason } from './session-schemas.js';
import type { SessionState } from './session-state.js';

/**
 * The token budget's say (DESIGN.md's verdict table): terminate when it is spent, or will be by the next request.
 * The next request sends at least the last prompt and the last completion again (a conversation grows by what the
 * model wrote), so a budget with less than that left cannot pay for it. Undefined for a session without a budget.
 */
export function budgetReason(signals: SessionSignals, state: SessionState): VerdictReason | undefined {
  if (signals.tokenBudget === null || signals.budgetUsed === null) return undefined;
  if (signals.budgetUsed >= signals.tokenBudget) {
    return {
      model: 'budget',
      action: 'terminate',
      priority: 'urgent',
      reason: `token budget exhausted: ${signals.budgetUsed} of ${signals.tokenBudget} used`,
    };
  }
  const left = signals.budgetRemaining ?? 0;
  const next = (state.lastPrompt ?? 0) + (state.lastCompletion ?? 0);
  if (next > 0 && left < next) {
    return {
      model: 'budget',
      action: 'terminate',
      priority: 'urgent',
      reason: `token budget spent by the next request: ${left} of ${signals.tokenBudget} left, the next request sends at least ${next} (the last prompt and completion)`,
    };
  }
  return {
    model: 'budget',
    action: 'continue',
    priority: 'low',
    reason: `token budget: ${left} of ${signals.tokenBudget} left`,
  };
}
