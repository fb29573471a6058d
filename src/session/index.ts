export {
  dataDirPaths,
  type OpenSessionMonitorOptions,
  openSessionMonitor,
  sweepIdleSessions,
} from './open-session-monitor.js';
export {
  regulatorInputOf,
  regulatorView,
  type SessionRegulatorView,
  type SessionSignals,
} from './regulator-view.js';
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
} from './replay.js';
export { Session, type SessionDependencies, type SessionEvent, type SessionHealth } from './session.js';
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
} from './session-monitor.js';
export {
  DEFAULT_BURN_WINDOW_SECONDS,
  SessionKvSchema,
  type SessionOptions,
  SessionOptionsSchema,
  type UsageUpdate,
} from './session-options.js';
export * from './session-schemas.js';
export {
  type CreateSessionDependencies,
  createSessionState,
  type SessionState,
  SessionStateSchema,
} from './session-state.js';
export {
  appendToTimeline,
  DEFAULT_TIMELINE_MARKERS,
  DEFAULT_TIMELINE_POINTS,
  emptyTimeline,
  markersOf,
  pointOf,
  SessionTimeline,
  sessionSummary,
  sessionView,
  type Timeline,
  TimelineSchema,
} from './session-timeline.js';
export {
  type CompactionReport,
  healthOf,
  MAX_TIME_MS,
  recordCompactionStep,
  type SessionUpdate,
  type StepContext,
  signalsOf,
  stepSession,
  toMillis,
} from './step-session.js';
export {
  ManualUsageInputSchema,
  parseUsageInput,
  RawUsageInputSchema,
  UsageInputSchema,
} from './usage-input.js';
export { combineVerdict } from './verdict.js';
export {
  logHistoryOf,
  replayWhatIf,
  WHAT_IF_FORMATS,
  type WhatIfReplayOptions,
  type WhatIfReplayResult,
  type WhatIfSummary,
} from './what-if-replay.js';
