import type { ModelPrice } from '../models/model-price.js';
import type { UsageSource } from '../usage/usage-record.js';
import { callCost, whatIfCallCost } from './call-cost.js';
import type { LogCall, LogCallUsage } from './log-history.js';
import type { WhatIfCall, WhatIfTotals } from './what-if-report.js';

/** What the ledger prices with (`SimulateWhatIfOptions`'s figures). */
export interface WhatIfLedgerOptions {
  priceOf: (model: string | undefined) => ModelPrice | null | undefined;
  source: UsageSource;
  /** Where the agent compacts; null when unknown (no call is counted above it). */
  compactionPoint: number | null;
}

/** A side's totals before any call. */
export function emptyWhatIfTotals(): WhatIfTotals {
  return { promptTokens: 0, costUsd: null, peakPromptTokens: null, compactions: 0 };
}

/** Tokens of a call's figures and its cost (null: unknown, left out), added to a side's totals. */
function addCall(totals: WhatIfTotals, figures: LogCallUsage, cost: number | null): void {
  totals.promptTokens += figures.promptTokens;
  totals.peakPromptTokens = Math.max(totals.peakPromptTokens ?? 0, figures.promptTokens);
  if (cost !== null) totals.costUsd = (totals.costUsd ?? 0) + cost;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** What a measured call brings to the ledger: its recorded usage and its what-if figures. */
export interface MeasuredCall {
  call: Pick<LogCall, 'index' | 'model'>;
  usage: LogCallUsage;
  whatIf: LogCallUsage;
  /** The calibration's estimate of the recorded prompt. */
  predictedPromptTokens: number;
  driftPercent: number;
  whatIfDriftPercent: number;
  /** Extra calls (re-reads) made before it, already in the ledger through `extra`. */
  rereads: number;
}

/**
 * The what-if's accounts: each call's tokens and cost on both sides (as recorded, and as barometer would have sent
 * it), the extra calls only barometer's side makes, and the rows of the report's calls. Costs are added in the order
 * the calls are made (an extra call before the call it precedes), so that the totals are the same sums each run.
 */
export class WhatIfLedger {
  readonly real = emptyWhatIfTotals();
  readonly policy = emptyWhatIfTotals();
  readonly calls: WhatIfCall[] = [];
  /** Calls whose model has no price (left out of both costs). */
  unpricedCalls = 0;
  /** Calls whose what-if prompt is above the agent's compaction point. */
  aboveCompactionPoint = 0;
  readonly #options: WhatIfLedgerOptions;

  constructor(options: WhatIfLedgerOptions) {
    this.#options = options;
  }

  /** A call the log gives no usage for: a row with its drifts only, in neither total. */
  unmeasured(index: number, driftPercent: number, whatIfDriftPercent: number): void {
    this.calls.push({
      index,
      reconstructedPromptTokens: null,
      whatIfPromptTokens: null,
      whatIfCacheReadTokens: null,
      whatIfCacheWriteTokens: null,
      whatIfCostUsd: null,
      realCostUsd: null,
      driftPercent: round1(driftPercent),
      whatIfDriftPercent: round1(whatIfDriftPercent),
      rereads: 0,
    });
  }

  /** An extra call of barometer's side only (a re-read), at the price of the model of the call it precedes. */
  extra(model: string | undefined, figures: LogCallUsage): void {
    const price = this.#options.priceOf(model);
    addCall(this.policy, figures, price ? whatIfCallCost(figures, price, this.#options.source) : null);
  }

  /** A call with usage, priced both ways, and its row. */
  measured(measured: MeasuredCall): void {
    const { call, usage, whatIf } = measured;
    const { source, compactionPoint } = this.#options;
    const price = this.#options.priceOf(call.model);
    const realCost = price ? callCost(usage, price, source) : null;
    const whatIfCost = price ? whatIfCallCost(whatIf, price, source) : null;
    if (!price) this.unpricedCalls++;
    addCall(this.real, usage, realCost);
    addCall(this.policy, whatIf, whatIfCost);
    if (compactionPoint !== null && whatIf.promptTokens > compactionPoint) this.aboveCompactionPoint++;
    this.calls.push({
      index: call.index,
      reconstructedPromptTokens: Math.round(measured.predictedPromptTokens),
      whatIfPromptTokens: whatIf.promptTokens,
      whatIfCacheReadTokens: whatIf.cacheReadTokens,
      whatIfCacheWriteTokens: whatIf.cacheWrite5mTokens + whatIf.cacheWrite1hTokens,
      whatIfCostUsd: whatIfCost,
      realCostUsd: realCost,
      driftPercent: round1(measured.driftPercent),
      whatIfDriftPercent: round1(measured.whatIfDriftPercent),
      rereads: measured.rereads,
    });
  }
}
