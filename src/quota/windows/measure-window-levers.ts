import type { WindowLever } from './window-lever-names.js';
import {
  decideWindowLevers,
  WINDOW_LOWERED_BUDGET_TOKENS,
  type WindowWaitNow,
  windowBinds,
} from './window-levers.js';

/** One recorded call as the window policy would have seen its request. */
export interface WindowLeverCall {
  /** When the request went (epoch ms). */
  at: number;
  /** The session's window wait when the request went: the verdict of the answer before it; null: none. */
  windowWait: WindowWaitNow | null;
  /** The reasoning tokens the log records for the call; null when it records none. */
  reasoningTokens: number | null;
}

/** One conversation of a log: the main one, or a sub-agent's. */
export interface WindowLeverConversation {
  id: string;
  subAgent: boolean;
  calls: readonly WindowLeverCall[];
}

/** What the levers would have done to a set of calls. */
export interface WindowLeverTally {
  /** Conversations whose first call came while the window bound: every call of theirs lowered. */
  conversationsLowered: number;
  /** Calls sent with the lowered thinking budget (8192 tokens). */
  callsLowered: number;
  /**
   * Reasoning tokens over the lowered budget in those calls (the most a budget of 8192 could have cut; the model may
   * think less than its budget): null when the log records no reasoning tokens for them.
   */
  reasoningTokensSavedAtMost: number | null;
  callsHeld: number;
  /** The holds added up, in seconds (each at most the proxy's longest hold). */
  heldSeconds: number;
}

/** `replay --what-if --window-policy`: each lever measured on the calls of a log that carry windows. */
export interface WindowLeverMeasure {
  levers: WindowLever[];
  /** The lowered budget (`budget_tokens`) and the longest hold (seconds) measured with. */
  loweredBudgetTokens: number;
  maxHoldSeconds: number;
  calls: number;
  /** Calls whose request went while the 5-hour window bound (verdict `windowWait`), whatever their conversation. */
  callsWhileBinding: number;
  /**
   * Reasoning tokens over the lowered budget in the calls that went while the window bound, whatever their
   * conversation: the most the thinking lever could cut from them had each been a sub-agent's lowered one.
   */
  reasoningOverBudgetWhileBinding: number;
  /** The most reasoning tokens any call records; null when the log records none. */
  maxReasoningTokens: number | null;
  subAgentConversations: number;
  subAgentCalls: number;
  /** What the levers would have done: on the sub-agents' calls only (the main conversation is never acted on). */
  subAgents: WindowLeverTally;
  /** The same, were every conversation of the log a sub-agent's: what the levers would touch, had they one. */
  ifEveryConversationWereASubAgent: WindowLeverTally;
}

function tally(
  conversations: readonly WindowLeverConversation[],
  levers: readonly WindowLever[],
  maxHoldSeconds: number,
  asSubAgent: (conversation: WindowLeverConversation) => boolean,
): WindowLeverTally {
  const out: WindowLeverTally = {
    conversationsLowered: 0,
    callsLowered: 0,
    reasoningTokensSavedAtMost: null,
    callsHeld: 0,
    heldSeconds: 0,
  };
  let heldMs = 0;
  for (const conversation of conversations) {
    let decided: { lowered: boolean } | undefined;
    for (const call of conversation.calls) {
      const decision = decideWindowLevers({
        levers,
        subAgent: asSubAgent(conversation),
        conversation: decided,
        windowWait: call.windowWait,
        now: call.at,
        maxHoldSeconds,
        // A budget above the lowered one, as Claude Code 2.1.328 sends (31,999): what the lever would cut.
        budgetTokens: WINDOW_LOWERED_BUDGET_TOKENS + 1,
        mayDecide: true,
      });
      if (decided === undefined && decision.conversation?.lowered) out.conversationsLowered++;
      decided = decision.conversation;
      if (decision.budgetTokens !== null) {
        out.callsLowered++;
        if (call.reasoningTokens !== null)
          out.reasoningTokensSavedAtMost =
            (out.reasoningTokensSavedAtMost ?? 0) +
            Math.max(0, call.reasoningTokens - WINDOW_LOWERED_BUDGET_TOKENS);
      }
      if (decision.holdMs > 0) {
        out.callsHeld++;
        heldMs += decision.holdMs;
      }
    }
  }
  out.heldSeconds = Math.round(heldMs / 100) / 10;
  // Nothing lowered: nothing saved (not an unknown figure).
  if (out.callsLowered === 0) out.reasoningTokensSavedAtMost = 0;
  return out;
}

/**
 * Each lever of the window policy on a log's conversations (pure): the same decision the proxy makes
 * (`decideWindowLevers`), on the calls as recorded (a hold does not move the later calls: their times stay the log's).
 */
export function measureWindowLevers(
  conversations: readonly WindowLeverConversation[],
  levers: readonly WindowLever[],
  maxHoldSeconds: number,
): WindowLeverMeasure {
  let calls = 0;
  let callsWhileBinding = 0;
  let subAgentCalls = 0;
  let reasoningOverBudgetWhileBinding = 0;
  let maxReasoningTokens: number | null = null;
  for (const conversation of conversations) {
    calls += conversation.calls.length;
    if (conversation.subAgent) subAgentCalls += conversation.calls.length;
    for (const call of conversation.calls) {
      if (call.reasoningTokens !== null)
        maxReasoningTokens = Math.max(maxReasoningTokens ?? 0, call.reasoningTokens);
      if (!windowBinds(call.windowWait, call.at)) continue;
      callsWhileBinding++;
      reasoningOverBudgetWhileBinding += Math.max(
        0,
        (call.reasoningTokens ?? 0) - WINDOW_LOWERED_BUDGET_TOKENS,
      );
    }
  }
  return {
    levers: [...levers],
    loweredBudgetTokens: WINDOW_LOWERED_BUDGET_TOKENS,
    maxHoldSeconds,
    calls,
    callsWhileBinding,
    reasoningOverBudgetWhileBinding,
    maxReasoningTokens,
    subAgentConversations: conversations.filter((conversation) => conversation.subAgent).length,
    subAgentCalls,
    subAgents: tally(conversations, levers, maxHoldSeconds, (conversation) => conversation.subAgent),
    ifEveryConversationWereASubAgent: tally(conversations, levers, maxHoldSeconds, () => true),
  };
}
