import { describe, expect, it } from 'vitest';
import { measureWindowLevers } from './measure-window-levers.js';
import { WindowPolicySchema } from './window-lever-names.js';
import { decideWindowLevers, WINDOW_LOWERED_BUDGET_TOKENS, type WindowLeverInput } from './window-levers.js';

const NOW = Date.parse('2026-12-03T10:00:00Z');
// The 5-hour window binds: a pause of 20 minutes makes what is left last until its reset.
const BINDS = { seconds: 1200, until: NOW + 1200 * 1000 };

function input(overrides: Partial<WindowLeverInput> = {}): WindowLeverInput {
  return {
    levers: ['thinking', 'hold'],
    subAgent: true,
    conversation: undefined,
    windowWait: BINDS,
    now: NOW,
    maxHoldSeconds: 60,
    budgetTokens: 31_999,
    mayDecide: true,
    ...overrides,
  };
}

describe('the window policy (decideWindowLevers)', () => {
  it('lowers to the thinking rule’s low budget, 8192 tokens, as seed 004 says for Anthropic', () => {
    expect(WINDOW_LOWERED_BUDGET_TOKENS).toBe(8192);
  });

  it('lowers a sub-agent conversation from its first request while the 5-hour window binds, and holds it at most the longest hold', () => {
    expect(decideWindowLevers(input())).toEqual({
      conversation: { lowered: true },
      budgetTokens: 8192,
      holdMs: 60_000,
    });
  });

  it('holds for what is left of the wait when that is shorter than the longest hold', () => {
    const now = BINDS.until - 12_500;
    expect(decideWindowLevers(input({ now })).holdMs).toBe(12_500);
  });

  it('keeps the first request’s decision for the whole conversation, whatever the window does later', () => {
    // Lowered at its first request: still lowered once the window no longer binds (its cache sees one budget).
    expect(decideWindowLevers(input({ conversation: { lowered: true }, windowWait: null }))).toEqual({
      conversation: { lowered: true },
      budgetTokens: 8192,
      holdMs: 0,
    });
    // Not lowered at its first request: never lowered later, even when the window binds (only held).
    expect(decideWindowLevers(input({ conversation: { lowered: false } }))).toEqual({
      conversation: { lowered: false },
      budgetTokens: null,
      holdMs: 60_000,
    });
  });

  it('never acts on the main conversation', () => {
    expect(decideWindowLevers(input({ subAgent: false }))).toEqual({
      conversation: undefined,
      budgetTokens: null,
      holdMs: 0,
    });
  });

  it('never raises a budget and never touches a request without budgeted thinking', () => {
    expect(decideWindowLevers(input({ budgetTokens: 4096 })).budgetTokens).toBeNull();
    expect(decideWindowLevers(input({ budgetTokens: 8192 })).budgetTokens).toBeNull();
    expect(decideWindowLevers(input({ budgetTokens: null })).budgetTokens).toBeNull();
  });

  it('does nothing while the window does not bind, or once its wait has passed', () => {
    expect(decideWindowLevers(input({ windowWait: null }))).toEqual({
      conversation: { lowered: false },
      budgetTokens: null,
      holdMs: 0,
    });
    expect(decideWindowLevers(input({ now: BINDS.until }))).toMatchObject({
      conversation: { lowered: false },
      holdMs: 0,
    });
  });

  it('each lever is its own switch; with none, nothing acts', () => {
    expect(decideWindowLevers(input({ levers: ['thinking'] }))).toMatchObject({
      budgetTokens: 8192,
      holdMs: 0,
    });
    expect(decideWindowLevers(input({ levers: ['hold'] }))).toMatchObject({
      conversation: { lowered: false },
      budgetTokens: null,
      holdMs: 60_000,
    });
    expect(decideWindowLevers(input({ levers: [] }))).toMatchObject({ budgetTokens: null, holdMs: 0 });
  });

  it('makes no new decision on a paused session, and keeps the ones made before', () => {
    expect(decideWindowLevers(input({ mayDecide: false }))).toEqual({
      conversation: { lowered: false },
      budgetTokens: null,
      holdMs: 0,
    });
    expect(decideWindowLevers(input({ mayDecide: false, conversation: { lowered: true } }))).toMatchObject({
      budgetTokens: 8192,
      holdMs: 0,
    });
  });

  it('validates the levers: known names, each once', () => {
    expect(WindowPolicySchema.safeParse(['thinking', 'hold']).success).toBe(true);
    expect(WindowPolicySchema.safeParse(['thinking', 'thinking']).success).toBe(false);
    expect(WindowPolicySchema.safeParse(['sleep']).success).toBe(false);
  });
});

describe('measureWindowLevers', () => {
  const MINUTE = 60_000;
  const bound = (at: number) => ({ seconds: 600, until: at + 600_000 });
  const main = {
    id: 'main',
    subAgent: false,
    calls: [
      { at: NOW, windowWait: bound(NOW), reasoningTokens: 20_000 },
      { at: NOW + MINUTE, windowWait: bound(NOW + MINUTE), reasoningTokens: 100 },
    ],
  };
  const sub = {
    id: 'sub',
    subAgent: true,
    calls: [
      // First call while the window binds: lowered from here on.
      {
        at: NOW + 2 * MINUTE,
        windowWait: { seconds: 30, until: NOW + 2 * MINUTE + 30_000 },
        reasoningTokens: 10_000,
      },
      { at: NOW + 3 * MINUTE, windowWait: null, reasoningTokens: 5000 },
    ],
  };

  it('counts the sub-agents’ calls lowered and held, and the reasoning over 8192 tokens the budget could cut', () => {
    const measure = measureWindowLevers([main, sub], ['thinking', 'hold'], 60);
    expect(measure).toMatchObject({
      calls: 4,
      callsWhileBinding: 3,
      subAgentConversations: 1,
      subAgentCalls: 2,
    });
    // 10,000 − 8192 = 1808 on the first call; the second (5000) is under the budget: nothing to cut.
    expect(measure.subAgents).toEqual({
      conversationsLowered: 1,
      callsLowered: 2,
      reasoningTokensSavedAtMost: 1808,
      callsHeld: 1,
      heldSeconds: 30,
    });
    // Were the main conversation a sub-agent's: its two calls lowered (20,000 − 8192 = 11,808 more) and held 60 s each.
    expect(measure.ifEveryConversationWereASubAgent).toEqual({
      conversationsLowered: 2,
      callsLowered: 4,
      reasoningTokensSavedAtMost: 11_808 + 1808,
      callsHeld: 3,
      heldSeconds: 150,
    });
  });

  it('finds nothing to do in a log without sub-agents', () => {
    const measure = measureWindowLevers([main], ['thinking', 'hold'], 60);
    expect(measure.subAgents).toEqual({
      conversationsLowered: 0,
      callsLowered: 0,
      reasoningTokensSavedAtMost: 0,
      callsHeld: 0,
      heldSeconds: 0,
    });
  });
});
