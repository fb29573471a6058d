import type { Calibration } from './calibrate.js';

/** One call as barometer would have sent it. */
export interface WhatIfCall {
  index: number;
  /** The reconstruction's estimate of the recorded prompt (calibrated local counts). */
  reconstructedPromptTokens: number | null;
  whatIfPromptTokens: number | null;
  whatIfCacheReadTokens: number | null;
  whatIfCacheWriteTokens: number | null;
  whatIfCostUsd: number | null;
  realCostUsd: number | null;
  /** Drift of the recorded history (stale share of its prompt) and of barometer's, in percent. */
  driftPercent: number | null;
  whatIfDriftPercent: number | null;
  /** Extra calls barometer's agent would have made before this one to read evicted files again. */
  rereads: number;
}

/** One batch barometer evicts. */
export interface WhatIfEviction {
  beforeCallIndex: number;
  taskId: string;
  boundary: string;
  detail: string;
  items: number;
  bytes: number;
  /** Provider tokens the batch took out of the prompt (calibrated). */
  tokensFreed: number;
  archive: string | null;
}

export interface WhatIfTotals {
  promptTokens: number;
  costUsd: number | null;
  peakPromptTokens: number | null;
  compactions: number;
}

/** What `replay --what-if` reports beside the timeline. */
export interface WhatIfReport {
  real: WhatIfTotals;
  policy: WhatIfTotals & {
    evictions: number;
    /** The what-if's own recaps (the recap fallback, off unless asked): its rewrite priced, never an avoided compaction. */
    recaps: number;
    /** Tool results that entered the history trimmed (over `trimResultsAboveTokens`). */
    trimmedAtArrival: number;
    archivedItems: number;
    archivedBytes: number;
    /** Files read again because their evicted content was needed (an edit of the file), and their tokens. */
    rereads: number;
    rereadTokens: number;
    /** Of the re-reads, those of an evicted result the agent's output later quotes (a word of it held nowhere else). */
    quotedRereads: number;
    /** Calls above the agent's compaction point (0: no forced compaction). */
    callsAboveCompactionPoint: number;
  };
  savedPercent: number;
  costSavedPercent: number | null;
  /** True only once every archived item was read back and matched the log byte for byte. */
  archiveVerified: boolean;
  archiveFailures: string[];
  compactionPoint: number | null;
  calibration: Calibration;
  evictions: WhatIfEviction[];
  calls: WhatIfCall[];
  /** Calls whose model has no price (left out of both costs). */
  unpricedCalls: number;
}
