import { thinkingBudgetResolved } from '../../compaction/thinking-budget.js';
import type { WindowLever } from './window-lever-names.js';

/**
 * The thinking budget a lowered sub-agent conversation gets: seed 004's thinking rule at its low level for Anthropic
 * (`budget_tokens` 8192), the figure the session's verdict carries when a per-minute quota runs low.
 */
export const WINDOW_LOWERED_BUDGET_TOKENS = thinkingBudgetResolved({
  tpmLeft: -1,
  provider: 'anthropic',
}).budgetTokens;

/** The wait of the session's verdict for a 5-hour window (`verdict.windowWait`), times in epoch ms. */
export interface WindowWaitNow {
  seconds: number;
  until: number;
}

/** What a request tells the window policy. */
export interface WindowLeverInput {
  levers: readonly WindowLever[];
  /** The request belongs to a sub-agent's conversation; the main conversation is never acted on. */
  subAgent: boolean;
  /**
   * What its conversation's first request decided (kept for the whole conversation); undefined: this is its first
   * request (or the conversation is unknown).
   */
  conversation: { lowered: boolean } | undefined;
  /** The session's window wait (the 5-hour window binds), or null. */
  windowWait: WindowWaitNow | null;
  now: number;
  /** The proxy's longest hold (`maxWaitSeconds`). */
  maxHoldSeconds: number;
  /** The request's `thinking.budget_tokens` (type `enabled`); null when it asks for no budgeted thinking. */
  budgetTokens: number | null;
  /** New decisions may be made (the proxy acts on the session: not paused); false keeps what was decided. */
  mayDecide: boolean;
}

export interface WindowLeverDecision {
  /** The conversation's decision, to keep for its later requests (undefined for a main conversation's request). */
  conversation: { lowered: boolean } | undefined;
  /** The budget to send instead of the request's; null: the request's own stays. */
  budgetTokens: number | null;
  /** How long to hold the request (ms); 0: not held. */
  holdMs: number;
}

/** Whether the 5-hour window binds now: the verdict carries its wait, and the wait has not run out. */
export function windowBinds(wait: WindowWaitNow | null, now: number): boolean {
  return wait !== null && wait.seconds > 0 && wait.until > now;
}

/**
 * The budget a request of a conversation is sent with: 8192 for a lowered conversation's request whose budget is
 * above it; null (the request's own) otherwise: never raised, never added to a request without one.
 */
export function loweredBudget(
  conversation: { lowered: boolean },
  budgetTokens: number | null,
): number | null {
  return conversation.lowered && budgetTokens !== null && budgetTokens > WINDOW_LOWERED_BUDGET_TOKENS
    ? WINDOW_LOWERED_BUDGET_TOKENS
    : null;
}

const UNCHANGED: WindowLeverDecision = Object.freeze({
  conversation: undefined,
  budgetTokens: null,
  holdMs: 0,
});

/**
 * The window policy on one request (pure, time a parameter). Only a sub-agent's conversation is acted on, only while
 * the 5-hour window binds:
 * - `thinking`: decided at the conversation's first request (lowered when the window binds then) and kept for every
 *   later request, whatever the window does meanwhile: Anthropic's cache of the conversation's messages is
 *   invalidated by a change of the thinking parameters, so the conversation sees one budget from start to end.
 *   A lowered conversation's request with a budget above 8192 tokens is sent with 8192; a budget at or below it, or a
 *   request without budgeted thinking, goes as it came (never raised, never added).
 * - `hold`: the request waits out what is left of the window's wait, never longer than the proxy's longest hold.
 */
export function decideWindowLevers(input: WindowLeverInput): WindowLeverDecision {
  if (!input.subAgent) return UNCHANGED;
  const binds = windowBinds(input.windowWait, input.now);
  const conversation = input.conversation ?? {
    lowered: input.mayDecide && input.levers.includes('thinking') && binds,
  };
  const budgetTokens = loweredBudget(conversation, input.budgetTokens);
  const holdMs =
    input.mayDecide && input.levers.includes('hold') && binds && input.windowWait !== null
      ? Math.max(0, Math.min(input.windowWait.until - input.now, input.maxHoldSeconds * 1000))
      : 0;
  return { conversation, budgetTokens, holdMs };
}
