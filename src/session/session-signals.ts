import { type QuotaStanding, quotaStandings, type ReportedDimension } from '../quota/quota-standings.js';
import { emptyTokenWindow, type TokenWindowSpec, windowTokens } from '../quota/token-window.js';
import { kvFiguresOf } from './kv-reason.js';
import type { SessionKvFigures, SessionSignals } from './session-schemas.js';
import { burnWindowOf } from './session-settings.js';
import { QUOTA_WINDOW, type SessionState } from './session-state.js';
import { windowForecastsOf, windowView } from './session-windows.js';

const MINUTE_MS = 60_000;

/**
 * The last prompt as a share of the window (0.5 is half of it, above 1 past it), unrounded; null when either is
 * unknown. A step computes it once and passes it along: the signals' percent, the regulator's memory input and
 * the regulator's reason all read this one figure.
 */
export function windowShareOf(state: SessionState): number | null {
  const window = state.thresholds.limit;
  return state.lastPrompt === null || window === null ? null : state.lastPrompt / window;
}

/** The signals of a state as of `at` (the last update's time by default). */
export function signalsOf(state: SessionState, at: number = state.lastAt ?? state.createdAt): SessionSignals {
  return signalsAt(state, at, burnWindowOf(state), windowShareOf(state));
}

/** {@link signalsOf} with the burn window and the window share a step already has. */
export function signalsAt(
  state: SessionState,
  at: number,
  burn: TokenWindowSpec,
  windowShare: number | null,
): SessionSignals {
  const burnMinutes = burn.windowMs / MINUTE_MS;
  const tokensLastMinute = windowTokens(state.minute, QUOTA_WINDOW, at);
  const tpmLimit = state.profile.tpmLimit ?? null;
  const quotas = quotaStandingsOf(state, at);
  const spend = state.spend;
  const tokensStanding = quotas.find((standing) => standing.dimension === 'tokens');
  const tokenBudget = state.options.tokenBudget ?? null;
  return {
    lastPromptTokens: state.lastPrompt,
    lastCompletionTokens: state.lastCompletion,
    window: state.thresholds.limit,
    percentOfWindow: windowShare === null ? null : Math.round(windowShare * 1000) / 10,
    burnRateTokensPerMin: Math.round(windowTokens(state.burn, burn, at) / burnMinutes),
    tokensLastMinute,
    tpmLimit: tokensStanding?.limit ?? tpmLimit,
    tpmLeft: tokensStanding
      ? tokensStanding.left
      : tpmLimit === null
        ? null
        : Math.max(0, tpmLimit - tokensLastMinute),
    quotas,
    costUsd: spend && spend.pricedCalls > 0 ? Math.round(spend.costUsd * 1e6) / 1e6 : null,
    costEstimated: (spend?.estimatedCostUsd ?? 0) > 0,
    unpricedCalls: spend?.unpricedCalls ?? 0,
    cacheHitPercent:
      spend && spend.promptTokens > 0
        ? Math.round((spend.cachedReadTokens / spend.promptTokens) * 1000) / 10
        : null,
    tokenBudget,
    budgetUsed: tokenBudget === null ? null : state.budgetUsed,
    budgetRemaining: tokenBudget === null ? null : Math.max(0, tokenBudget - state.budgetUsed),
    ageSeconds: state.firstAt === null ? 0 : Math.max(0, Math.round((at - state.firstAt) / 1000)),
    driftPercent: state.drift,
    ...(state.windows?.length ? { windows: windowForecastsOf(state, at).map(windowView) } : {}),
    ...kvSignal(state),
  };
}

/** The KV figures as a signal, only for a session with KV settings. */
function kvSignal(state: SessionState): { kv?: SessionKvFigures } {
  const kv = kvFiguresOf(state);
  return kv === undefined ? {} : { kv };
}

/** The quota windows of a state written before they existed (a state read back from an older version). */
export function emptyQuotaWindows(): NonNullable<SessionState['quota']> {
  return {
    requests: emptyTokenWindow(QUOTA_WINDOW),
    input: emptyTokenWindow(QUOTA_WINDOW),
    output: emptyTokenWindow(QUOTA_WINDOW),
  };
}

/**
 * Where the session stands against each quota with a known limit: the configured ones (`rateLimits`, `tpmLimit`)
 * and the ones the provider's headers reported at this update. The next request is expected to need what the
 * last one did, counted the same way; `margin` multiplies that need (the survival rule's margin), not the one request.
 */
export function quotaStandingsOf(state: SessionState, at: number, margin = 1): QuotaStanding[] {
  const limits = state.options.rateLimits ?? {};
  const windows = state.quota ?? emptyQuotaWindows();
  const counts = state.lastCounts ?? { requests: 1, input: 0, output: 0, tokens: 0 };
  const need =
    margin === 1
      ? counts
      : {
          input: Math.ceil(counts.input * margin),
          output: Math.ceil(counts.output * margin),
          tokens: Math.ceil(counts.tokens * margin),
        };
  const reported = state.reported ?? undefined;
  return quotaStandings(
    [
      {
        dimension: 'requests',
        limit: limits.requestsPerMinute ?? null,
        window: windows.requests,
        need: 1,
        reported: reportedOf(reported, 'requests'),
      },
      {
        dimension: 'input',
        limit: limits.inputTokensPerMinute ?? null,
        window: windows.input,
        need: need.input,
        reported: reportedOf(reported, 'input'),
      },
      {
        dimension: 'output',
        limit: limits.outputTokensPerMinute ?? null,
        window: windows.output,
        need: need.output,
        reported: reportedOf(reported, 'output'),
      },
      {
        dimension: 'tokens',
        limit: state.profile.tpmLimit ?? null,
        window: state.minute,
        need: need.tokens,
        reported: reportedOf(reported, 'tokens'),
      },
    ],
    QUOTA_WINDOW,
    at,
  );
}

/** The provider's reported figures of one quota dimension, as a standing's input reads them; undefined when absent. */
function reportedOf(
  reported: SessionState['reported'] | undefined,
  key: QuotaStanding['dimension'],
): ReportedDimension | undefined {
  const figures = reported?.[key];
  return reported === null || reported === undefined || figures === undefined
    ? undefined
    : { at: reported.at, ...figures };
}
