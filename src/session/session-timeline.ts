import { profileSource } from '../models/model-profile.js';
import { projectOf } from '../usage/session-title.js';
import { ColumnTimeline } from './column-timeline.js';
import { evictionSavings } from './eviction-savings.js';
import { isoTime } from './iso-time.js';
import { receiptCallsOf, receiptOfSession } from './proxy-receipt.js';
import { proxyStatus } from './proxy-status.js';
import { healthOf } from './session-health.js';
import type {
  MarkerType,
  SessionEvent,
  SessionSummary,
  SessionView,
  TimelineMarker,
  TimelinePoint,
} from './session-schemas.js';
import { signalsOf } from './session-signals.js';
import type { SessionState } from './session-state.js';
import { totalsOf } from './session-totals.js';
import type { SessionUpdate } from './step-session.js';
import {
  DEFAULT_TIMELINE_LIMITS,
  isTimeline,
  PlainTimeline,
  type Timeline,
  type TimelineData,
  type TimelineLimits,
} from './timeline.js';

export { ColumnTimeline } from './column-timeline.js';
export type {
  MarkerType,
  SessionSummary,
  SessionView,
  TimelineMarker,
  TimelinePoint,
} from './session-schemas.js';
export {
  DEFAULT_TIMELINE_LIMITS,
  DEFAULT_TIMELINE_MARKERS,
  DEFAULT_TIMELINE_POINTS,
  PlainTimeline,
  type Timeline,
  type TimelineData,
  type TimelineLimits,
  TimelineSchema,
} from './timeline.js';

/**
 * A record's timeline as a {@link Timeline}: one already is; data read back from JSON (a snapshot file after a
 * restart, Redis, which hands an update its lists empty) is taken into columns, whose ring starts small.
 */
export function timelineOf(
  value: Timeline | TimelineData,
  limits: Readonly<TimelineLimits> = DEFAULT_TIMELINE_LIMITS,
): Timeline {
  return isTimeline(value) ? value : ColumnTimeline.from(value, limits);
}

const MARKER_TYPES = new Set<string>([
  'compaction',
  'forced_new_round',
  'reminder_added',
  'reminder_dropped',
]);

function describe(event: SessionEvent): string {
  switch (event.type) {
    case 'compaction':
      if (event.evicted)
        return `barometer evicted ${event.evicted.items} ${event.evicted.items === 1 ? 'item' : 'items'} (${event.evicted.tokensFreed} tokens) of ${event.evicted.subTask}`;
      return `${event.trigger} compaction${event.before === null ? '' : ` from ${event.before}`}${event.after === null ? '' : ` to ${event.after}`} tokens`;
    case 'forced_new_round':
      return `forced new round at ${event.promptTokens} prompt tokens (critical ${event.critical})`;
    case 'reminder_added':
      return `context_health reminder added (${event.level})`;
    case 'reminder_dropped':
      return `context_health reminder dropped at ${event.promptTokens} prompt tokens`;
    default:
      return event.type;
  }
}

/** The timeline point of one update; `index` is the generation's 0-based number. */
export function pointOf(update: SessionUpdate, index: number): TimelinePoint {
  const pressure = update.regulator.report.pressure;
  return {
    index,
    timestamp: isoTime(update.at),
    promptTokens: update.signals.lastPromptTokens,
    completionTokens: update.signals.lastCompletionTokens,
    health: update.health.level,
    regulatorLevel: pressure.level,
    viability: pressure.sessionViability,
    burnRate: update.signals.burnRateTokensPerMin,
    action: update.verdict.action,
    countdown: update.health.countdown,
    reminder: update.health.reminder !== null,
  };
}

/** The markers of some events (compactions, forced new rounds, reminders); other events make none. */
export function markersOf(events: readonly SessionEvent[], index: number): TimelineMarker[] {
  const markers: TimelineMarker[] = [];
  for (const event of events) {
    if (!MARKER_TYPES.has(event.type)) continue;
    markers.push({
      type: event.type as MarkerType,
      timestamp: event.at,
      index,
      detail: describe(event),
      ...(event.type === 'compaction' && event.evicted ? { evicted: event.evicted } : {}),
    });
  }
  return markers;
}

/**
 * A timeline to fill by hand (a replay, a library user showing a chart), whose `record` and `mark` change it:
 * a {@link PlainTimeline} kept and replaced at each addition.
 */
export class SessionTimeline {
  #timeline: Timeline;

  constructor(maxPoints = DEFAULT_TIMELINE_LIMITS.points, maxMarkers = DEFAULT_TIMELINE_LIMITS.markers) {
    this.#timeline = new PlainTimeline(undefined, { points: maxPoints, markers: maxMarkers });
  }
  get points(): readonly TimelinePoint[] {
    return this.#timeline.points;
  }
  get markers(): readonly TimelineMarker[] {
    return this.#timeline.markers;
  }
  get data(): TimelineData {
    return this.#timeline.toJSON();
  }

  record(update: SessionUpdate, index: number, extraEvents: SessionEvent[] = []): void {
    this.#timeline = this.#timeline.record(
      pointOf(update, index),
      update.at,
      markersOf([...extraEvents, ...update.events], index),
    );
  }

  /** Adds a marker for an event that is one (a compaction, a forced new round, a reminder); others are ignored. */
  mark(event: SessionEvent, index: number): void {
    this.#timeline = this.#timeline.mark(markersOf([event], index));
  }
}

/** When a state's verdict was given: its `verdictAt`, else (a state written before it) its last update. */
function verdictAtOf(state: SessionState): string | null {
  const at = state.verdictAt ?? state.lastAt;
  return at === null ? null : isoTime(at);
}

/**
 * Where a session's figures come from, as the API names the sources (a state of an older version says `builtin`
 * for `registry`). A window the session was given (`contextWindow`) is the session's, whatever the profile says.
 */
function profileSources(state: SessionState) {
  const profile = state.profile;
  const priceSource = profileSource(profile.priceSource) ?? null;
  return {
    source: profileSource(profile.source) ?? null,
    windowSource: state.thresholds.limit === null ? null : (profileSource(windowSourceOf(state)) ?? null),
    priceSource,
    estimatedFrom: profile.estimatedFrom ?? null,
    family: profile.family ?? null,
    unpricedReason: priceSource === null ? unpricedReason(state) : null,
  };
}

/** The window's source; a state written before `windowSource` existed: the session's own window, else the profile's. */
function windowSourceOf(state: SessionState) {
  const { windowSource, source } = state.profile;
  if (windowSource !== undefined) return windowSource;
  return state.options.contextWindow === undefined ? source : 'session';
}

function unpricedReason(state: SessionState): string {
  const { estimatedFrom, family, source } = state.profile;
  const why =
    estimatedFrom !== undefined
      ? `${estimatedFrom}, the newest known ${family} model it is estimated from, has none`
      : source === undefined
        ? 'the registry does not list it and it is of no known family'
        : 'neither the registry nor the config file gives one';
  return `no price known for ${state.model}: ${why}; give it a price in barometer.config.json (\`barometer models ${state.model}\` shows what is known)`;
}

/** A session's summary: everything but its timeline (what lists and the all-sessions stream carry). */
export function sessionSummary(state: SessionState): SessionSummary {
  return {
    id: state.id,
    model: state.model,
    agent: state.agent,
    createdAt: isoTime(state.createdAt),
    updatedAt: state.lastAt === null ? null : isoTime(state.lastAt),
    generations: state.generations,
    profile: {
      contextWindow: state.thresholds.limit,
      optimalMaxTokens: state.thresholds.optimal,
      criticalMaxTokens: state.thresholds.critical,
      tpmLimit: state.profile.tpmLimit ?? null,
      tokenBudget: state.options.tokenBudget ?? null,
      ...profileSources(state),
    },
    signals: signalsOf(state),
    health: healthOf(state),
    regulator: state.lastPressure,
    verdict: state.lastVerdict,
    verdictAt: verdictAtOf(state),
    workingDirectory: state.options.workingDirectory ?? null,
    agentProcessId: state.options.agentProcessId ?? null,
    parentId: state.options.parentId ?? null,
    proxy: proxyStatus(state.proxy),
    subAgents: state.subAgents?.slice() ?? [],
    project:
      state.options.project ??
      (state.options.workingDirectory === undefined
        ? undefined
        : projectOf(state.options.workingDirectory)) ??
      null,
    title: state.options.title ?? null,
    totals: totalsOf(state),
    evictions: evictionSavings(state.evictions, state.generations),
    receipt: receiptOfSession(state.receipts),
  };
}

/** The JSON view of a session: what `GET /api/v1/sessions/:id` answers (see docs/sessions-api.md). */
export function sessionView(
  state: SessionState,
  timeline: Pick<Timeline, 'points' | 'markers'> = new PlainTimeline(),
): SessionView {
  // Copies: a view is the caller's to keep and change.
  return {
    ...sessionSummary(state),
    timeline: timeline.points.slice(),
    markers: timeline.markers.slice(),
    receiptCalls: receiptCallsOf(state.receipts),
  };
}
