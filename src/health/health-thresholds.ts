import type { ModelProfile } from '../models/model-profile.js';

/** The prompt size above which context health turns to caution when a model sets no `optimalMaxTokens`. */
export const DEFAULT_OPTIMAL_MAX_TOKENS = 100_000;
/** The share of the window above which context health turns critical when a model sets no `criticalMaxTokens`. */
export const DEFAULT_CRITICAL_SHARE = 0.9;

/** The figures of a profile that context health reads; every one may be missing. */
export type HealthProfile = Partial<
  Pick<
    ModelProfile,
    'effectiveWindow' | 'contextLength' | 'inputLength' | 'optimalMaxTokens' | 'criticalMaxTokens'
  >
>;

/** Context-health thresholds for one model, in prompt tokens. */
export interface HealthThresholds {
  /** The window prompts are measured against, or undefined when no window is known. */
  readonly limit: number | undefined;
  /** Above this the context is in caution. */
  readonly optimal: number;
  /** Above this the context is critical; undefined when neither a window nor `criticalMaxTokens` is known. */
  readonly critical: number | undefined;
}

/**
 * Context-health thresholds (seed 003): `optimal = optimalMaxTokens ?? 100,000`,
 * `critical = criticalMaxTokens ?? floor(limit · 0.9)`.
 *
 * The limit is the profile's effective window when it has one, else `contextLength`, else `inputLength`. The seed
 * names only the last two; the effective window comes first because a monitor must measure against the window the
 * agent really has (Claude Code compacts near 167K on a model listed at 1M), and `resolveProfile` always sets it
 * from the other two when no agent narrows it.
 *
 * @example healthThresholds({ contextLength: 272_000, optimalMaxTokens: 200_000 }) // { limit: 272000, optimal: 200000, critical: 244800 }
 */
export function healthThresholds(profile: HealthProfile = {}): HealthThresholds {
  const limit = profile.effectiveWindow ?? profile.contextLength ?? profile.inputLength;
  const optimal = profile.optimalMaxTokens ?? DEFAULT_OPTIMAL_MAX_TOKENS;
  const critical =
    profile.criticalMaxTokens ??
    (limit === undefined ? undefined : Math.floor(limit * DEFAULT_CRITICAL_SHARE));
  return { limit, optimal, critical };
}
