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
  callFeatures,
  predictedPrompt,
} from './calibrate.js';
export { callCost, ONE_HOUR_WRITE_INPUT_MULTIPLIER } from './call-cost.js';
export { type ItemSize, itemSize, REDACTED_CHARS_PER_TOKEN, type SizeClass } from './item-size.js';
export {
  type LogCall,
  type LogCallUsage,
  type LogHistory,
  type LogItem,
  type LogSignal,
  redactedLength,
} from './log-history.js';
export { readClaudeCodeHistory } from './read-claude-code-history.js';
export { readCodexHistory } from './read-codex-history.js';
export {
  REREAD_CALL_COMPLETION_TOKENS,
  type SimulateWhatIfOptions,
  simulateWhatIf,
} from './simulate-what-if.js';
export { type ArchivedRecord, type ArchiveReader, expectedFromLog, verifyArchive } from './verify-archive.js';
export type { WhatIfCall, WhatIfEviction, WhatIfReport, WhatIfTotals } from './what-if-report.js';
