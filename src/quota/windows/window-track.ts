import * as z from 'zod';
import {
  type UsageWindow,
  WINDOW_SOURCES,
  WINDOW_STATUSES,
  type WindowSource,
  type WindowStatus,
  windowMinutesOf,
} from './usage-window.js';

/** Samples a track keeps: the changes of the used share, newest last. */
export const MAX_WINDOW_SAMPLES = 48;

/**
 * One window as a session has followed it through one period (from one reset to the next): the last figures, the
 * changes of the used share (for the burn) and the share this session burnt. Plain JSON.
 */
export interface WindowTrack {
  id: string;
  source: WindowSource;
  windowMinutes: number | null;
  resetsAt: number | null;
  usedPercent: number;
  status: WindowStatus | null;
  /** When the last observation was read (epoch ms). */
  at: number;
  /** `[at, usedPercent]` each time the used share changed in this period (the first observation included), oldest first. */
  samples: Array<[number, number]>;
  /**
   * Percentage points of this period's window burnt by this session's own calls: each rise of the window that this
   * session's answer reported, over the last figure any session reported (`attributeWindows`).
   */
  sessionPercent: number;
  /**
   * Of `sessionPercent`, the points burnt by each of the session's sub-agents (by agent id: Claude Code's
   * `x-claude-code-agent-id`), when the rise came with a sub-agent's call; the rest is the main conversation's.
   * Absent when no sub-agent's call reported a rise in this period.
   */
  subAgentPercents?: Record<string, number>;
}

/** Sub-agents a track credits; a later one's points count in `sessionPercent` only. */
export const MAX_TRACKED_SUB_AGENTS = 32;

const sample = z.tuple([z.number(), z.number().min(0)]);
export const WindowTrackSchema = z.strictObject({
  id: z.string().min(1).max(64),
  source: z.enum(WINDOW_SOURCES),
  windowMinutes: z.number().int().min(1).nullable(),
  resetsAt: z.number().nullable(),
  usedPercent: z.number().min(0),
  status: z.enum(WINDOW_STATUSES).nullable(),
  at: z.number(),
  samples: z.array(sample).max(MAX_WINDOW_SAMPLES),
  sessionPercent: z.number().min(0),
  subAgentPercents: z.record(z.string().min(1).max(128), z.number().min(0)).optional(),
});

/**
 * Two reset times of one period. A provider's stated reset moves a little between answers of one period (a Codex
 * rollout's weekly window said 1772355702, then 1772355707): within 1% of the window's length it is the same period.
 */
export function samePeriod(
  track: Pick<WindowTrack, 'resetsAt' | 'id' | 'windowMinutes'>,
  window: UsageWindow,
): boolean {
  if (window.resetsAt !== null && track.resetsAt !== null && window.at >= track.resetsAt) return false;
  if (window.resetsAt === null || track.resetsAt === null) return true;
  const minutes = windowMinutesOf(window) ?? windowMinutesOf(track) ?? 300;
  return Math.abs(window.resetsAt - track.resetsAt) <= minutes * 600;
}

/**
 * A track with one more observation: in the same period its samples grow (only when the used share changed) and the
 * session's share by `credited` points; a new period (a later reset, or the old one passed) starts afresh. An
 * observation older than the track's last is ignored.
 */
export function observeWindow(
  track: WindowTrack | undefined,
  window: UsageWindow,
  credited: number,
  subAgent?: string,
): WindowTrack {
  if (track !== undefined && window.at < track.at) return track;
  const same = track !== undefined && samePeriod(track, window);
  const samples: Array<[number, number]> = same ? track.samples.slice() : [];
  const last = samples.at(-1);
  if (last === undefined || last[1] !== window.usedPercent) samples.push([window.at, window.usedPercent]);
  // Thinned from the oldest: every other old sample goes, the newest half stays whole.
  while (samples.length > MAX_WINDOW_SAMPLES) samples.splice(1, 1);
  return {
    id: window.id,
    source: window.source,
    windowMinutes: window.windowMinutes ?? track?.windowMinutes ?? null,
    resetsAt: window.resetsAt ?? (same ? (track?.resetsAt ?? null) : null),
    usedPercent: window.usedPercent,
    status: window.status,
    at: window.at,
    samples,
    sessionPercent: (same ? track.sessionPercent : 0) + Math.max(0, credited),
    ...subAgentShares(same ? track.subAgentPercents : undefined, subAgent, credited),
  };
}

/** A period's sub-agent shares with `credited` points more for `subAgent` (when it rose and there is room). */
function subAgentShares(
  shares: Record<string, number> | undefined,
  subAgent: string | undefined,
  credited: number,
): { subAgentPercents?: Record<string, number> } {
  if (subAgent === undefined || credited <= 0) return shares ? { subAgentPercents: shares } : {};
  const next = { ...shares };
  if (next[subAgent] === undefined && Object.keys(next).length >= MAX_TRACKED_SUB_AGENTS)
    return shares ? { subAgentPercents: shares } : {};
  next[subAgent] = (next[subAgent] ?? 0) + credited;
  return { subAgentPercents: next };
}

/**
 * The points of each window this session's answer burnt: its rise over `previous`, the last figure of the same
 * period any session saw before (the account's); without one, its rise over this session's own last figure; nothing
 * for the first figure of a period nobody saw before (who burnt it is unknown). Keyed by window id.
 */
export function attributeWindows(
  windows: readonly UsageWindow[],
  own: readonly WindowTrack[],
  previous: readonly WindowTrack[] | undefined,
): Map<string, number> {
  const credited = new Map<string, number>();
  for (const window of windows) {
    const before =
      previous?.find((track) => track.id === window.id && samePeriod(track, window)) ??
      own.find((track) => track.id === window.id && samePeriod(track, window));
    credited.set(window.id, before === undefined ? 0 : Math.max(0, window.usedPercent - before.usedPercent));
  }
  return credited;
}

/**
 * The tracks with a set of observations applied, credited as `attributeWindows` says (and to `subAgent`, when the
 * observations came with one of the session's sub-agents' calls); sorted by id.
 */
export function trackWindows(
  tracks: readonly WindowTrack[],
  windows: readonly UsageWindow[],
  previous?: readonly WindowTrack[],
  subAgent?: string,
): WindowTrack[] {
  if (windows.length === 0) return tracks.slice();
  const credited = attributeWindows(windows, tracks, previous);
  const byId = new Map(tracks.map((track) => [track.id, track]));
  for (const window of windows)
    byId.set(window.id, observeWindow(byId.get(window.id), window, credited.get(window.id) ?? 0, subAgent));
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
