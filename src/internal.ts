/**
 * barometer/internal: everything the library's modules export, for the service, the CLI, the tests and users who
 * need a building block the front door (`barometer`) does not name. Not part of the stable API: names here may
 * change in any release.
 */
export { DEFAULT_ID_PREFIX, type FromMessagesOptions } from './compaction/adapter-support.js';
export {
  type AnthropicConversation,
  AnthropicConversationSchema,
  type AnthropicMessage,
  AnthropicMessageSchema,
  fromAnthropicMessages,
  toAnthropicMessages,
} from './compaction/anthropic-messages.js';
export {
  ARCHIVE_ID_PATTERN,
  ArchiveAddressSchema,
  type ArchiveAppendResult,
  type ArchiveEntry,
  ArchiveIdSchema,
  type ArchiveSink,
  archiveLocation,
  tombstoneItem,
  tombstoneText,
} from './compaction/archive-sink.js';
export {
  buildRecap,
  DEFAULT_RECAP_MAX_CONCLUSION_CHARS,
  DEFAULT_RECAP_MAX_FILES,
  DEFAULT_RECAP_MAX_NOTES,
  DEFAULT_RECAP_MAX_REQUEST_CHARS,
  DEFAULT_RECAP_MAX_REQUESTS,
  RECAP_HEADING,
  type Recap,
  type RecapOptions,
  type RecapPlanStep,
  type RecapRequest,
} from './compaction/build-recap.js';
export { claudeCodeConversations } from './compaction/claude-code-history.js';
export {
  type CompactHistoryOptions,
  type CompactionOutcome,
  compactHistory,
  DEFAULT_MIN_GAIN_PERCENT,
  type HistorySize,
  type Summarizer,
} from './compaction/compact-history.js';
export {
  type CompactMessagesOptions,
  CompactMessagesOptionsSchema,
  type CompactMessagesResult,
  type CompletedTask,
  CompletedTaskSchema,
  compactOpenAIMessages,
  type EvictedTask,
  OpenAIHistoryInputSchema,
  openAIHistoryOf,
  openAIMessagesOf,
} from './compaction/compact-messages.js';
export {
  type CompactModelMessagesOptions,
  type CompactModelMessagesResult,
  compactModelMessages,
  type ModelMessageLike,
  modelMessageJson,
} from './compaction/compact-model-messages.js';
export { type CompactRequestInput, CompactRequestSchema } from './compaction/compact-request.js';
export {
  type CompactWithPolicyOptions,
  type CompactWithPolicyResult,
  compactWithPolicy,
  type PolicyOutcome,
} from './compaction/compact-with-policy.js';
export {
  type CompactionResult,
  CompactionResultSchema,
  createTriggerState,
  DEFAULT_MIN_TURNS,
  DEFAULT_REARM_GROWTH,
  DEFAULT_SEMANTIC_THRESHOLD,
  DEFAULT_STALL_REARM_GROWTH,
  DEFAULT_STALL_REDUCTION,
  DEFAULT_SURVIVAL_MARGIN,
  DEFAULT_TOKEN_THRESHOLD,
  DEFAULT_TPM_LIMIT,
  evaluateTriggers,
  evaluateTriggersResolved,
  type ResolvedTriggerConfig,
  recordCompaction,
  recordCompactionResolved,
  resolveTriggerConfig,
  type TriggerCheck,
  type TriggerCheckCode,
  type TriggerConfig,
  TriggerConfigSchema,
  type TriggerDecision,
  type TriggerInput,
  TriggerInputSchema,
  type TriggerMode,
  type TriggerState,
  TriggerStateSchema,
  triggerCheckText,
  withTriggerDefaults,
} from './compaction/evaluate-triggers.js';
export {
  type EvictModelMessagesOptions,
  type EvictModelMessagesResult,
  evictModelMessages,
  type ModelMessageEviction,
  type ModelMessageEvictions,
  withModelMessageEvictions,
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
  initialEvictionState,
} from './compaction/eviction-policy.js';
export {
  DEFAULT_COMMAND_PATTERNS,
  DEFAULT_MIN_ARGUMENT_TOKENS,
  DEFAULT_MIN_FREED_TOKENS,
  DEFAULT_MIN_RESULT_TOKENS,
  DEFAULT_RECAP_ABOVE_PERCENT,
  type EvictionPolicyOptions,
  EvictionPolicyOptionsSchema,
  type ResolvedEvictionPolicyOptions,
  resolveEvictionPolicyOptions,
} from './compaction/eviction-policy-options.js';
export {
  DEFAULT_KEEP_TOKENS,
  DEFAULT_KEEP_TURNS,
  type FlushOptions,
  findCompactionCut,
  findCut,
  flush,
  nextRecapNumber,
} from './compaction/flush.js';
export {
  type AssistantItem,
  AssistantItemSchema,
  countHistoryTokens,
  HISTORY_PROVIDERS,
  type HistoryItem,
  HistoryItemSchema,
  type HistoryProvider,
  HistorySchema,
  type ItemRole,
  isSystemItem,
  isTurnStart,
  itemRole,
  itemText,
  type OpaqueItem,
  OpaqueItemSchema,
  type SystemItem,
  SystemItemSchema,
  type ToolCallItem,
  ToolCallItemSchema,
  type ToolResultItem,
  ToolResultItemSchema,
  type UserItem,
  UserItemSchema,
} from './compaction/history-item.js';
export {
  fromModelMessages,
  type ModelMessage,
  ModelMessageSchema,
  readModelMessages,
  recapMarkOf,
  toModelMessages,
} from './compaction/model-messages.js';
export {
  fromOpenAIMessages,
  type OpenAIChatMessage,
  OpenAIChatMessageSchema,
  toOpenAIMessages,
} from './compaction/openai-messages.js';
export {
  type BatchOptions,
  type PlannedBatch,
  pathOf,
  planBatch,
  TOMBSTONE_TOKENS_ESTIMATE,
} from './compaction/plan-batch.js';
export {
  buildHistoryIndex,
  DEFAULT_KEEP_UP_TO_CHARS,
  type EvictionStep,
  type HistoryIndex,
  indexItems,
  type PlanEvictionOptions,
  planEviction,
} from './compaction/plan-eviction.js';
export {
  BOUNDARY_KINDS,
  type BoundaryKind,
  type BoundaryScan,
  commandOf,
  type DetectBoundariesOptions,
  detectBoundaries,
  inputObjectOf,
  isUserRequest,
  planOf,
  type SubTaskBoundary,
} from './compaction/sub-task-boundary.js';
export {
  type CompleteTask,
  CompleteTaskSchema,
  completeTask,
  createTaskList,
  MIN_SUMMARY_LENGTH,
  type StartTask,
  StartTaskSchema,
  startTask,
  TaskIdSchema,
  type TaskList,
  type TaskRecord,
  TaskRecordSchema,
  TaskStatusSchema,
  tagToolItems,
} from './compaction/task-list.js';
export {
  DEFAULT_LOW_THINKING_BELOW,
  HIGH_THINKING_BUDGET,
  LOW_THINKING_BUDGET,
  THINKING_PROVIDERS,
  type ThinkingBudget,
  type ThinkingBudgetInput,
  ThinkingBudgetInputSchema,
  type ThinkingProvider,
  thinkingBudget,
} from './compaction/thinking-budget.js';
export {
  type BudgetLimits,
  type BudgetLimitsInput,
  BudgetLimitsSchema,
  DEFAULT_BUDGET_LIMITS,
  DEFAULT_MAX_ARTIFACT_INDEX_ENTRIES,
  DEFAULT_MAX_HOT_STATE_TOKENS,
  DEFAULT_MAX_INLINE_ARTIFACT_CHARS,
  DEFAULT_MAX_PROMPT_TOKENS,
  DEFAULT_MAX_RAG_CHUNKS,
  resolveBudgetLimits,
} from './discipline/budget-limits.js';
export { type CappedHotState, capHotState } from './discipline/cap-hot-state.js';
export {
  type BudgetDecision,
  type CompressionChange,
  compressHotState,
  type EnforceBudgetOptions,
  EnforceBudgetOptionsSchema,
  type ExtractedReference,
  enforceBudget,
} from './discipline/enforce-budget.js';
export {
  ARTIFACT_TYPES,
  type ArtifactIndexEntry,
  ArtifactIndexEntrySchema,
  type ArtifactType,
  buildHotState,
  DEFAULT_RISK_LEVEL,
  formatHotStateJson,
  HOT_STATE_LIST_FIELDS,
  type HotState,
  type HotStateListField,
  HotStateSchema,
  minimalHotState,
  parseHotState,
  RISK_LEVELS,
  type RiskLevel,
} from './discipline/hot-state.js';
export {
  type PromptMetrics,
  type PromptMetricsOptions,
  PromptMetricsOptionsSchema,
  type PromptRegression,
  promptMetrics,
  promptRegressions,
  REGRESSION_ARTIFACT_INDEX_ENTRIES,
  REGRESSION_HOT_STATE_TOKENS,
  REGRESSION_PROMPT_TOKENS,
} from './discipline/prompt-metrics.js';
export {
  type ArtifactSink,
  ReferenceIdMismatchError,
  storeReferences,
} from './discipline/store-references.js';
export {
  BUDGET_VIOLATION_CODES,
  type BudgetCheck,
  type BudgetCheckOptions,
  BudgetCheckOptionsSchema,
  type BudgetMeasurements,
  type BudgetViolation,
  type BudgetViolationCode,
  type PromptParts,
  PromptPartsSchema,
  validateBudgets,
  validateHotStateBudget,
} from './discipline/validate-budgets.js';
export {
  type DiffOnlyKind,
  type DiffOnlyOptions,
  DiffOnlyOptionsSchema,
  type DiffOnlyReason,
  type DiffOnlyResult,
  isCodeModificationTask,
  JsonPatchOperationSchema,
  JsonPatchSchema,
  LARGE_CODE_BLOCK_CHARS,
  TASK_TYPES,
  type TaskType,
  validateDiffOnly,
} from './discipline/validate-diff-only.js';
export { BarometerError, type BarometerErrorOptions } from './errors/barometer-error.js';
export {
  ERROR_CATALOGUE,
  ERROR_CODES,
  type ErrorCatalogueEntry,
  type ErrorCode,
  EXIT_CODES,
  isErrorCode,
} from './errors/error-catalogue.js';
export {
  BarometerValidationError,
  echoValue,
  formatIssue,
  issuesFromZod,
  parseWith,
  type Result,
} from './errors/validation.js';
export type { AllowedRange, ValidationIssue } from './errors/validation-issue.js';
export { zodIssueMessage } from './errors/zod-issue-message.js';
export { type HealthLevel, HealthLevelSchema, healthLevel } from './health/health-level.js';
export {
  CONTEXT_HEALTH_REMINDER,
  cautionReminderText,
  criticalReminderText,
  type ReminderFigures,
} from './health/health-reminder.js';
export {
  DEFAULT_CRITICAL_SHARE,
  DEFAULT_OPTIMAL_MAX_TOKENS,
  type HealthProfile,
  type HealthThresholds,
  healthThresholds,
} from './health/health-thresholds.js';
export {
  cautionCadence,
  DEFAULT_CAUTION_CADENCE,
  DEFAULT_CRITICAL_COUNTDOWN,
  type HealthEvent,
  type HealthObservation,
  type HealthState,
  HealthStateSchema,
  type HealthStep,
  initialHealthState,
  type ReminderInstruction,
  type StepHealthOptions,
  stepHealth,
} from './health/step-health.js';
export { ID_PATTERN, IdSchema, isId, MAX_ID_LENGTH } from './ids/id-schema.js';
export {
  type CommandSummarizerOptions,
  createCommandSummarizer,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
} from './integrations/command-summarizer.js';
export {
  type LloyalNativeContext,
  lloyalKvEngine,
} from './integrations/lloyal-kv-engine.js';
export {
  type NodeLlamaCppContext,
  type NodeLlamaCppSequence,
  nodeLlamaCppKvEngine,
} from './integrations/node-llama-cpp-kv-engine.js';
export { CellLedger, type CellLedgerOptions, type KvLayout } from './kv/cell-ledger.js';
export {
  type ContextPressure,
  type ContextPressureInput,
  ContextPressureInputSchema,
  type ContextPressureJson,
  ContextPressureJsonSchema,
  contextPressure,
  DEFAULT_HARD_LIMIT,
  DEFAULT_SOFT_LIMIT,
} from './kv/context-pressure.js';
export {
  type KvEngine,
  KvEngineBudget,
  type KvEngineBudgetOptions,
  type PrefillOutcome,
} from './kv/kv-engine.js';
export { type PrefillPlan, prefillPlan } from './kv/prefill-plan.js';
export {
  type ProduceResult,
  produce,
  type ToolCall,
  type ToolCallCode,
  type ToolCallDecision,
  ToolCallSchema,
} from './kv/produce.js';
export {
  type SettleCode,
  type SettleDecision,
  type SettleResult,
  settle,
  type ToolResultSize,
  ToolResultSizeSchema,
} from './kv/settle.js';
export { AGENT_WINDOWS, type AgentWindowRule, agentEffectiveWindow } from './models/agent-windows.js';
export {
  type BarometerConfig,
  BarometerConfigSchema,
  type ConfigFormat,
  emptyConfig,
  type ModelConfig,
  ModelConfigFileSchema,
  PriceFileSchema,
  PriceTierFileSchema,
  parseConfig,
  parseConfigText,
} from './models/barometer-config.js';
export {
  agentRuleText,
  describeModel,
  type ModelDescription,
  type ModelsSummary,
  modelsSummary,
  type SourcedFigure,
} from './models/describe-model.js';
export { type FamilyEstimate, familyEstimate } from './models/family-estimate.js';
export {
  findModel,
  firstPartyProvider,
  MODEL_DATA_INFO,
  type ModelLimits,
  type ModelMatch,
} from './models/find-model.js';
export { CONFIG_FILE_NAMES, loadConfig } from './models/load-config.js';
export { familyBareId, type ModelFamily, modelFamily, newestFirst } from './models/model-family.js';
export { canonicalModelId, normalizeModelId, splitModelId } from './models/model-id.js';
export {
  type ModelPrice,
  ModelPriceSchema,
  type ModelPriceTier,
  ModelPriceTierSchema,
  type PriceRates,
  priceRatesFor,
  type SelectedRates,
} from './models/model-price.js';
export {
  type AgentName,
  AgentNameSchema,
  type AgentReported,
  AgentReportedSchema,
  currentProfile,
  type ModelProfile,
  type ModelProfileOverrides,
  ModelProfileOverridesSchema,
  ModelProfileSchema,
  type ProfileSource,
  ProfileSourceSchema,
  profileSource,
  promptWindow,
  type StoredModelProfile,
  StoredModelProfileSchema,
  type StoredProfileSource,
  StoredProfileSourceSchema,
} from './models/model-profile.js';
export {
  configEntryFor,
  configKeyFor,
  explainProfile,
  type ProfileExplanation,
  type ProfileFigure,
  priceOfModel,
  type ResolveProfileOptions,
  resolveProfile,
  type SourcedPrice,
  sourcedPriceOfModel,
} from './models/resolve-profile.js';
export { MemoryPoolStore, type MemoryPoolStoreOptions } from './pools/memory-pool-store.js';
export {
  ceilingShare,
  type PoolFigures,
  type PriorityLimits,
  poolPressure,
  priorityLimits,
  type ResolvedPoolConfig,
  resolvePoolConfig,
} from './pools/pool-limits.js';
export {
  DEFAULT_PRIORITY_CEILINGS,
  DEFAULT_RESERVATION_TTL_SECONDS,
  MAX_POOL_LIMIT,
  MAX_RESERVATION_TTL_SECONDS,
  type ParsedReservationRequest,
  POOL_LEVELS,
  POOL_PRIORITIES,
  POOL_WINDOW_MS,
  type PoolConfig,
  PoolConfigSchema,
  type PoolLevel,
  type PoolPriority,
  type PoolView,
  PoolViewSchema,
  PriorityCeilingsSchema,
  PriorityCeilingsViewSchema,
  REFUSAL_REASONS,
  RESERVATION_RETENTION_SECONDS,
  RESERVATION_STATES,
  type RefusalReason,
  type Release,
  ReleaseSchema,
  type ReservationDecision,
  type ReservationGrant,
  ReservationGrantSchema,
  ReservationIdSchema,
  type ReservationRefusal,
  ReservationRefusalSchema,
  type ReservationRequest,
  ReservationRequestSchema,
  type ReservationState,
  type Settlement,
  SettlementSchema,
  type SettleRequest,
  SettleRequestSchema,
} from './pools/pool-schemas.js';
export { generateReservationId, type PoolStore } from './pools/pool-store.js';
export {
  DEFAULT_POOL_KEY_PREFIX,
  RedisPoolStore,
  type RedisPoolStoreOptions,
} from './pools/redis-pool-store.js';
export {
  type EvaluateOptions,
  evaluatePressure,
  evaluateResolved,
  pressureLevel,
  safeEvaluatePressure,
  shouldTerminate,
  terminateCauses,
  viability,
} from './pressure/evaluate.js';
export {
  AGENT_PROFILES,
  type AgentProfile,
  BASELINE_BURN,
  COMPRESS_MEMORY_TRIGGER,
  ENUM_PARAMETERS,
  NUMERIC_PARAMETER_NAMES,
  NUMERIC_PARAMETERS,
  type NumericParameterName,
  PARAMETER_NAMES,
  SYSTEM_MODES,
  type SystemMode,
} from './pressure/parameters.js';
export { parsePressureInput, pressureParameterRange } from './pressure/parse.js';
export { type ResolvedPressureInput, resolvePressureInput } from './pressure/resolve-input.js';
export {
  AgentProfileSchema,
  PressureAssessmentSchema,
  PressureInputSchema,
  PressureLevelSchema,
  PressureQuerySchema,
  PressureRecommendationsSchema,
  PressureReportSchema,
  PrioritySchema,
  SuggestedActionSchema,
  SystemModeSchema,
  ThresholdCodeSchema,
} from './pressure/schemas.js';
export {
  burnOnRegulatorScale,
  evaluateSessionPressure,
  type SessionPressure,
  type SessionPressureInput,
} from './pressure/session-pressure.js';
export type {
  PressureAssessment,
  PressureInput,
  PressureLevel,
  PressureRecommendations,
  PressureReport,
  Priority,
  SuggestedAction,
  TerminateCause,
  ThresholdCode,
} from './pressure/types.js';
export {
  DEFAULT_MAX_WAIT_SECONDS,
  type QuotaAdvice,
  type QuotaAdviceInput,
  quotaAdvice,
} from './quota/quota-advice.js';
export {
  QUOTA_DIMENSIONS,
  type QuotaDimension,
  type QuotaDimensionInput,
  type QuotaStanding,
  quotaStandings,
  type ReportedDimension,
} from './quota/quota-standings.js';
export {
  QUOTA_LABELS,
  type QuotaSurvival,
  quotaSurvival,
  quotaWaitSeconds,
  type SurvivalCheck,
  survivalText,
  tightestTokenQuota,
} from './quota/quota-survival.js';
export {
  addTokens,
  emptyTokenWindow,
  type TokenEvent,
  TokenEventSchema,
  type TokenWindow,
  TokenWindowSchema,
  type TokenWindowSpec,
  TPM_WINDOW_MS,
  tokensInWindow,
  windowEntries,
  windowExpiryAtMost,
  windowTokens,
} from './quota/token-window.js';
// `barometer report`: the logs on disk, priced and judged call by call, added up by day, session, project or model.
export {
  aggregateReport,
  type CollectedLogs,
  type CollectLogsOptions,
  collectLogs,
  dayOf,
  defaultLogRoots,
  discoverLogs,
  type FoundLog,
  type LogReport,
  type LogRoot,
  REPORT_VIEWS,
  type Report,
  type ReportCall,
  type ReportFilter,
  ReportPricing,
  type ReportRow,
  type ReportSlot,
  type ReportView,
  readLogReport,
  reportSlots,
} from './report/index.js';
export { makeReport, type ReportRequest, type ReportResult } from './report/make-report.js';
export { ColumnTimeline } from './session/column-timeline.js';
export { type CompactionReport, recordCompactionStep } from './session/compaction-step.js';
export { type SessionContext, SessionContextSchema } from './session/describe-session.js';
export { MAX_TIME_MS, toMillis } from './session/iso-time.js';
export {
  dataDirPaths,
  type OpenSessionMonitorOptions,
  openSessionMonitor,
  sweepIdleSessions,
} from './session/open-session-monitor.js';
export { regulatorView, type SessionRegulatorView } from './session/regulator-view.js';
export {
  type ReplayCall,
  type ReplayCompaction,
  type ReplayOptions,
  type ReplayResult,
  replayIntoState,
  replayLogText,
  replaySessionLog,
  sessionForLog,
  sessionOptionsForLog,
} from './session/replay.js';
export { Session, type SessionDependencies } from './session/session.js';
export { healthOf } from './session/session-health.js';
export {
  type CompactAnswer,
  type CompactRequest,
  DEFAULT_SESSION_TTL_MS,
  type LoadLogRequest,
  type MonitorEvent,
  parseSessionRecord,
  SessionMonitor,
  type SessionMonitorOptions,
  type SessionRecord,
  SessionRecordSchema,
} from './session/session-monitor.js';
export {
  DEFAULT_BURN_WINDOW_SECONDS,
  SessionKvSchema,
  type SessionOptions,
  SessionOptionsSchema,
  type UsageUpdate,
} from './session/session-options.js';
export {
  type MarkerType,
  MarkerTypeSchema,
  QuotaStandingSchema,
  SESSION_EVENT_TYPES,
  type SessionDelta,
  SessionDeltaSchema,
  type SessionEvent,
  SessionEventSchema,
  type SessionEventType,
  type SessionHealth,
  SessionHealthSchema,
  type SessionSignals,
  SessionSignalsSchema,
  type SessionSummary,
  SessionSummarySchema,
  type SessionView,
  SessionViewSchema,
  type TimelineMarker,
  TimelineMarkerSchema,
  type TimelinePoint,
  TimelinePointSchema,
  TriggerViewSchema,
  type UsageAnswer,
  UsageAnswerSchema,
  type Verdict,
  type VerdictAction,
  VerdictActionSchema,
  type VerdictModel,
  VerdictModelSchema,
  type VerdictReason,
  VerdictReasonSchema,
  VerdictSchema,
} from './session/session-schemas.js';
export { signalsOf } from './session/session-signals.js';
export {
  type CreateSessionDependencies,
  createSessionState,
  type SessionState,
} from './session/session-state.js';
export { SessionStateSchema } from './session/session-state-schema.js';
export {
  markersOf,
  pointOf,
  SessionTimeline,
  sessionSummary,
  sessionView,
  timelineOf,
} from './session/session-timeline.js';
export {
  type SessionUpdate,
  type StepContext,
  stepSession,
} from './session/step-session.js';
export {
  DEFAULT_TIMELINE_LIMITS,
  DEFAULT_TIMELINE_MARKERS,
  DEFAULT_TIMELINE_POINTS,
  PlainTimeline,
  type Timeline,
  type TimelineData,
  type TimelineLimits,
  TimelineSchema,
} from './session/timeline.js';
export {
  ManualUsageInputSchema,
  parseUsageInput,
  RawUsageInputSchema,
  UsageInputSchema,
} from './session/usage-input.js';
export { combineVerdict } from './session/verdict.js';
export {
  aggregateWhatIfRows,
  sessionLogFiles,
  skippedCorpusRow,
  type WhatIfCorpusAggregate,
  type WhatIfCorpusRow,
  whatIfCorpusRow,
  whatIfCorpusRows,
} from './session/what-if-corpus.js';
export {
  logHistoryOf,
  replayWhatIf,
  WHAT_IF_FORMATS,
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
  decodeArchive,
  decodeArchiveFile,
  encodeRecord,
  findArchivedItem,
  readArchiveFile,
  type SkippedRegion,
} from './store/archive.js';
export {
  type ArchiveAddress,
  ArchiveItemIdSchema,
  ArchiveParamsSchema,
  ArchiveQuerySchema,
  apiAddresses,
  archiveApiAddress,
  findArchiveAddress,
} from './store/archive-address.js';
export { ArtifactRegistry, ArtifactRegistryError } from './store/artifact-registry.js';
export {
  DATA_FOLDER_VARIABLE,
  type DataFolder,
  type DataFolderInputs,
  type DataFolderSource,
  LEGACY_DATA_FOLDER,
  resolveDataFolder,
} from './store/data-folder.js';
export { KeyValueTable } from './store/key-value-table.js';
export {
  DEFAULT_MAX_ENTRIES,
  SqliteStateStore,
  type SqliteStateStoreOptions,
  type StoreProblem,
} from './store/sqlite-state-store.js';
export { DATABASE_FILE, StateDatabase } from './store/state-database.js';
export { defaultStateFolder, type StateFolderInputs, stateFolder } from './store/state-folder.js';
export type { PageOptions, StatePage, StateStore } from './store/state-store.js';
export { charsEstimateCounter } from './tokens/chars-estimate-counter.js';
export {
  type ChatMessage,
  ChatMessageSchema,
  type ContentPart,
  countMessage,
  countMessages,
  DEFAULT_PER_MESSAGE_TOKENS,
  DEFAULT_REPLY_PRIMING_TOKENS,
  type MessageCount,
  type MessageFraming,
  MessageFramingSchema,
  type MessagesCount,
  type ToolCall as ChatToolCall,
} from './tokens/count-messages.js';
export {
  createTokenCounter,
  DEFAULT_ENCODING,
  encodingForModel,
  type ModelEncoding,
  TOKEN_ENCODINGS,
  type TokenCounterOptions,
  TokenCounterOptionsSchema,
  type TokenEncoding,
} from './tokens/create-token-counter.js';
export {
  DEFAULT_INCREMENTAL_MAX_ENTRIES,
  type IncrementalCount,
  IncrementalCounter,
  type IncrementalCounterOptions,
  IncrementalCounterOptionsSchema,
} from './tokens/incremental-counter.js';
export { type TokenCounter, TokenCounterSchema } from './tokens/token-counter.js';
export { detectLogFormat } from './usage/detect-log-format.js';
export { normalizeAiSdk } from './usage/normalize-ai-sdk.js';
export { normalizeAnthropic, type ServerCompaction, serverCompaction } from './usage/normalize-anthropic.js';
export { normalizeGemini } from './usage/normalize-gemini.js';
export { normalizeLlamaCpp } from './usage/normalize-llama-cpp.js';
export { normalizeOllama } from './usage/normalize-ollama.js';
export { normalizeOpenAIChat, normalizeOpenAIChatStream } from './usage/normalize-openai-chat.js';
export { normalizeOpenAIResponses } from './usage/normalize-openai-responses.js';
export { normalizeUsage } from './usage/normalize-usage.js';
export { type QuotaObservation, quotaObservation } from './usage/quota-observation.js';
export { readClaudeCodeLog } from './usage/read-claude-code-log.js';
export { readCodexLog } from './usage/read-codex-log.js';
export { readGeminiCliLog } from './usage/read-gemini-cli-log.js';
export { readOpenHandsLog } from './usage/read-openhands-log.js';
export { readSessionLog } from './usage/read-session-log.js';
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
} from './usage/session-log.js';
export { projectOf, requestExcerpt } from './usage/session-title.js';
export {
  costOfUsage,
  type UsageCost,
  type UsageCostParts,
  type UsageCostUnknownReason,
  usageCost,
} from './usage/usage-cost.js';
export {
  type NormalizeUsageOptions,
  NormalizeUsageOptionsSchema,
  USAGE_FORMATS,
  type UsageFormat,
  UsageFormatSchema,
} from './usage/usage-format.js';
export type {
  AvailableUsage,
  UnavailableUsage,
  UsageIteration,
  UsageRecord,
  UsageSource,
} from './usage/usage-record.js';
export {
  USAGE_SOURCES,
  UsageIterationSchema,
  UsageRecordSchema,
  UsageSourceSchema,
} from './usage/usage-record-schema.js';
export {
  CACHE_LIFETIME_MS,
  type CachedCallInput,
  cachedCallTokens,
} from './whatif/cached-call-tokens.js';
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
} from './whatif/calibrate.js';
export { callCost, ONE_HOUR_WRITE_INPUT_MULTIPLIER } from './whatif/call-cost.js';
export { type ItemSize, itemSize, REDACTED_CHARS_PER_TOKEN, type SizeClass } from './whatif/item-size.js';
export {
  type LogCall,
  type LogCallUsage,
  type LogHistory,
  type LogItem,
  type LogSegmentStart,
  type LogSignal,
  redactedLength,
} from './whatif/log-history.js';
export { readClaudeCodeHistory } from './whatif/read-claude-code-history.js';
export { readCodexHistory } from './whatif/read-codex-history.js';
export {
  REREAD_CALL_COMPLETION_TOKENS,
  type SimulateWhatIfOptions,
  simulateWhatIf,
  trimNotice,
} from './whatif/simulate-what-if.js';
export {
  type ArchivedRecord,
  type ArchiveReader,
  expectedFromLog,
  verifyArchive,
} from './whatif/verify-archive.js';
export type { WhatIfCall, WhatIfEviction, WhatIfReport, WhatIfTotals } from './whatif/what-if-report.js';
