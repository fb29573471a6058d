import type * as z from 'zod';
import { BarometerValidationError, parseWith, type ValidationIssue } from '../errors/validation.js';
import { healthThresholds } from '../health/health-thresholds.js';
import { initialHealthState } from '../health/step-health.js';
import { contextPressure } from '../kv/context-pressure.js';
import type { BarometerConfig } from '../models/barometer-config.js';
import { canonicalModelId, normalizeModelId } from '../models/model-id.js';
import { currentProfile, type ModelProfile, promptWindow } from '../models/model-profile.js';
import { resolveProfile } from '../models/resolve-profile.js';
import { emptyTokenWindow } from '../quota/token-window.js';
import { DEFAULT_BURN_WINDOW_SECONDS, type SessionOptions, SessionOptionsSchema } from './session-options.js';
import type { SessionState } from './session-state-schema.js';

/** Buckets of the burn window (5 minutes by default: 10-second buckets). */
export const BURN_BUCKETS = 30;
/** The quota window: the last minute, in 2-second buckets. */
export const QUOTA_WINDOW = Object.freeze({ windowMs: 60_000, buckets: 30 });

export type { SessionState };

export interface CreateSessionDependencies {
  /** The clock (epoch ms). @default Date.now */
  now?: () => number;
  generateId?: () => string;
  /** A loaded config file whose model entries override the built-in registry. */
  config?: BarometerConfig;
}

function invalid(issues: ValidationIssue[]): BarometerValidationError {
  return new BarometerValidationError(issues, 'session options');
}

/**
 * A new session's state: the options validated (strict), the model looked up with the agent's effective
 * window (the registry's, a family estimate's, what the agent reported, the config file's), the limits checked
 * against each other. A model no layer knows gets a session without a window or a price.
 * @throws BarometerValidationError for bad or inconsistent options
 */
export function createSessionState(
  options: SessionOptions,
  dependencies: CreateSessionDependencies = {},
): SessionState {
  const parsed = parseWith(SessionOptionsSchema, options);
  if (!parsed.ok) throw invalid(parsed.issues);
  const valid = parsed.value;
  if (valid.kv) {
    // Checked now, with the KV model's own rules (hardLimit ≥ nBatch), not at the first update.
    try {
      contextPressure({ ...valid.kv, cellsUsed: 0 });
    } catch (error) {
      if (!(error instanceof BarometerValidationError)) throw error;
      throw invalid(error.issues.map((issue) => ({ ...issue, field: `kv.${issue.field}` })));
    }
  }
  const overrides = {
    ...(valid.contextWindow === undefined
      ? {}
      : { contextLength: valid.contextWindow, effectiveWindow: valid.contextWindow }),
    ...(valid.optimalMaxTokens === undefined ? {} : { optimalMaxTokens: valid.optimalMaxTokens }),
    ...(valid.criticalMaxTokens === undefined ? {} : { criticalMaxTokens: valid.criticalMaxTokens }),
    ...(valid.tpmLimit === undefined
      ? valid.rateLimits?.tokensPerMinute === undefined
        ? {}
        : { tpmLimit: valid.rateLimits.tokensPerMinute }
      : { tpmLimit: valid.tpmLimit }),
  };
  // A model nobody knows (not the registry, no family, no config entry) still gets a session: no window (health
  // unknown), no price (calls unpriced), never a refusal: a registry lags the providers by weeks.
  const profile = resolveProfile(valid.model, {
    ...(valid.agent ? { agent: valid.agent } : {}),
    ...(valid.agentReported ? { reported: valid.agentReported } : {}),
    overrides,
    ...(dependencies.config ? { config: dependencies.config } : {}),
  }) ?? { id: valid.model };
  const window = profile.effectiveWindow ?? promptWindow(profile);
  const thresholds = healthThresholds({ ...profile, effectiveWindow: window });
  checkConsistent(valid, thresholds);
  const now = (dependencies.now ?? Date.now)();
  const burnWindowMs = (valid.burnWindowSeconds ?? DEFAULT_BURN_WINDOW_SECONDS) * 1000;
  return {
    version: 1,
    // The global Web Crypto, not node:crypto: that module's load costs a one-shot status line ~10 ms it never uses.
    id: valid.id ?? flatCopy((dependencies.generateId ?? (() => globalThis.crypto.randomUUID()))()),
    model: valid.model,
    agent: valid.agent ?? null,
    createdAt: now,
    options: valid,
    // resolveProfile builds its result field by field; a literal with fixed keys keeps the state small.
    profile: definedOf({
      id: profile.id,
      source: profile.source,
      contextLength: profile.contextLength,
      inputLength: profile.inputLength,
      maxOutput: profile.maxOutput,
      optimalMaxTokens: profile.optimalMaxTokens,
      criticalMaxTokens: profile.criticalMaxTokens,
      tpmLimit: profile.tpmLimit,
      effectiveWindow: profile.effectiveWindow,
      price: profile.price,
      priceSource: profile.priceSource,
      reasoning: profile.reasoning,
      reasoningSource: profile.reasoningSource,
      windowSource: profile.windowSource,
      estimatedFrom: profile.estimatedFrom,
      family: profile.family,
    }),
    thresholds: {
      limit: thresholds.limit ?? null,
      optimal: thresholds.optimal,
      critical: thresholds.critical ?? null,
    },
    generations: 0,
    firstAt: null,
    lastAt: null,
    lastPrompt: null,
    lastCompletion: null,
    budgetUsed: 0,
    drift: null,
    health: initialHealthState(),
    triggers: {},
    reminder: null,
    burn: emptyTokenWindow({ windowMs: burnWindowMs, buckets: BURN_BUCKETS }),
    minute: emptyTokenWindow(QUOTA_WINDOW),
    quota: {
      requests: emptyTokenWindow(QUOTA_WINDOW),
      input: emptyTokenWindow(QUOTA_WINDOW),
      output: emptyTokenWindow(QUOTA_WINDOW),
    },
    lastCounts: null,
    reported: null,
    thinkingLow: false,
    spend: { costUsd: 0, pricedCalls: 0, unpricedCalls: 0, promptTokens: 0, cachedReadTokens: 0 },
    lastVerdict: null,
    lastPressure: null,
  };
}

/**
 * Limits that contradict each other are refused, naming the fields: a caution threshold above the critical
 * one would never be seen, and a critical threshold beyond the window could never be reached.
 */
function checkConsistent(
  valid: z.output<typeof SessionOptionsSchema>,
  thresholds: { limit: number | undefined; optimal: number; critical: number | undefined },
): void {
  const issues: ValidationIssue[] = [];
  const { limit, critical } = thresholds;
  const tpm = valid.rateLimits?.tokensPerMinute;
  if (valid.tpmLimit !== undefined && tpm !== undefined && tpm !== valid.tpmLimit) {
    issues.push({
      field: 'rateLimits.tokensPerMinute',
      value: tpm,
      message: `contradicts tpmLimit (${valid.tpmLimit}), its alias: give one of them`,
    });
  }
  if (valid.criticalMaxTokens !== undefined && limit !== undefined && valid.criticalMaxTokens > limit) {
    issues.push({
      field: 'criticalMaxTokens',
      value: valid.criticalMaxTokens,
      message: `must not exceed the window (${limit} tokens${valid.contextWindow === undefined ? ` for ${valid.model}` : ', contextWindow'})`,
      allowed: { max: limit },
    });
  }
  if (valid.optimalMaxTokens !== undefined && critical !== undefined && valid.optimalMaxTokens > critical) {
    issues.push({
      field: 'optimalMaxTokens',
      value: valid.optimalMaxTokens,
      message: `must not exceed the critical threshold (${critical} tokens${valid.criticalMaxTokens === undefined ? ', 90% of the window' : ', criticalMaxTokens'})`,
      allowed: { max: critical },
    });
  }
  if (issues.length) throw invalid(issues);
}

/** A state's model profile with today's source names (a state of an older version says `builtin` for `registry`). */
export function profileOf(state: SessionState): ModelProfile {
  return currentProfile(state.profile);
}

/**
 * A string as one piece of text. Node writes a random UUID by concatenating its 16 hex pairs and dashes, which V8
 * keeps as a tree of ~15 strings (~550 bytes, measured on Node 20) for as long as the session keeps its id; the copy
 * that JSON.parse makes is one string of ~60 bytes.
 */
function flatCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * The keys of an object whose values are not undefined, in a new object. Copied key by key, never deleted from: a
 * delete turns a V8 object into a dictionary (~700 bytes more for a profile, kept by every session;
 * bench/replay.ts's session memory).
 */
export function definedOf<T extends Record<string, unknown>>(value: T): T {
  const defined: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (value[key] !== undefined) defined[key] = value[key];
  return defined as T;
}

/**
 * The state with another model's limits: its profile and health thresholds, as a session created with the same
 * options on that model would have (an agent's window rule, an explicit `contextWindow`, the config file all
 * apply). Used when a log switches models mid-session. Everything measured (figures, windows, state machines)
 * is kept.
 * @throws BarometerValidationError when the session's options contradict the new model's limits
 */
export function withModel(
  state: SessionState,
  model: string,
  dependencies: Pick<CreateSessionDependencies, 'config'> = {},
): SessionState {
  if (model === state.model) return state;
  const fresh = createSessionState(
    { ...state.options, model, id: state.id },
    {
      now: () => state.createdAt,
      ...dependencies,
    },
  );
  return { ...state, model, profile: fresh.profile, thresholds: fresh.thresholds };
}

/** Two spellings of one model (a dated snapshot, Claude Code's `[1m]` opt-in, case): no switch between them. */
function sameModel(a: string, b: string): boolean {
  return a === b || canonicalModelId(normalizeModelId(a)) === canonicalModelId(normalizeModelId(b));
}

/**
 * The state on the model a call names, when the agent switched to another one mid-session: that model's window,
 * thresholds and price (`withModel`), as replay judges a log's calls. Another spelling of the session's model is no
 * switch (a session created as `claude-opus-4-6[1m]` keeps its 1M window when the API answers `claude-opus-4-6`), and
 * a model of which nothing gives a window (not the registry, no family estimate, no config entry) keeps the limits
 * of the one before.
 */
export function followingModel(
  state: SessionState,
  model: string | undefined,
  dependencies: Pick<CreateSessionDependencies, 'config'> = {},
): SessionState {
  if (model === undefined || sameModel(model, state.model)) return state;
  try {
    const next = withModel(state, model, dependencies);
    return next.thresholds.limit === null && state.thresholds.limit !== null ? state : next;
  } catch (error) {
    if (!(error instanceof BarometerValidationError)) throw error;
    return state;
  }
}
