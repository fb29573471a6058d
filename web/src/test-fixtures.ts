import type {
  HealthLevel,
  SessionHealth,
  SessionSignals,
  SessionSummary,
  WhatIfSummary,
} from '../../src/contract/index.js';

/**
 * Whole contract shapes for the dashboard's tests: a test states the fields it is about, these fill the rest with
 * what a fresh session answers, so that a fixture is always a shape the API can send.
 */

/** A session's signals before any usage. */
export function signalsFixture(overrides: Partial<SessionSignals> = {}): SessionSignals {
  return {
    lastPromptTokens: null,
    lastCompletionTokens: null,
    window: null,
    percentOfWindow: null,
    burnRateTokensPerMin: 0,
    tokensLastMinute: 0,
    tpmLimit: null,
    tpmLeft: null,
    quotas: [],
    costUsd: null,
    costEstimated: false,
    unpricedCalls: 0,
    cacheHitPercent: null,
    tokenBudget: null,
    budgetUsed: null,
    budgetRemaining: null,
    ageSeconds: 0,
    driftPercent: null,
    ...overrides,
  };
}

/** A session's profile: the figures of a registry model, every source named as the API names it. */
export function profileFixture(
  overrides: Partial<SessionSummary['profile']> = {},
): SessionSummary['profile'] {
  return {
    contextWindow: 200_000,
    optimalMaxTokens: 100_000,
    criticalMaxTokens: 180_000,
    tpmLimit: null,
    tokenBudget: null,
    source: 'registry',
    windowSource: 'registry',
    priceSource: 'registry',
    estimatedFrom: null,
    family: null,
    unpricedReason: null,
    ...overrides,
  };
}

/** A session's health at a level. */
export function healthFixture(level: HealthLevel, overrides: Partial<SessionHealth> = {}): SessionHealth {
  return {
    level,
    promptTokens: level === 'unknown' ? null : 1,
    optimal: 1,
    critical: 1,
    limit: 1,
    reminder: null,
    countdown: null,
    ...overrides,
  };
}

/** A what-if's calibration with the given errors. */
export function calibrationFixture(
  meanAbsErrorPercent: number,
  maxAbsErrorPercent: number,
): WhatIfSummary['calibration'] {
  return {
    baseTokens: 0,
    toolScale: 1,
    textScale: 1,
    reasoningScale: 1,
    itemTokens: 0,
    segmentOffsets: [],
    model: 'base+tool+text',
    calls: 2,
    meanAbsErrorPercent,
    maxAbsErrorPercent,
    maxErrorCallIndex: null,
    segments: [],
  };
}

/** What a summary says of its name, sub-agents, totals and evictions before any of them is known. */
export function namingFixture(
  overrides: Partial<
    Pick<SessionSummary, 'subAgents' | 'project' | 'title' | 'totals' | 'evictions' | 'receipt'>
  > = {},
): Pick<SessionSummary, 'subAgents' | 'project' | 'title' | 'totals' | 'evictions' | 'receipt'> {
  return {
    subAgents: [],
    project: null,
    title: null,
    totals: { calls: 0, tokens: 0, costUsd: null, unpricedCalls: 0 },
    evictions: null,
    receipt: null,
    ...overrides,
  };
}
