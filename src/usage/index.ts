export { detectLogFormat } from './detect-log-format.js';
export { normalizeAiSdk } from './normalize-ai-sdk.js';
export { normalizeAnthropic, type ServerCompaction, serverCompaction } from './normalize-anthropic.js';
export { normalizeGemini } from './normalize-gemini.js';
export { normalizeLlamaCpp } from './normalize-llama-cpp.js';
export { normalizeOllama } from './normalize-ollama.js';
export { normalizeOpenAIChat, normalizeOpenAIChatStream } from './normalize-openai-chat.js';
export { normalizeOpenAIResponses } from './normalize-openai-responses.js';
export { normalizeUsage } from './normalize-usage.js';
export { type QuotaObservation, quotaObservation } from './quota-observation.js';
export { readClaudeCodeLog } from './read-claude-code-log.js';
export { readCodexLog } from './read-codex-log.js';
export { readGeminiCliLog } from './read-gemini-cli-log.js';
export { readOpenHandsLog } from './read-openhands-log.js';
export { readSessionLog } from './read-session-log.js';
export {
  LOG_FORMATS,
  type LogFormat,
  LogFormatSchema,
  type ProgressCallback,
  type ReadSessionLogOptions,
  ReadSessionLogOptionsSchema,
  type RecordedCompaction,
  type SessionCall,
  type SessionLog,
  SessionLogSchema,
} from './session-log.js';
export {
  costOfUsage,
  type UsageCost,
  type UsageCostParts,
  type UsageCostUnknownReason,
  usageCost,
} from './usage-cost.js';
export {
  type NormalizeUsageOptions,
  NormalizeUsageOptionsSchema,
  USAGE_FORMATS,
  type UsageFormat,
  UsageFormatSchema,
} from './usage-format.js';
export type {
  AvailableUsage,
  UnavailableUsage,
  UsageIteration,
  UsageRecord,
  UsageSource,
} from './usage-record.js';
export {
  USAGE_SOURCES,
  UsageIterationSchema,
  UsageRecordSchema,
  UsageSourceSchema,
} from './usage-record-schema.js';
