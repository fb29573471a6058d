import * as z from 'zod';

const count = z.number().int().min(0);

/** What a session's calls added up to: its own, or with its sub-agents' (`SessionMonitor.subAgents`). */
export const SessionTotalsSchema = z
  .strictObject({
    /** Generations (provider calls) recorded. */
    calls: count,
    /** Prompt and completion tokens of every call with usage (what the provider billed for). */
    tokens: count,
    /** USD of the calls that could be priced, or null when none could (the price is unknown: never a guess). */
    costUsd: z.number().min(0).nullable(),
    /** Calls left out of `costUsd` because their price is unknown. */
    unpricedCalls: count,
  })
  .meta({ id: 'SessionTotals' });
export type SessionTotals = z.infer<typeof SessionTotalsSchema>;

const roundUsd = (value: number) => Math.round(value * 1e6) / 1e6;

/** What the totals read of a session's state (its schema imports this file's: no cycle). */
interface CountedState {
  generations: number;
  budgetUsed: number;
  spend?: { costUsd: number; pricedCalls: number; unpricedCalls: number } | undefined;
}

/** A session's own totals, from its state. */
export function totalsOf(state: CountedState): SessionTotals {
  const spend = state.spend;
  return {
    calls: state.generations,
    tokens: Math.round(state.budgetUsed),
    costUsd: spend && spend.pricedCalls > 0 ? roundUsd(spend.costUsd) : null,
    unpricedCalls: spend?.unpricedCalls ?? 0,
  };
}

/** Totals added up; the cost is null only when no part had one. */
export function addTotals(parts: readonly SessionTotals[]): SessionTotals {
  let costUsd: number | null = null;
  const sum = { calls: 0, tokens: 0, unpricedCalls: 0 };
  for (const part of parts) {
    sum.calls += part.calls;
    sum.tokens += part.tokens;
    sum.unpricedCalls += part.unpricedCalls;
    if (part.costUsd !== null) costUsd = (costUsd ?? 0) + part.costUsd;
  }
  return { ...sum, costUsd: costUsd === null ? null : roundUsd(costUsd) };
}
