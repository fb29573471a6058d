/**
 * barometer: keep LLM agent sessions alive under context, KV-cache, token-budget and rate-quota pressure.
 * The front door: what a library user needs, each name documented in the README's API section. The service is
 * `barometer/server`, the MCP server `barometer/mcp`, the SDK adapters `barometer/ai-sdk`, `barometer/openai` and
 * `barometer/anthropic`; every other building block is in `barometer/internal` (not a stable API). This entry
 * loads no server.
 */
export {
  type AnthropicConversation,
  type AnthropicMessage,
  fromAnthropicMessages,
  toAnthropicMessages,
} from './compaction/anthropic-messages.js';
export {
  type CompactHistoryOptions,
  type CompactionOutcome,
  compactHistory,
  type HistorySize,
  type Summarizer,
} from './compaction/compact-history.js';
export {
  type CompactMessagesOptions,
  type CompactMessagesResult,
  type CompletedTask,
  compactOpenAIMessages,
  type EvictedTask,
} from './compaction/compact-messages.js';
export {
  type CompactModelMessagesOptions,
  type CompactModelMessagesResult,
  compactModelMessages,
  type ModelMessageLike,
} from './compaction/compact-model-messages.js';
export {
  type CompactionResult,
  createTriggerState,
  evaluateTriggers,
  type ResolvedTriggerConfig,
  type TriggerCheck,
  type TriggerCheckCode,
  type TriggerConfig,
  type TriggerDecision,
  type TriggerInput,
  type TriggerMode,
  type TriggerState,
} from './compaction/evaluate-triggers.js';
export {
  type EvictModelMessagesOptions,
  type EvictModelMessagesResult,
  evictModelMessages,
  type ModelMessageEviction,
  type ModelMessageEvictions,
} from './compaction/evict-model-messages.js';
export { type EvictTaskOptions, type EvictTaskResult, evictTask } from './compaction/evict-task.js';
export {
  type ApplyEvictionOptions,
  type ApplyEvictionResult,
  type EvictionBatch,
  type EvictionContext,
  type EvictionDecision,
  EvictionPolicy,
  type EvictionPolicyState,
} from './compaction/eviction-policy.js';
export { fromModelMessages, type ModelMessage, toModelMessages } from './compaction/model-messages.js';
export {
  fromOpenAIMessages,
  type OpenAIChatMessage,
  toOpenAIMessages,
} from './compaction/openai-messages.js';
export {
  type ThinkingBudget,
  type ThinkingBudgetInput,
  type ThinkingProvider,
  thinkingBudget,
} from './compaction/thinking-budget.js';
export { type CappedHotState, capHotState } from './discipline/cap-hot-state.js';
export {
  type BudgetDecision,
  type CompressionChange,
  type EnforceBudgetOptions,
  type ExtractedReference,
  enforceBudget,
} from './discipline/enforce-budget.js';
export {
  type ArtifactIndexEntry,
  type ArtifactType,
  type HotState,
  type HotStateListField,
  HotStateSchema,
  type RiskLevel,
} from './discipline/hot-state.js';
export {
  type PromptMetrics,
  type PromptMetricsOptions,
  type PromptRegression,
  promptMetrics,
} from './discipline/prompt-metrics.js';
export {
  type BudgetCheck,
  type BudgetCheckOptions,
  type BudgetMeasurements,
  type BudgetViolation,
  type BudgetViolationCode,
  type PromptParts,
  validateBudgets,
} from './discipline/validate-budgets.js';
export {
  type DiffOnlyKind,
  type DiffOnlyOptions,
  type DiffOnlyReason,
  type DiffOnlyResult,
  type TaskType,
  validateDiffOnly,
} from './discipline/validate-diff-only.js';
export { BarometerError, type BarometerErrorOptions } from './errors/barometer-error.js';
export { ERROR_CATALOGUE, type ErrorCatalogueEntry, type ErrorCode } from './errors/error-catalogue.js';
export { BarometerValidationError, type Result } from './errors/validation.js';
export {
  type HealthEvent,
  type HealthObservation,
  type HealthState,
  type HealthStep,
  initialHealthState,
  type ReminderInstruction,
  type StepHealthOptions,
  stepHealth,
} from './health/step-health.js';
export { type CommandSummarizerOptions, createCommandSummarizer } from './integrations/command-summarizer.js';
export { CellLedger, type CellLedgerOptions } from './kv/cell-ledger.js';
export {
  type ContextPressure,
  type ContextPressureInput,
  type ContextPressureJson,
  contextPressure,
} from './kv/context-pressure.js';
export {
  type ProduceResult,
  produce,
  type ToolCall,
  type ToolCallCode,
  type ToolCallDecision,
} from './kv/produce.js';
export {
  type SettleCode,
  type SettleDecision,
  type SettleResult,
  settle,
  type ToolResultSize,
} from './kv/settle.js';
export {
  describeModel,
  type ModelDescription,
  type ModelsSummary,
  modelsSummary,
  type SourcedFigure,
} from './models/describe-model.js';
export { type FamilyEstimate, familyEstimate } from './models/family-estimate.js';
export { findModel, type ModelLimits, type ModelMatch } from './models/find-model.js';
export { loadConfig } from './models/load-config.js';
export { type ModelFamily, modelFamily } from './models/model-family.js';
export {
  type ModelPrice,
  type ModelPriceTier,
  type PriceRates,
  priceRatesFor,
  type SelectedRates,
} from './models/model-price.js';
export type { AgentReported, ModelProfile, ProfileSource } from './models/model-profile.js';
export {
  explainProfile,
  type ProfileExplanation,
  type ResolveProfileOptions,
  resolveProfile,
} from './models/resolve-profile.js';
export { MemoryPoolStore, type MemoryPoolStoreOptions } from './pools/memory-pool-store.js';
export {
  type PoolFigures,
  type PriorityLimits,
  poolPressure,
  type ResolvedPoolConfig,
} from './pools/pool-limits.js';
export { RedisPoolStore, type RedisPoolStoreOptions } from './pools/redis-pool-store.js';
export { type EvaluateOptions, evaluatePressure } from './pressure/evaluate.js';
export type { SessionContext } from './session/describe-session.js';
export { type OpenSessionMonitorOptions, openSessionMonitor } from './session/open-session-monitor.js';
export {
  type ReplayCall,
  type ReplayCompaction,
  type ReplayOptions,
  type ReplayResult,
  replayLogText,
} from './session/replay.js';
export { Session, type SessionDependencies } from './session/session.js';
export {
  type CompactAnswer,
  type CompactRequest,
  type LoadLogRequest,
  type MonitorEvent,
  SessionMonitor,
  type SessionMonitorOptions,
  type SessionRecord,
} from './session/session-monitor.js';
export type { SessionTotals } from './session/session-totals.js';
export type { SubAgentsAnswer } from './session/sub-agents.js';
export {
  replayWhatIf,
  type WhatIfReplayOptions,
  type WhatIfReplayResult,
  type WhatIfSummary,
} from './session/what-if-replay.js';
export {
  ArchiveError,
  type ArchiveRecord,
  ArchiveStore,
  type ArchiveStoreOptions,
  type DecodedArchive,
  type SkippedRegion,
} from './store/archive.js';
export { ArtifactRegistry, ArtifactRegistryError } from './store/artifact-registry.js';
export type { DataFolder, DataFolderInputs, DataFolderSource } from './store/data-folder.js';
export { defaultStateFolder, type StateFolderInputs } from './store/state-folder.js';
export {
  createTokenCounter,
  type ModelEncoding,
  type TokenCounterOptions,
  type TokenEncoding,
} from './tokens/create-token-counter.js';
export {
  type IncrementalCount,
  IncrementalCounter,
  type IncrementalCounterOptions,
} from './tokens/incremental-counter.js';
export { normalizeUsage } from './usage/normalize-usage.js';
export { readSessionLog } from './usage/read-session-log.js';
export {
  costOfUsage,
  type UsageCost,
  type UsageCostParts,
  type UsageCostUnknownReason,
} from './usage/usage-cost.js';
export { type SimulateWhatIfOptions, simulateWhatIf } from './whatif/simulate-what-if.js';
