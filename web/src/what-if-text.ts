import { formatUsd } from './format.js';
import type { ReplayWhatIf } from './types.js';

/** The savings sentence of a what-if replay, as the last line of `headroom replay --what-if` says it. */
export function savingsSentence(whatIf: ReplayWhatIf): string {
  const saved = whatIf.savedPercent;
  const forced =
    whatIf.headroom.callsAboveCompactionPoint === 0
      ? 'no forced compaction'
      : `${whatIf.headroom.callsAboveCompactionPoint} calls above the agent's compaction point`;
  return `headroom would have sent ${Math.abs(saved)}% ${saved >= 0 ? 'fewer' : 'more'} prompt tokens (${formatUsd(whatIf.real.costUsd)} → ${formatUsd(whatIf.headroom.costUsd)}), ${forced}`;
}
