import type { HealthLevel, MarkerType, ReplayResult, SessionView } from '../../src/contract/index.js';
import { healthLevelOf } from './health.js';

/** One generation on the chart; x is the generation (call) index. */
export interface ChartPoint {
  x: number;
  timestamp: string | null;
  promptTokens: number | null;
  health: HealthLevel;
  regulatorLevel: string | null;
  viability: number | null;
  burnRate: number | null;
  countdown: number | null;
  reminder: boolean;
  action: string | null;
  /** A replay with the what-if: the prompt barometer's policy would have sent at this call. */
  whatIfPromptTokens?: number | null;
}

/** The chart's markers: the session's own, and the evictions of a what-if replay. */
export type ChartMarkerType = MarkerType | 'eviction';

export interface ChartMarker {
  x: number;
  type: ChartMarkerType;
  label: string;
}

/** What the timeline chart draws: the same for a live session and a replayed log. */
export interface ChartModel {
  points: ChartPoint[];
  optimal: number | null;
  critical: number | null;
  contextWindow: number | null;
  markers: ChartMarker[];
}

/** A run of consecutive generations at one health level, drawn as a background band. */
export interface HealthBand {
  from: number;
  to: number;
  level: HealthLevel;
}

export const MARKER_LABELS: Readonly<Record<MarkerType, string>> = {
  compaction: 'Compaction',
  forced_new_round: 'Forced new round',
  reminder_added: 'Reminder added',
  reminder_dropped: 'Reminder dropped',
};

export const CHART_MARKER_LABELS: Readonly<Record<ChartMarkerType, string>> = {
  ...MARKER_LABELS,
  eviction: 'What-if eviction',
};

/** The chart of a live session: its timeline, its thresholds and its markers, as the API gives them. */
export function chartModelOfSession(view: SessionView): ChartModel {
  return {
    points: view.timeline.map((point) => ({
      x: point.index,
      timestamp: point.timestamp,
      promptTokens: point.promptTokens,
      health: healthLevelOf(point.health),
      regulatorLevel: point.regulatorLevel,
      viability: point.viability,
      burnRate: point.burnRate,
      countdown: point.countdown,
      reminder: point.reminder,
      action: point.action,
    })),
    optimal: view.health.optimal,
    critical: view.health.critical ?? view.profile.criticalMaxTokens,
    contextWindow: view.profile.contextWindow,
    markers: view.markers.map((marker) => ({
      x: marker.index,
      type: marker.type,
      label: marker.detail ? `${MARKER_LABELS[marker.type]}: ${marker.detail}` : MARKER_LABELS[marker.type],
    })),
  };
}

/**
 * The chart of a replayed log. A recorded compaction happened between two calls, so its marker sits half
 * a step before the first call after it; so does a what-if eviction, made before the call it names.
 */
export function chartModelOfReplay(result: ReplayResult): ChartModel {
  const evictions: ChartMarker[] = (result.whatIf?.evictions ?? []).map((eviction) => ({
    x: eviction.beforeCallIndex - 0.5,
    type: 'eviction' as const,
    label: `What-if eviction of ${eviction.taskId} (${eviction.items} items, ${eviction.tokensFreed.toLocaleString('en-US')} tokens)`,
  }));
  return {
    points: result.calls.map((call) => ({
      x: call.index,
      timestamp: call.timestamp,
      promptTokens: call.promptTokens,
      health: healthLevelOf(call.health),
      regulatorLevel: call.regulatorLevel,
      viability: null,
      burnRate: null,
      countdown: null,
      reminder: false,
      action: call.action,
      ...(result.whatIf ? { whatIfPromptTokens: call.whatIfPromptTokens ?? null } : {}),
    })),
    // A replay answers no thresholds (the contract's ReplayResult): its chart draws the window alone.
    optimal: null,
    critical: null,
    contextWindow: result.contextWindow,
    markers: result.compactions
      .map(
        (compaction): ChartMarker => ({
          x: compaction.beforeCallIndex - 0.5,
          type: 'compaction',
          label:
            compaction.preTokens === null
              ? 'Compaction'
              : `Compaction (${compaction.trigger}, ${compaction.preTokens.toLocaleString('en-US')} tokens before)`,
        }),
      )
      .concat(evictions)
      .sort((a, b) => a.x - b.x),
  };
}

/** Whether the model has a what-if prompt series (a replay with the what-if). */
export function hasWhatIf(model: ChartModel): boolean {
  return model.points.some(
    (point) => point.whatIfPromptTokens !== undefined && point.whatIfPromptTokens !== null,
  );
}

/** Consecutive points of one level merged into one band spanning half a step either side. */
export function healthBands(points: readonly ChartPoint[]): HealthBand[] {
  const bands: HealthBand[] = [];
  for (const point of points) {
    const last = bands.at(-1);
    if (last && last.level === point.health) {
      last.to = point.x + 0.5;
    } else {
      bands.push({ from: point.x - 0.5, to: point.x + 0.5, level: point.health });
    }
  }
  return bands;
}

/** Whether the model has a second series (viability or burn rate) worth a right-hand axis. */
export function hasScores(model: ChartModel): boolean {
  return model.points.some((point) => point.viability !== null || point.burnRate !== null);
}

/** A one-sentence summary of the chart for screen readers. */
export function describeChart(model: ChartModel): string {
  const measured = model.points.filter((point) => point.promptTokens !== null);
  if (model.points.length === 0) return 'No generations yet.';
  const peak = Math.max(0, ...measured.map((point) => point.promptTokens as number));
  const whatIfPeak = Math.max(0, ...model.points.map((point) => point.whatIfPromptTokens ?? 0));
  const last = model.points.at(-1)!;
  const counts = model.markers.reduce<Record<string, number>>((acc, marker) => {
    acc[marker.type] = (acc[marker.type] ?? 0) + 1;
    return acc;
  }, {});
  const markerText = Object.entries(counts)
    .map(([type, count]) => `${count} ${CHART_MARKER_LABELS[type as ChartMarkerType].toLowerCase()}`)
    .join(', ');
  return (
    `${model.points.length} generations; peak prompt ${peak.toLocaleString('en-US')} tokens; ` +
    (hasWhatIf(model) ? `with barometer's policy ${whatIfPeak.toLocaleString('en-US')}; ` : '') +
    `last generation ${last.health}${markerText ? `; ${markerText}` : ''}.`
  );
}

/**
 * Rows for marker labels drawn left to right along the top of the chart, so that none overlaps another: each
 * label takes the first row whose last label ends (with `gap`) before it starts; a label that fits in no row is
 * left out (null) — its marker line still shows, and the markers list below the chart names it.
 */
export function layoutMarkerLabels(
  labels: ReadonlyArray<{ x: number; width: number }>,
  rows = 3,
  gap = 6,
): Array<number | null> {
  const ends: number[] = new Array<number>(rows).fill(Number.NEGATIVE_INFINITY);
  const order = labels
    .map((label, index) => ({ ...label, index }))
    .sort((a, b) => a.x - b.x || a.index - b.index);
  const placed: Array<number | null> = new Array<number | null>(labels.length).fill(null);
  for (const label of order) {
    const row = ends.findIndex((end) => end + gap <= label.x);
    if (row === -1) continue;
    placed[label.index] = row;
    ends[row] = label.x + label.width;
  }
  return placed;
}
