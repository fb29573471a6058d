import * as z from 'zod';
import { TokenEventSchema, TPM_WINDOW_MS, tokensInWindow } from '../quota/token-window.js';
import { parseOrThrow } from './parse-or-throw.js';

/** Semantic mode: compact after a task completes, once the context holds more than this. */
export const DEFAULT_SEMANTIC_THRESHOLD = 50_000;
/** Standard mode: compact when the context holds more than this (`--session-tokens` in the seed). */
export const DEFAULT_TOKEN_THRESHOLD = 200_000;
/** The seed's quota (Gemini): tokens per minute. */
export const DEFAULT_TPM_LIMIT = 1_000_000;
export const DEFAULT_MIN_TURNS = 1;
/** Survival mode's margin over the next request's estimated size. */
export const DEFAULT_SURVIVAL_MARGIN = 1.2;
/** After a compaction, the growth over its result before an automatic trigger may fire again. */
export const DEFAULT_REARM_GROWTH = 0.1;
/** A compaction that removed less than this share of the context is "stalled". */
export const DEFAULT_STALL_REDUCTION = 0.05;
/** After a stalled compaction, the growth required before an automatic trigger may fire again. */
export const DEFAULT_STALL_REARM_GROWTH = 0.25;

/** Thresholds of the three modes and the loop guards; unknown keys are rejected. */
export const TriggerConfigSchema = z.strictObject({
  /** @default 50000 */
  semanticThreshold: z.number().int().min(0).optional(),
  /** @default 200000 */
  tokenThreshold: z.number().int().min(0).optional(),
  /** Tokens per minute allowed by the provider; `null` when there is no quota (survival never fires). @default 1000000 */
  tpmLimit: z.number().int().positive().nullable().optional(),
  /** @default 1 */
  minTurns: z.number().int().min(0).optional(),
  /** @default 1.2 */
  survivalMargin: z.number().min(1).optional(),
  /** @default 0.1 */
  rearmGrowth: z.number().min(0).optional(),
  /** @default 0.05 */
  stallReduction: z.number().min(0).max(1).optional(),
  /** @default 0.25 */
  stallRearmGrowth: z.number().min(0).optional(),
  /** @default 60000 */
  windowMs: z.number().int().positive().optional(),
});
export type TriggerConfig = z.infer<typeof TriggerConfigSchema>;

/** What the triggers look at, once per turn. */
export const TriggerInputSchema = z.strictObject({
  /** Tokens in the context now. */
  tokens: z.number().int().min(0),
  /** Turns so far in the session. */
  turns: z.number().int().min(0),
  /** True on the turn a task was marked completed. */
  taskCompleted: z.boolean().optional(),
  /** Time of the evaluation (ms); with `usageEvents`, it measures the TPM window. */
  now: z.number().finite().optional(),
  /** Tokens used per request, timestamped; survival is evaluated only when they (or `windowTokens`) are given. */
  usageEvents: z.array(TokenEventSchema).optional(),
  /** Tokens already used in the current quota window, as the caller measures it (a session's token window). */
  windowTokens: z.number().min(0).optional(),
  /** Size of the next request; by default the current context, since every request resends it. */
  estimatedNextRequestTokens: z.number().int().min(0).optional(),
  /**
   * The survival rule already judged by the caller against each quota as its provider counts it (a session
   * does: input, output, requests and tokens per minute, or the provider's own headers); replaces the TPM
   * computation here.
   */
  survival: z.strictObject({ fires: z.boolean(), reason: z.string() }).optional(),
});
export type TriggerInput = z.infer<typeof TriggerInputSchema>;

/** What the triggers remember between turns: a fired trigger awaiting compaction, the last compaction. */
export const TriggerStateSchema = z.strictObject({
  /** Context size when a trigger fired and no compaction has been recorded since. */
  lockedAtTokens: z.number().optional(),
  lastCompaction: z.strictObject({ before: z.number(), after: z.number(), stalled: z.boolean() }).optional(),
});
export type TriggerState = z.infer<typeof TriggerStateSchema>;

/** Context sizes in tokens around a compaction. */
export const CompactionResultSchema = z.strictObject({
  before: z.number().int().min(0),
  after: z.number().int().min(0),
});
export type CompactionResult = z.infer<typeof CompactionResultSchema>;

export type TriggerMode = 'semantic' | 'standard' | 'survival';

/**
 * One rule or guard the triggers looked at, as data: its code (the rule's or the config field's name), what it
 * concluded, and the figures it compared. {@link triggerCheckText} writes it as the trail's line; a caller that
 * needs the lines that fired or blocked picks them by `code` and `outcome`, never by reading the text back.
 */
export type TriggerCheck =
  | { code: 'semantic'; outcome: 'no_task' }
  | { code: 'semantic' | 'standard'; outcome: 'fired' | 'below'; tokens: number; threshold: number }
  | { code: 'minTurns'; outcome: 'passed' | 'blocked'; turns: number; minTurns: number }
  | { code: 'locked'; outcome: 'none' }
  | {
      code: 'locked';
      outcome: 'blocked' | 'rearmed';
      lockedAtTokens: number;
      tokens: number;
      unlockAt: number;
    }
  | { code: 'growth'; outcome: 'none' }
  | {
      code: 'growth' | 'stalled';
      outcome: 'passed' | 'blocked';
      after: number;
      tokens: number;
      rearmAt: number;
      /** The growth needed over `after`, as a share (0.1 is 10%). */
      growth: number;
    }
  /** Survival judged by the caller against each of its quotas (`TriggerInput.survival`), in its words. */
  | { code: 'survival'; outcome: 'fired' | 'fits'; judged: string }
  /** Not evaluated: no TPM limit configured, or neither the window's tokens nor timestamped events given. */
  | { code: 'survival'; outcome: 'not_evaluated'; missing: 'limit' | 'events' }
  | {
      code: 'survival';
      outcome: 'fired' | 'fits';
      next: number;
      margin: number;
      needed: number;
      left: number;
      tpmLimit: number;
      used: number;
      windowMs: number;
    };
export type TriggerCheckCode = TriggerCheck['code'];

/**
 * The decision: whether to compact now, which mode fired (or which a guard held back), every rule and guard that
 * was looked at as data (`checks`), and the same trail in words (`reasons`: one line per check, then the
 * decision's line).
 */
export interface TriggerDecision {
  fire: boolean;
  trigger?: TriggerMode;
  /** The mode that was reached but held back by a guard (`checks` holds the guards that blocked). */
  blocked?: TriggerMode;
  checks: TriggerCheck[];
  reasons: string[];
  state: TriggerState;
}

export function createTriggerState(): TriggerState {
  return {};
}

/**
 * The config with every default filled in, validated once: a session resolves it at creation and passes the
 * result to {@link evaluateTriggersResolved} on every turn instead of re-validating it.
 * @throws BarometerValidationError when the config is invalid
 */
export function resolveTriggerConfig(config: TriggerConfig = {}) {
  return withTriggerDefaults(parseOrThrow(TriggerConfigSchema, config, 'trigger config'));
}

/**
 * A config already valid (a session's options were checked when it was created) with its defaults filled in;
 * `tpmLimit`, when given, replaces the config's (a session's comes from its model).
 */
export function withTriggerDefaults(valid: TriggerConfig, tpmLimit = valid.tpmLimit) {
  return {
    semanticThreshold: valid.semanticThreshold ?? DEFAULT_SEMANTIC_THRESHOLD,
    tokenThreshold: valid.tokenThreshold ?? DEFAULT_TOKEN_THRESHOLD,
    tpmLimit: tpmLimit === undefined ? DEFAULT_TPM_LIMIT : tpmLimit,
    minTurns: valid.minTurns ?? DEFAULT_MIN_TURNS,
    survivalMargin: valid.survivalMargin ?? DEFAULT_SURVIVAL_MARGIN,
    rearmGrowth: valid.rearmGrowth ?? DEFAULT_REARM_GROWTH,
    stallReduction: valid.stallReduction ?? DEFAULT_STALL_REDUCTION,
    stallRearmGrowth: valid.stallRearmGrowth ?? DEFAULT_STALL_REARM_GROWTH,
    windowMs: valid.windowMs ?? TPM_WINDOW_MS,
  };
}
export type ResolvedTriggerConfig = ReturnType<typeof withTriggerDefaults>;
type ResolvedConfig = ResolvedTriggerConfig;

function survivalCheck(input: TriggerInput, config: ResolvedConfig): TriggerCheck {
  if (input.survival) {
    return {
      code: 'survival',
      outcome: input.survival.fires ? 'fired' : 'fits',
      judged: input.survival.reason,
    };
  }
  if (config.tpmLimit === null) return { code: 'survival', outcome: 'not_evaluated', missing: 'limit' };
  let used: number;
  if (input.windowTokens !== undefined) used = input.windowTokens;
  else if (input.usageEvents !== undefined && input.now !== undefined)
    used = tokensInWindow(input.usageEvents, input.now, config.windowMs);
  else return { code: 'survival', outcome: 'not_evaluated', missing: 'events' };
  const left = config.tpmLimit - used;
  const next = input.estimatedNextRequestTokens ?? input.tokens;
  const needed = next * config.survivalMargin;
  return {
    code: 'survival',
    outcome: needed > left ? 'fired' : 'fits',
    next,
    margin: config.survivalMargin,
    needed,
    left,
    tpmLimit: config.tpmLimit,
    used,
    windowMs: config.windowMs,
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * A check as the trail's line. Lines are plain ASCII: a session keeps its last verdict, and one non-ASCII
 * character doubles a string's size.
 */
export function triggerCheckText(check: TriggerCheck): string {
  switch (check.code) {
    case 'semantic':
      if (check.outcome === 'no_task') return 'semantic: no task completed this turn';
      return check.outcome === 'fired'
        ? `semantic: task completed and ${check.tokens} tokens > ${check.threshold}`
        : `semantic: task completed but ${check.tokens} tokens <= ${check.threshold}`;
    case 'standard':
      return `standard: ${check.tokens} tokens ${check.outcome === 'fired' ? '>' : '<='} ${check.threshold}`;
    case 'minTurns':
      return check.outcome === 'blocked'
        ? `minTurns: ${check.turns} turns < ${check.minTurns}: too few turns, blocked`
        : `minTurns: ${check.turns} turns >= ${check.minTurns}: passed`;
    case 'locked':
      if (check.outcome === 'none') return 'locked: no trigger awaiting compaction';
      return check.outcome === 'blocked'
        ? `locked: a trigger fired at ${check.lockedAtTokens} tokens and no compaction was recorded; blocked until ${round(check.unlockAt)} tokens`
        : `locked: the context grew to ${check.tokens} >= ${round(check.unlockAt)} tokens since the last trigger: re-armed`;
    case 'growth':
    case 'stalled': {
      if (check.outcome === 'none') return 'growth: no compaction recorded yet';
      const what = check.code === 'stalled' ? 'stalled compaction' : 'compaction';
      return check.outcome === 'blocked'
        ? `${check.code}: the last ${what} left ${check.after} tokens; ${check.tokens} < ${round(check.rearmAt)} (${check.growth * 100}% growth needed): blocked`
        : `${check.code}: ${check.tokens} >= ${round(check.rearmAt)} after the last ${what}: passed`;
    }
    case 'survival':
      if (check.outcome === 'not_evaluated')
        return check.missing === 'limit'
          ? 'survival: no TPM limit configured, not evaluated'
          : 'survival: no timestamped usage events (and now) given, not evaluated';
      if ('judged' in check) return check.judged;
      return (
        `survival: next request ${check.next} x ${check.margin} = ${round(check.needed)} ${check.outcome === 'fired' ? '>' : '<='} ${check.left} TPM left ` +
        `(${check.tpmLimit} - ${check.used} used in the last ${check.windowMs / 1000} s)` +
        (check.outcome === 'fired' ? ': fires, overriding every other gate' : '')
      );
  }
}

function candidate(
  input: TriggerInput,
  config: ResolvedConfig,
  checks: TriggerCheck[],
): TriggerMode | undefined {
  let mode: TriggerMode | undefined;
  if (!input.taskCompleted) checks.push({ code: 'semantic', outcome: 'no_task' });
  else {
    const fired = input.tokens > config.semanticThreshold;
    checks.push({
      code: 'semantic',
      outcome: fired ? 'fired' : 'below',
      tokens: input.tokens,
      threshold: config.semanticThreshold,
    });
    if (fired) mode = 'semantic';
  }
  const standard = input.tokens > config.tokenThreshold;
  checks.push({
    code: 'standard',
    outcome: standard ? 'fired' : 'below',
    tokens: input.tokens,
    threshold: config.tokenThreshold,
  });
  if (standard) mode ??= 'standard';
  return mode;
}

/**
 * Growth as a ratio, `(tokens − base) / base ≥ growth`: `210000 × 1.1` is 231000.00000000003 in floating point,
 * which would keep 231,000 tokens (exactly 10% more) blocked; the ratio 21000 / 210000 is exactly 0.1.
 */
function grewBy(base: number, tokens: number, growth: number): boolean {
  return base <= 0 ? tokens > 0 || growth === 0 : (tokens - base) / base >= growth;
}

/** Runs every guard (so each decision is in the checks) and says whether all of them let a trigger through. */
function guardsPass(
  state: TriggerState,
  input: TriggerInput,
  config: ResolvedConfig,
  checks: TriggerCheck[],
): boolean {
  let pass = true;
  const enough = input.turns >= config.minTurns;
  checks.push({
    code: 'minTurns',
    outcome: enough ? 'passed' : 'blocked',
    turns: input.turns,
    minTurns: config.minTurns,
  });
  if (!enough) pass = false;
  if (state.lockedAtTokens !== undefined) {
    const rearmed = grewBy(state.lockedAtTokens, input.tokens, config.rearmGrowth);
    checks.push({
      code: 'locked',
      outcome: rearmed ? 'rearmed' : 'blocked',
      lockedAtTokens: state.lockedAtTokens,
      tokens: input.tokens,
      unlockAt: state.lockedAtTokens * (1 + config.rearmGrowth),
    });
    if (!rearmed) pass = false;
  } else checks.push({ code: 'locked', outcome: 'none' });
  const last = state.lastCompaction;
  if (last) {
    const growth = last.stalled ? config.stallRearmGrowth : config.rearmGrowth;
    const grown = grewBy(last.after, input.tokens, growth);
    checks.push({
      code: last.stalled ? 'stalled' : 'growth',
      outcome: grown ? 'passed' : 'blocked',
      after: last.after,
      tokens: input.tokens,
      rearmAt: last.after * (1 + growth),
      growth,
    });
    if (!grown) pass = false;
  } else checks.push({ code: 'growth', outcome: 'none' });
  return pass;
}

/**
 * Decides whether to compact now (seed 004's tri-modal triggers). Semantic: a task completed and tokens
 * > `semanticThreshold`. Standard: tokens > `tokenThreshold`. Survival: the next request would not fit the
 * quota left in the current window, `next × margin > tpmLimit − tokens used in the last 60 s`, measured from
 * `usageEvents`. Semantic and standard pass the guards (minTurns, the lock after a trigger, the growth needed
 * after a compaction); survival passes over them.
 * Pure: the returned state is new, the given one untouched.
 * @throws BarometerValidationError when the state, input or config is invalid
 *
 * @example
 * evaluateTriggers({}, { tokens: 200_001, turns: 5 }, { minTurns: 5 }).trigger; // 'standard'
 */
export function evaluateTriggers(
  state: TriggerState,
  input: TriggerInput,
  config: TriggerConfig = {},
): TriggerDecision {
  return evaluateTriggersResolved(
    parseOrThrow(TriggerStateSchema, state, 'trigger state'),
    parseOrThrow(TriggerInputSchema, input, 'trigger input'),
    resolveTriggerConfig(config),
  );
}

/**
 * {@link evaluateTriggers} on input already validated and a config already resolved: what a session calls on
 * each turn, so that its hot path validates nothing twice.
 */
export function evaluateTriggersResolved(
  validState: TriggerState,
  validInput: TriggerInput,
  resolved: ResolvedTriggerConfig,
): TriggerDecision {
  const checks: TriggerCheck[] = [];
  const mode = candidate(validInput, resolved, checks);
  const gated = guardsPass(validState, validInput, resolved, checks);
  // The seed says survival "overrides all other rules"; its source did not (DESIGN.md, 004), so a session at
  // its quota could still be held back by a guard and have its next request rejected. Here survival is
  // evaluated on its own and passes over minTurns, the lock and the growth guards.
  const survival = survivalCheck(validInput, resolved);
  checks.push(survival);
  const trigger: TriggerMode | undefined =
    survival.outcome === 'fired' ? 'survival' : mode && gated ? mode : undefined;
  const reasons = checks.map(triggerCheckText);
  if (!trigger) {
    reasons.push(mode ? `no compaction: ${mode} blocked by a guard` : 'no compaction: no trigger reached');
    return mode
      ? { fire: false, blocked: mode, checks, reasons, state: validState }
      : { fire: false, checks, reasons, state: validState };
  }
  reasons.push(`compaction: ${trigger}`);
  return {
    fire: true,
    trigger,
    checks,
    reasons,
    state: { lockedAtTokens: validInput.tokens, lastCompaction: validState.lastCompaction },
  };
}

/**
 * Records a compaction's result: the lock is released, and automatic triggers wait until the context grows
 * `rearmGrowth` (10%) over `after`, or `stallRearmGrowth` (25%) when the compaction removed less than
 * `stallReduction` (5%) of `before` ("stalled").
 * @throws BarometerValidationError when `before`/`after` are not token counts or the config is invalid
 */
export function recordCompaction(
  state: TriggerState,
  result: CompactionResult,
  config: TriggerConfig = {},
): TriggerState {
  return recordCompactionResolved(
    parseOrThrow(TriggerStateSchema, state, 'trigger state'),
    parseOrThrow(CompactionResultSchema, result, 'compaction result'),
    resolveTriggerConfig(config),
  );
}

/** {@link recordCompaction} on values already validated and a config already resolved. */
export function recordCompactionResolved(
  state: TriggerState,
  valid: CompactionResult,
  resolved: ResolvedTriggerConfig,
): TriggerState {
  const removed = valid.before > 0 ? (valid.before - valid.after) / valid.before : 0;
  const { lockedAtTokens: _released, ...rest } = state;
  return {
    ...rest,
    lastCompaction: { before: valid.before, after: valid.after, stalled: removed < resolved.stallReduction },
  };
}
