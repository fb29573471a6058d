import { LOW_THINKING_BUDGET, thinkingBudgetResolved } from '../compaction/thinking-budget.js';
import type { QuotaStanding } from '../quota/quota-standings.js';
import { QUOTA_LABELS, tightestTokenQuota } from '../quota/quota-survival.js';
import { quotaRulesOf } from '../usage/quota-count.js';
import type { SessionState } from './session-state.js';

/** The thinking budget is lowered under this share of a token quota left… */
const THINKING_LOW_BELOW = 0.2;
/** …and raised again only from this share: a band, so that the verdict does not flap. */
const THINKING_HIGH_FROM = 0.3;

/** Whether a session's reasoning is turned down, the provider's parameters that do it, and why. */
export interface SessionThinking {
  low: boolean;
  params: Record<string, unknown>;
  reason: string | undefined;
}

const NOT_LOWERED: SessionThinking = Object.freeze({
  low: false,
  params: Object.freeze({}),
  reason: undefined,
});

/**
 * Seed 004's thinking budget on a session: for a model that reasons (the registry says so), reasoning is turned
 * down while a token quota has less than 20% of its limit left (the seed's 200,000 of its 1,000,000), and up
 * again once every token quota has 30% left. The parameters are the provider's own.
 */
export function thinkingOf(state: SessionState, quotas: readonly QuotaStanding[]): SessionThinking {
  const tightest = tightestTokenQuota(quotas);
  const provider = thinkingProviderOf(state);
  if (state.profile.reasoning !== true || tightest === undefined || provider === undefined)
    return NOT_LOWERED;
  const share = tightest.left / tightest.limit;
  const low = state.thinkingLow === true ? share < THINKING_HIGH_FROM : share < THINKING_LOW_BELOW;
  if (!low) return NOT_LOWERED;
  return {
    low: true,
    params:
      LOWERED_THINKING[
        provider === 'gemini' ? (/gemini-2/.test(state.model) ? 'gemini-budget' : 'gemini-level') : provider
      ],
    reason: `thinking budget lowered to ${LOW_THINKING_BUDGET} tokens: ${tightest.left} of ${tightest.limit} ${QUOTA_LABELS[tightest.dimension]} left (${Math.round(share * 1000) / 10}%, under ${state.thinkingLow ? THINKING_HIGH_FROM * 100 : THINKING_LOW_BELOW * 100}%)`,
  };
}

/**
 * The lowered thinking parameters of each provider (and each of Gemini's two controls): constants, made once and
 * frozen to their leaves, so that every verdict that lowers thinking on one provider carries the same object and
 * none can change it through another.
 */
const LOWERED_THINKING = {
  anthropic: frozen(thinkingBudgetResolved({ tpmLeft: -1, provider: 'anthropic' }).params),
  openai: frozen(thinkingBudgetResolved({ tpmLeft: -1, provider: 'openai' }).params),
  'gemini-level': frozen(
    thinkingBudgetResolved({ tpmLeft: -1, provider: 'gemini', geminiControl: 'level' }).params,
  ),
  'gemini-budget': frozen(
    thinkingBudgetResolved({ tpmLeft: -1, provider: 'gemini', geminiControl: 'budget' }).params,
  ),
};

function frozen<T extends Record<string, unknown>>(value: T): T {
  for (const inner of Object.values(value))
    if (typeof inner === 'object' && inner !== null) frozen(inner as Record<string, unknown>);
  return Object.freeze(value);
}

function thinkingProviderOf(state: SessionState): 'anthropic' | 'openai' | 'gemini' | undefined {
  const rules = quotaRulesOf('manual', state.model);
  return rules === 'total' ? undefined : rules;
}
