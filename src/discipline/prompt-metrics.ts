import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { formatHotStateJson, type HotState } from './hot-state.js';
import {
  BudgetCheckOptionsSchema,
  type BudgetViolation,
  type PromptParts,
  validateBudgets,
} from './validate-budgets.js';

/** A hot state over 800 tokens is close to its 1000-token budget. */
export const REGRESSION_HOT_STATE_TOKENS = 800;
/** More than 15 artifact references is close to the limit of 20. */
export const REGRESSION_ARTIFACT_INDEX_ENTRIES = 15;
/** A prompt over 6000 tokens is close to its 8000-token budget. */
export const REGRESSION_PROMPT_TOKENS = 6000;

/** One turn's prompt figures, for logs, metrics and regression warnings. */
export interface PromptMetrics {
  /** ISO 8601 time of the turn (from `now`). */
  timestamp: string;
  sessionId: string;
  runId?: string;
  hotStateTokens: number | null;
  hotStateBytes: number;
  hotStateTruncated: boolean;
  artifactIndexCount: number;
  /** Distinct artifact types in the index, sorted. */
  artifactTypes: string[];
  systemPromptChars: number;
  userContentChars: number;
  messageCount: number;
  promptTokens: number | null;
  ragChunks: number;
  inlineArtifacts: number;
  budgetPassed: boolean;
  violations: BudgetViolation[];
  counter: string;
  estimate: boolean;
}

/** Options of {@link promptMetrics}; unknown keys are rejected. */
export const PromptMetricsOptionsSchema = BudgetCheckOptionsSchema.extend({
  /** The turn's time, epoch milliseconds: the caller's clock, never read here. */
  now: z.number().int().min(0),
  /** @default the hot state's session_id */
  sessionId: z.string().min(1).optional(),
  /** @default the hot state's run_id */
  runId: z.string().min(1).optional(),
  /** Whether the hot state was cut to its cap this turn (see `capHotState`). @default false */
  hotStateTruncated: z.boolean().optional(),
});
export type PromptMetricsOptions = z.infer<typeof PromptMetricsOptionsSchema>;

/**
 * Measures one turn: checks the budgets (see `validateBudgets`) and reports the figures a dashboard or a
 * log line needs. Pure: the time is a parameter.
 *
 * @throws BarometerValidationError when the state, the prompt or the options are invalid
 * @example
 * const metrics = promptMetrics(state, { systemPrompt, userContent }, { now: Date.now() });
 * const warnings = promptRegressions(metrics);
 */
export function promptMetrics(
  hotState: HotState,
  prompt: PromptParts,
  options: PromptMetricsOptions,
): PromptMetrics {
  const parsed = parseWith(PromptMetricsOptionsSchema, options);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'prompt metrics options');
  const { now, sessionId, runId, hotStateTruncated = false, ...checkOptions } = parsed.value;
  const check = validateBudgets(hotState, prompt, checkOptions);
  const index = hotState.artifact_index ?? [];
  const metrics: PromptMetrics = {
    timestamp: new Date(now).toISOString(),
    sessionId: sessionId ?? hotState.session_id,
    hotStateTokens: check.measured.hotStateTokens,
    hotStateBytes: Buffer.byteLength(formatHotStateJson(hotState), 'utf8'),
    hotStateTruncated,
    artifactIndexCount: index.length,
    artifactTypes: [...new Set(index.map((entry) => entry.type))].sort(),
    systemPromptChars: prompt.systemPrompt?.length ?? 0,
    userContentChars: prompt.userContent?.length ?? 0,
    messageCount: prompt.messages?.length ?? 0,
    promptTokens: check.measured.promptTokens,
    ragChunks: check.measured.ragChunks,
    inlineArtifacts: check.measured.inlineArtifactChars.length,
    budgetPassed: check.ok,
    violations: check.violations,
    counter: check.counter,
    estimate: check.estimate,
  };
  const run = runId ?? hotState.run_id;
  if (run !== undefined) metrics.runId = run;
  return metrics;
}

/** A sign that prompts are growing back towards their budget. */
export type PromptRegression =
  | { code: 'hot_state_tokens_high'; actual: number; threshold: number }
  | { code: 'artifact_index_entries_high'; actual: number; threshold: number }
  | { code: 'prompt_tokens_high'; actual: number; threshold: number }
  | { code: 'budget_failed'; violations: number };

/**
 * Regression warnings for one turn's metrics: hot state > 800 tokens (of its 1000),
 * > 15 artifact references, prompt > 6000 tokens, or any budget violation.
 */
export function promptRegressions(metrics: PromptMetrics): PromptRegression[] {
  const warnings: PromptRegression[] = [];
  if (metrics.hotStateTokens !== null && metrics.hotStateTokens > REGRESSION_HOT_STATE_TOKENS) {
    warnings.push({
      code: 'hot_state_tokens_high',
      actual: metrics.hotStateTokens,
      threshold: REGRESSION_HOT_STATE_TOKENS,
    });
  }
  if (metrics.artifactIndexCount > REGRESSION_ARTIFACT_INDEX_ENTRIES) {
    warnings.push({
      code: 'artifact_index_entries_high',
      actual: metrics.artifactIndexCount,
      threshold: REGRESSION_ARTIFACT_INDEX_ENTRIES,
    });
  }
  if (metrics.promptTokens !== null && metrics.promptTokens > REGRESSION_PROMPT_TOKENS) {
    warnings.push({
      code: 'prompt_tokens_high',
      actual: metrics.promptTokens,
      threshold: REGRESSION_PROMPT_TOKENS,
    });
  }
  if (!metrics.budgetPassed) warnings.push({ code: 'budget_failed', violations: metrics.violations.length });
  return warnings;
}
