import type { Session, SessionEvent, SessionUpdate } from './session.js';

/** One point of a session's timeline, as the dashboard draws it. */
export interface TimelinePoint {
  index: number;
  timestamp: string;
  promptTokens: number | null;
  completionTokens: number | null;
  health: string;
  regulatorLevel: string;
  viability: number;
  burnRate: number;
  action: string;
  countdown: number | null;
  reminder: boolean;
}

export type MarkerType = 'compaction' | 'forced_new_round' | 'reminder_added' | 'reminder_dropped';
export interface TimelineMarker {
  type: MarkerType;
  timestamp: string;
  index: number;
  detail: string;
}

/** @default 500 points and 200 markers: enough for a chart, bounded however long the session runs. */
export const DEFAULT_TIMELINE_POINTS = 500;
export const DEFAULT_TIMELINE_MARKERS = 200;

const MARKER_TYPES = new Set<string>([
  'compaction',
  'forced_new_round',
  'reminder_added',
  'reminder_dropped',
]);

function describe(event: SessionEvent): string {
  switch (event.type) {
    case 'compaction':
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

/**
 * The recent history of a session for people to look at: points and markers in bounded rings. Kept beside
 * the Session (which stays a few numbers), by whoever shows it: the server's store, a replay.
 */
export class SessionTimeline {
  readonly points: TimelinePoint[] = [];
  readonly markers: TimelineMarker[] = [];
  readonly #maxPoints: number;
  readonly #maxMarkers: number;

  constructor(maxPoints = DEFAULT_TIMELINE_POINTS, maxMarkers = DEFAULT_TIMELINE_MARKERS) {
    this.#maxPoints = maxPoints;
    this.#maxMarkers = maxMarkers;
  }

  record(update: SessionUpdate, index: number, extraEvents: SessionEvent[] = []): void {
    const timestamp = new Date(update.at).toISOString();
    const point: TimelinePoint = {
      index,
      timestamp,
      promptTokens: update.signals.lastPromptTokens,
      completionTokens: update.signals.lastCompletionTokens,
      health: update.health.level,
      regulatorLevel: update.regulator.report.pressure.level,
      viability: update.regulator.report.pressure.sessionViability,
      burnRate: update.signals.burnRateTokensPerMin,
      action: update.verdict.action,
      countdown: update.health.countdown,
      reminder: update.health.reminder !== null,
    };
    this.points.push(point);
    if (this.points.length > this.#maxPoints) this.points.splice(0, this.points.length - this.#maxPoints);
    for (const event of [...extraEvents, ...update.events]) this.mark(event, index);
  }

  /** Adds a marker for an event that is one (a compaction, a forced new round, a reminder); others are ignored. */
  mark(event: SessionEvent, index: number): void {
    if (!MARKER_TYPES.has(event.type)) return;
    this.markers.push({
      type: event.type as MarkerType,
      timestamp: new Date(event.at).toISOString(),
      index,
      detail: describe(event),
    });
    if (this.markers.length > this.#maxMarkers)
      this.markers.splice(0, this.markers.length - this.#maxMarkers);
  }
}

/** The JSON view of a session: what `GET /api/v1/sessions/:id` answers (see docs/sessions-api.md). */
export function sessionView(session: Session, timeline?: SessionTimeline) {
  const signals = session.signals();
  return {
    id: session.id,
    model: session.model,
    agent: session.agent,
    createdAt: new Date(session.createdAt).toISOString(),
    updatedAt: session.lastActivityAt === null ? null : new Date(session.lastActivityAt).toISOString(),
    generations: session.generations,
    profile: {
      contextWindow: session.thresholds.limit ?? null,
      optimalMaxTokens: session.thresholds.optimal,
      criticalMaxTokens: session.thresholds.critical ?? null,
      tpmLimit: session.profile.tpmLimit ?? null,
      tokenBudget: session.tokenBudget,
    },
    signals,
    health: session.health(),
    regulator: session.lastPressure,
    verdict: session.lastVerdict,
    timeline: timeline ? timeline.points : [],
    markers: timeline ? timeline.markers : [],
  };
}

export type SessionView = ReturnType<typeof sessionView>;

/** A session view without its timeline and markers: what lists and the all-sessions stream carry. */
export function sessionSummary(view: SessionView): Omit<SessionView, 'timeline' | 'markers'> {
  const { timeline: _timeline, markers: _markers, ...summary } = view;
  return summary;
}
