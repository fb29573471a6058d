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
  replayIntoSession,
  replayLogText,
  replaySessionLog,
  sessionForLog,
} from './replay.js';
export { RollingWindow } from './rolling-window.js';
export {
  Session,
  type SessionDependencies,
  type SessionEvent,
  type SessionHealth,
  type SessionUpdate,
} from './session.js';
export {
  DEFAULT_BURN_WINDOW_SECONDS,
  SessionKvSchema,
  type SessionOptions,
  SessionOptionsSchema,
  type UsageUpdate,
} from './session-options.js';
export {
  DEFAULT_TIMELINE_MARKERS,
  DEFAULT_TIMELINE_POINTS,
  SessionTimeline,
  type SessionView,
  sessionSummary,
  sessionView,
  type TimelineMarker,
  type TimelinePoint,
} from './session-timeline.js';
export {
  ManualUsageInputSchema,
  parseUsageInput,
  RawUsageInputSchema,
  UsageInputSchema,
} from './usage-input.js';
export {
  combineVerdict,
  type Verdict,
  type VerdictAction,
  type VerdictModel,
  type VerdictReason,
} from './verdict.js';
