import * as z from 'zod';
import { parseOrThrow } from './parse-or-throw.js';

/** Below this many tokens left in the TPM window, reasoning is turned down. */
export const DEFAULT_LOW_THINKING_BELOW = 200_000;
/** Thinking tokens allowed when the quota is low. */
export const LOW_THINKING_BUDGET = 8192;
/** Thinking tokens allowed otherwise. */
export const HIGH_THINKING_BUDGET = 24_576;

export const THINKING_PROVIDERS = ['gemini', 'openai', 'anthropic'] as const;
export type ThinkingProvider = (typeof THINKING_PROVIDERS)[number];

export const ThinkingBudgetInputSchema = z.strictObject({
  /** Tokens left in the current TPM window (may be negative when over, or Infinity without a quota). */
  // z.number() refuses Infinity, which is what "no quota" looks like here.
  tpmLeft: z.custom<number>((value) => typeof value === 'number' && !Number.isNaN(value), 'must be a number'),
  provider: z.enum(THINKING_PROVIDERS),
  /** @default 200000 */
  lowBelow: z.number().min(0).optional(),
  /**
   * Which Gemini control to set. Gemini 3 models take `thinkingLevel`, Gemini 2.5 models `thinkingBudget`;
   * the API answers 400 to a request that sets both, so only one is ever written.
   * @default 'level'
   */
  geminiControl: z.enum(['level', 'budget']).optional(),
});
export type ThinkingBudgetInput = z.infer<typeof ThinkingBudgetInputSchema>;

/** Request parameters to merge into the provider call, and the budget they stand for. */
export interface ThinkingBudget {
  provider: ThinkingProvider;
  /** True when the TPM left is below `lowBelow` and reasoning was turned down. */
  lowered: boolean;
  level: 'low' | 'high';
  /** Thinking tokens this level allows: 8192 when lowered, else 24576. */
  budgetTokens: number;
  /**
   * Gemini: `{ thinkingConfig: { thinkingLevel: 'LOW' | 'HIGH' } }` or `{ thinkingConfig: { thinkingBudget } }`;
   * OpenAI: `{ reasoning_effort: 'low' | 'medium' }`; Anthropic: `{ thinking: { type: 'enabled', budget_tokens } }`
   * (Anthropic wants `max_tokens` above `budget_tokens`: the caller sets it).
   */
  params: Record<string, unknown>;
}

/**
 * Dynamic thinking budget (seed 004): with less than 200,000 tokens left in the TPM window, reasoning goes
 * low (Gemini LOW / ≤ 8192, OpenAI `low`, Anthropic 8192); otherwise high (Gemini HIGH / 24576, OpenAI
 * `medium`, Anthropic 24576).
 * @throws BarometerValidationError on an unknown provider or a non-number `tpmLeft`
 *
 * @example
 * thinkingBudget({ tpmLeft: 199_999, provider: 'openai' }).params; // { reasoning_effort: 'low' }
 */
export function thinkingBudget(input: ThinkingBudgetInput): ThinkingBudget {
  return thinkingBudgetResolved(parseOrThrow(ThinkingBudgetInputSchema, input, 'thinking budget input'));
}

/** {@link thinkingBudget} on input already valid by construction: what a session calls on each update. */
export function thinkingBudgetResolved(valid: ThinkingBudgetInput): ThinkingBudget {
  const { tpmLeft, provider } = valid;
  const lowered = tpmLeft < (valid.lowBelow ?? DEFAULT_LOW_THINKING_BELOW);
  const budgetTokens = lowered ? LOW_THINKING_BUDGET : HIGH_THINKING_BUDGET;
  const level = lowered ? 'low' : 'high';
  let params: Record<string, unknown>;
  if (provider === 'gemini') {
    params =
      (valid.geminiControl ?? 'level') === 'level'
        ? { thinkingConfig: { thinkingLevel: lowered ? 'LOW' : 'HIGH' } }
        : { thinkingConfig: { thinkingBudget: budgetTokens } };
  } else if (provider === 'openai') {
    params = { reasoning_effort: lowered ? 'low' : 'medium' };
  } else {
    params = { thinking: { type: 'enabled', budget_tokens: budgetTokens } };
  }
  return { provider, lowered, level, budgetTokens, params };
}
