import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import type { ContextPressure } from './context-pressure.js';
import { prefillPlan } from './prefill-plan.js';

/** A tool result waiting to be decoded into the context, with its size in tokens (= KV cells). */
export const ToolResultSizeSchema = z.strictObject({ id: z.string().min(1), tokens: z.int().min(0) });
export type ToolResultSize = z.infer<typeof ToolResultSizeSchema>;

const ToolResultsSchema = z.array(ToolResultSizeSchema);

/**
 * Why a tool result was accepted or rejected:
 * - `fits`: it fits the headroom left after the results accepted before it;
 * - `exceeds_headroom`: it does not fit;
 * - `would_half_commit`: it does not even fit the free cells: its prefill would write its first `nBatch` chunks
 *   and then fail, leaving a half-decoded result in the cache;
 * - `after_rejection`: an earlier result was rejected, and results settle in order.
 */
export type SettleCode = 'fits' | 'exceeds_headroom' | 'would_half_commit' | 'after_rejection';

export interface SettleDecision {
  readonly id: string;
  readonly tokens: number;
  readonly accepted: boolean;
  readonly code: SettleCode;
  readonly reason: string;
  /** The headroom this result was measured against (Infinity when the context has no limit). */
  readonly headroomBefore: number;
}

export interface SettleResult {
  /** One decision per tool result, in the order given. */
  readonly decisions: readonly SettleDecision[];
  readonly accepted: readonly string[];
  readonly rejected: readonly string[];
  /** The headroom once the accepted results are decoded. */
  readonly headroomAfter: number;
}

/**
 * The SETTLE gate: accepts tool results in order while they fit the headroom, the headroom shrinking by each
 * accepted result, and rejects the first that does not fit and every one after it (they would reach the agent
 * out of order). One snapshot serves the whole phase.
 *
 * @throws BarometerValidationError when a result has no id or a token count that is not a whole number ≥ 0.
 * @example settle(contextPressure({ nCtx: 16384, cellsUsed: 14000 }), [{ id: 'a', tokens: 1000 }, { id: 'b', tokens: 500 }])
 *   // a accepted (1000 ≤ 1360), b rejected (500 > 360)
 */
export function settle(pressure: ContextPressure, toolResults: readonly ToolResultSize[]): SettleResult {
  const parsed = parseWith(ToolResultsSchema, toolResults);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'tool results');

  const decisions: SettleDecision[] = [];
  const accepted: string[] = [];
  const rejected: string[] = [];
  let headroom = pressure.headroom;
  let remaining = pressure.remaining;
  let stopped = false;
  for (const { id, tokens } of parsed.value) {
    let code: SettleCode;
    let reason: string;
    if (stopped) {
      code = 'after_rejection';
      reason = 'an earlier tool result was rejected; results settle in order';
    } else if (tokens <= headroom) {
      code = 'fits';
      reason = `${tokens} tokens fit the headroom of ${headroom}`;
    } else if (tokens > remaining) {
      code = 'would_half_commit';
      const written =
        pressure.nBatch === undefined
          ? ''
          : ` (${prefillPlan({ remaining, tokens, nBatch: pressure.nBatch }).committed} written in ` +
            `chunks of ${pressure.nBatch}, then a failed decode)`;
      reason = `${tokens} tokens exceed the ${remaining} free KV cells: the prefill would half-commit${written}`;
      stopped = true;
    } else {
      code = 'exceeds_headroom';
      reason = `${tokens} tokens exceed the headroom of ${headroom} (${pressure.softLimit} cells are kept free)`;
      stopped = true;
    }
    const isAccepted = code === 'fits';
    decisions.push({ id, tokens, accepted: isAccepted, code, reason, headroomBefore: headroom });
    if (isAccepted) {
      accepted.push(id);
      headroom -= tokens;
      remaining -= tokens;
    } else {
      rejected.push(id);
    }
  }
  return { decisions, accepted, rejected, headroomAfter: headroom };
}
