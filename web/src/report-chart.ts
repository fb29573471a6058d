import type { ReportRowAnswer } from '../../src/contract/index.js';

/** One day's bar of the cost chart: what the calls cost, and what they would have with barometer's what-if. */
export interface CostBar {
  day: string;
  costUsd: number;
  /** The cost minus the what-if's saving (the days whose sessions have a what-if), else the cost. */
  whatIfCostUsd: number;
}

/** The bars of the cost-per-day chart, from the daily view's rows, and the scale's top. */
export function costBars(rows: readonly ReportRowAnswer[]): { bars: CostBar[]; maxUsd: number } {
  const bars = rows.map((row) => ({
    day: row.key,
    costUsd: row.costUsd,
    whatIfCostUsd: Math.max(0, row.costUsd - (row.whatIf.savedCostUsd ?? 0)),
  }));
  const maxUsd = Math.max(0, ...bars.map((bar) => Math.max(bar.costUsd, bar.whatIfCostUsd)));
  return { bars, maxUsd };
}
