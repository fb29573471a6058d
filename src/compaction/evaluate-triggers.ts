import { z } from 'zod';
import { parseOrThrow } from './parse-or-throw.js';
import { TokenEventSchema, TPM_WINDOW_MS, tokensInWindow } from './token-window.js';

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

/** The decision: whether to compact now, which mode fired, and every rule and guard that was looked at. */
export interface TriggerDecision {
  fire: boolean;
  trigger?: TriggerMode;
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
  const valid = parseOrThrow(TriggerConfigSchema, config, 'trigger config');
  return {
    semanticThreshold: valid.semanticThreshold ?? DEFAULT_SEMANTIC_THRESHOLD,
    tokenThreshold: valid.tokenThreshold ?? DEFAULT_TOKEN_THRESHOLD,
    tpmLimit: valid.tpmLimit === undefined ? DEFAULT_TPM_LIMIT : valid.tpmLimit,
    minTurns: valid.minTurns ?? DEFAULT_MIN_TURNS,
    survivalMargin: valid.survivalMargin ?? DEFAULT_SURVIVAL_MARGIN,
    rearmGrowth: valid.rearmGrowth ?? DEFAULT_REARM_GROWTH,
    stallReduction: valid.stallReduction ?? DEFAULT_STALL_REDUCTION,
    stallRearmGrowth: valid.stallRearmGrowth ?? DEFAULT_STALL_REARM_GROWTH,
    windowMs: valid.windowMs ?? TPM_WINDOW_MS,
  };
}
export type ResolvedTriggerConfig = ReturnType<typeof resolveTriggerConfig>;
type ResolvedConfig = ResolvedTriggerConfig;

function survivalCheck(input: TriggerInput, config: ResolvedConfig, reasons: string[]): boolean {
  if (input.survival) {
    reasons.push(input.survival.reason);
    return input.survival.fires;
  }
  if (config.tpmLimit === null) {
    reasons.push('survival: no TPM limit configured, not evaluated');
    return false;
  }
  let used: number;
  if (input.windowTokens !== undefined) used = input.windowTokens;
  else if (input.usageEvents !== undefined && input.now !== undefined)
    used = tokensInWindow(input.usageEvents, input.now, config.windowMs);
  else {
    reasons.push('survival: no timestamped usage events (and now) given, not evaluated');
    return false;
  }
  const left = config.tpmLimit - used;
  const next = input.estimatedNextRequestTokens ?? input.tokens;
  const needed = next * config.survivalMargin;
  const fires = needed > left;
  reasons.push(
    `survival: next request ${next} x ${config.survivalMargin} = ${round(needed)} ${fires ? '>' : '<='} ${left} TPM left ` +
      `(${config.tpmLimit} - ${used} used in the last ${config.windowMs / 1000} s)` +
      (fires ? ': fires, overriding every other gate' : ''),
  );
  return fires;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

// Reasons are plain ASCII: a session keeps its last verdict, and one non-ASCII character doubles a string's size.
function candidate(input: TriggerInput, config: ResolvedConfig, reasons: string[]): TriggerMode | undefined {
  let mode: TriggerMode | undefined;
  if (!input.taskCompleted) reasons.push('semantic: no task completed this turn');
  else if (input.tokens > config.semanticThreshold) {
    reasons.push(`semantic: task completed and ${input.tokens} tokens > ${config.semanticThreshold}`);
    mode = 'semantic';
  } else reasons.push(`semantic: task completed but ${input.tokens} tokens <= ${config.semanticThreshold}`);
  if (input.tokens > config.tokenThreshold) {
    reasons.push(`standard: ${input.tokens} tokens > ${config.tokenThreshold}`);
    mode ??= 'standard';
  } else reasons.push(`standard: ${input.tokens} tokens <= ${config.tokenThreshold}`);
  return mode;
}

/**
 * Growth as a ratio, `(tokens − base) / base ≥ growth`: `210000 × 1.1` is 231000.00000000003 in floating point,
 * which would keep 231,000 tokens (exactly 10% more) blocked; the ratio 21000 / 210000 is exactly 0.1.
 */
function grewBy(base: number, tokens: number, growth: number): boolean {
  return base <= 0 ? tokens > 0 || growth === 0 : (tokens - base) / base >= growth;
}

/** Runs every guard (so each decision is in the reasons) and says whether all of them let a trigger through. */
function guardsPass(
  state: TriggerState,
  input: TriggerInput,
  config: ResolvedConfig,
  reasons: string[],
): boolean {
  let pass = true;
  if (input.turns < config.minTurns) {
    reasons.push(`minTurns: ${input.turns} turns < ${config.minTurns}: too few turns, blocked`);
    pass = false;
  } else reasons.push(`minTurns: ${input.turns} turns >= ${config.minTurns}: passed`);
  if (state.lockedAtTokens !== undefined) {
    const unlockAt = state.lockedAtTokens * (1 + config.rearmGrowth);
    if (!grewBy(state.lockedAtTokens, input.tokens, config.rearmGrowth)) {
      reasons.push(
        `locked: a trigger fired at ${state.lockedAtTokens} tokens and no compaction was recorded; ` +
          `blocked until ${round(unlockAt)} tokens`,
      );
      pass = false;
    } else
      reasons.push(
        `locked: the context grew to ${input.tokens} >= ${round(unlockAt)} tokens since the last trigger: re-armed`,
      );
  } else reasons.push('locked: no trigger awaiting compaction');
  const last = state.lastCompaction;
  if (last) {
    const growth = last.stalled ? config.stallRearmGrowth : config.rearmGrowth;
    const rearmAt = last.after * (1 + growth);
    const what = last.stalled ? 'stalled compaction' : 'compaction';
    if (!grewBy(last.after, input.tokens, growth)) {
      reasons.push(
        `${last.stalled ? 'stalled' : 'growth'}: the last ${what} left ${last.after} tokens; ${input.tokens} < ` +
          `${round(rearmAt)} (${growth * 100}% growth needed): blocked`,
      );
      pass = false;
    } else {
      reasons.push(
        `${last.stalled ? 'stalled' : 'growth'}: ${input.tokens} >= ${round(rearmAt)} after the last ${what}: passed`,
      );
    }
  } else reasons.push('growth: no compaction recorded yet');
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
  const reasons: string[] = [];
  const mode = candidate(validInput, resolved, reasons);
  const gated = guardsPass(validState, validInput, resolved, reasons);
  // The seed says survival "overrides all other rules"; its source did not (DESIGN.md, 004), so a session at
  // its quota could still be held back by a guard and have its next request rejected. Here survival is
  // evaluated on its own and passes over minTurns, the lock and the growth guards.
  const survival = survivalCheck(validInput, resolved, reasons);
  const trigger: TriggerMode | undefined = survival ? 'survival' : mode && gated ? mode : undefined;
  if (!trigger) {
    reasons.push(mode ? `no compaction: ${mode} blocked by a guard` : 'no compaction: no trigger reached');
    return { fire: false, reasons, state: validState };
  }
  reasons.push(`compaction: ${trigger}`);
  return {
    fire: true,
    trigger,
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
