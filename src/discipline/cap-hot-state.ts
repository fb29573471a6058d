import { BarometerValidationError } from '../errors/validation.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { formatHotStateJson, type HotState, minimalHotState } from './hot-state.js';
import { defaultTokenCounter, tryCount } from './try-count.js';

/** A hot state held to a token cap, and how it got there. */
export interface CappedHotState {
  state: HotState;
  /** Tokens of the returned state; null when the counter failed. */
  tokens: number | null;
  /** True when the state was over the cap (or could not be counted) and was replaced by the minimal state. */
  truncated: boolean;
  /** False when even the minimal state is over the cap or could not be counted: treat it as a violation. */
  fits: boolean;
  counter: string;
}

/**
 * Holds a hot state to `maxTokens`: the state as it is when it fits, otherwise the minimal state
 * {session ids, risk_level}, marked `truncated`. Fails closed: a state that cannot be counted is
 * truncated too, and `fits` is false unless the returned state was counted within the cap.
 *
 * @param counter @default createTokenCounter() (o200k_base)
 * @throws BarometerValidationError when `maxTokens` is not a non-negative integer
 * @example
 * capHotState(state, 1000).truncated; // false when the state is ≤ 1000 tokens
 */
export function capHotState(
  state: HotState,
  maxTokens: number,
  counter: TokenCounter = defaultTokenCounter,
): CappedHotState {
  if (!Number.isInteger(maxTokens) || maxTokens < 0) {
    const issue = {
      field: 'maxTokens',
      value: maxTokens,
      message: 'must be an integer ≥ 0',
      allowed: { min: 0 },
    };
    throw new BarometerValidationError([issue], 'hot state cap');
  }
  const tokens = tryCount(counter, formatHotStateJson(state));
  if (tokens !== null && tokens <= maxTokens) {
    return { state, tokens, truncated: false, fits: true, counter: counter.name };
  }
  const minimal = minimalHotState(state);
  const minimalTokens = tryCount(counter, formatHotStateJson(minimal));
  return {
    state: minimal,
    tokens: minimalTokens,
    truncated: true,
    fits: minimalTokens !== null && minimalTokens <= maxTokens,
    counter: counter.name,
  };
}
