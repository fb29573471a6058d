import type { WhatIfSummary } from '../../src/contract/index.js';
import { formatUsd } from './format.js';

/** The savings sentence of a what-if replay, as the last line of `barometer replay --what-if` says it. */
export function savingsSentence(whatIf: WhatIfSummary): string {
  const saved = whatIf.savedPercent;
  const forced =
    whatIf.policy.callsAboveCompactionPoint === 0
      ? 'no forced compaction'
      : `${whatIf.policy.callsAboveCompactionPoint} calls above the agent's compaction point`;
  return `barometer would have sent ${Math.abs(saved)}% ${saved >= 0 ? 'fewer' : 'more'} prompt tokens (${formatUsd(whatIf.real.costUsd)} → ${formatUsd(whatIf.policy.costUsd)}), ${forced}`;
}
