export {
  CACHE_LIFETIME_MS,
  type CachedCallInput,
  cachedCallTokens,
  type PreviousCall,
} from './cached-call-tokens.js';
export {
  type Calibration,
  type CallFeatures,
  calibrate,
  calibratedTokens,
  calibrationSegments,
  callFeatures,
  predictedPrompt,
  type SegmentCalibration,
  type SegmentStart,
  segmentOf,
} from './calibrate.js';
export { callCost, ONE_HOUR_WRITE_INPUT_MULTIPLIER } from './call-cost.js';
export { type ItemSize, itemSize, REDACTED_CHARS_PER_TOKEN, type SizeClass } from './item-size.js';
export {
  type LogCall,
  type LogCallUsage,
  type LogHistory,
  type LogItem,
  type LogSegmentStart,
  type LogSignal,
  redactedLength,
} from './log-history.js';
export { readClaudeCodeHistory } from './read-claude-code-history.js';
export { readCodexHistory } from './read-codex-history.js';
export {
  ARRIVALS_TASK_ID,
  REREAD_CALL_COMPLETION_TOKENS,
  type SimulateWhatIfOptions,
  simulateWhatIf,
  trimNotice,
} from './simulate-what-if.js';
export { type ArchivedRecord, type ArchiveReader, expectedFromLog, verifyArchive } from './verify-archive.js';
export type { WhatIfCall, WhatIfEviction, WhatIfReport, WhatIfTotals } from './what-if-report.js';
