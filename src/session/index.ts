export { MAX_TIME_MS, toMillis } from './iso-time.js';
export {
  dataDirPaths,
  type OpenSessionMonitorOptions,
  openSessionMonitor,
  sweepIdleSessions,
} from './open-session-monitor.js';
export {
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
export { healthOf } from './session-health.js';
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
export { signalsOf } from './session-signals.js';
export {
  type CreateSessionDependencies,
  createSessionState,
  type SessionState,
  SessionStateSchema,
} from './session-state.js';
export {
  ColumnTimeline,
  DEFAULT_TIMELINE_LIMITS,
  DEFAULT_TIMELINE_MARKERS,
  DEFAULT_TIMELINE_POINTS,
  markersOf,
  PlainTimeline,
  pointOf,
  SessionTimeline,
  sessionSummary,
  sessionView,
  type Timeline,
  type TimelineData,
  type TimelineLimits,
  TimelineSchema,
  timelineOf,
} from './session-timeline.js';
export {
  type CompactionReport,
  recordCompactionStep,
  type SessionUpdate,
  type StepContext,
  stepSession,
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
