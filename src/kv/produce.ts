import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import type { ContextPressure } from './context-pressure.js';

/** A tool call the agent produced. Terminal tools end the agent's work (e.g. `report`, `final_answer`). */
export const ToolCallSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  terminal: z.boolean().optional(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

const ToolCallsSchema = z.array(ToolCallSchema);

/**
 * Why a tool call passes or is cut:
 * - `within_budget`: the headroom is positive;
 * - `terminal`: over budget, but terminal tools still pass so the agent can finish;
 * - `over_budget`: over budget, non-terminal calls are hard-cut;
 * - `stopped`: the budget is critical and the agent is stopped before producing.
 */
export type ToolCallCode = 'within_budget' | 'terminal' | 'over_budget' | 'stopped';

export interface ToolCallDecision {
  readonly id: string;
  readonly name: string;
  readonly pass: boolean;
  readonly code: ToolCallCode;
}

/** The PRODUCE gate's verdict for one phase. */
export interface ProduceResult {
  /** `stop`: do not produce (the agent is stopped); `produce`: run the calls that pass. */
  readonly action: 'stop' | 'produce';
  /** `kv_critical` (stop), `over_budget` (non-terminal calls cut) or `within_budget`. */
  readonly code: 'kv_critical' | 'over_budget' | 'within_budget';
  readonly reason: string;
  readonly calls: readonly ToolCallDecision[];
  readonly passed: readonly string[];
  readonly cut: readonly string[];
}

/**
 * The PRODUCE gate: stops the agent before producing when the budget is critical (remaining < hardLimit, where a
 * decode could crash llama.cpp); otherwise, when the headroom is ≤ 0, hard-cuts every non-terminal tool call and
 * lets terminal ones pass; otherwise everything passes.
 *
 * @throws BarometerValidationError when a call has no id or name.
 */
export function produce(pressure: ContextPressure, toolCalls: readonly ToolCall[]): ProduceResult {
  const parsed = parseWith(ToolCallsSchema, toolCalls);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'tool calls');

  let code: ProduceResult['code'];
  let reason: string;
  if (pressure.critical) {
    code = 'kv_critical';
    reason =
      `${pressure.remaining} KV cells remain, below the hard limit of ${pressure.hardLimit}: ` +
      'the agent is stopped before producing';
  } else if (pressure.headroom <= 0) {
    code = 'over_budget';
    reason =
      `headroom is ${pressure.headroom} (${pressure.remaining} cells remain, ${pressure.softLimit} kept free): ` +
      'non-terminal tool calls are cut';
  } else {
    code = 'within_budget';
    reason = `headroom is ${pressure.headroom}`;
  }

  const calls: ToolCallDecision[] = [];
  const passed: string[] = [];
  const cut: string[] = [];
  for (const { id, name, terminal } of parsed.value) {
    let callCode: ToolCallCode;
    if (code === 'kv_critical') callCode = 'stopped';
    else if (code === 'within_budget') callCode = 'within_budget';
    else callCode = terminal ? 'terminal' : 'over_budget';
    const pass = callCode === 'within_budget' || callCode === 'terminal';
    calls.push({ id, name, pass, code: callCode });
    (pass ? passed : cut).push(id);
  }
  return { action: code === 'kv_critical' ? 'stop' : 'produce', code, reason, calls, passed, cut };
}
