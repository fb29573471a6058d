import type { HealthLevel, SessionDelta, SessionView } from '../../src/contract/index.js';
import { healthLevelOf } from './health.js';

/**
 * Whether `candidate` is at least as recent as `current`. A list fetched over HTTP and the event stream can
 * deliver the same session out of order; the one with more generations (then the later update) wins.
 */
export function isNewer(candidate: SessionView, current: SessionView | undefined): boolean {
  if (!current) return true;
  if (candidate.generations !== current.generations) return candidate.generations > current.generations;
  return timeOf(candidate) >= timeOf(current);
}

const timeOf = (view: SessionView) => Date.parse(view.updatedAt ?? view.createdAt) || 0;

/** The map with `view` put in, unless the map already holds a more recent view of that session. */
export function upsertSession(
  sessions: ReadonlyMap<string, SessionView>,
  view: SessionView,
): ReadonlyMap<string, SessionView> {
  if (!isNewer(view, sessions.get(view.id))) return sessions;
  const next = new Map(sessions);
  next.set(view.id, view);
  return next;
}

export function removeSession(
  sessions: ReadonlyMap<string, SessionView>,
  id: string,
): ReadonlyMap<string, SessionView> {
  if (!sessions.has(id)) return sessions;
  const next = new Map(sessions);
  next.delete(id);
  return next;
}

const SEVERITY: Readonly<Record<HealthLevel, number>> = { critical: 0, caution: 1, healthy: 2, unknown: 3 };
const ACTION_SEVERITY: Readonly<Record<string, number>> = {
  terminate: 0,
  compress: 1,
  wait: 2,
  optimize: 3,
  continue: 4,
};

/**
 * The sessions that need attention first: by context health (critical, caution, healthy, unknown), then by the
 * verdict (terminate, compress, wait, optimize, continue), then the most recently updated.
 */
export function sortSessions(sessions: Iterable<SessionView>): SessionView[] {
  return [...sessions].sort(
    (a, b) =>
      SEVERITY[sessionHealth(a)] - SEVERITY[sessionHealth(b)] ||
      (ACTION_SEVERITY[a.verdict?.action ?? 'continue'] ?? 4) -
        (ACTION_SEVERITY[b.verdict?.action ?? 'continue'] ?? 4) ||
      timeOf(b) - timeOf(a) ||
      a.id.localeCompare(b.id),
  );
}

/** A row of the list: a session and how deep it sits under its parents (0 for an agent's own session). */
export interface NestedSession {
  view: SessionView;
  depth: number;
}

/**
 * The sessions in the list's order (`sortSessions`), each sub-agent session right under its parent (its siblings in
 * the same order), indented by depth. A child whose parent is not listed (not loaded yet, or deleted) is a root.
 */
export function nestSessions(sessions: Iterable<SessionView>): NestedSession[] {
  const sorted = sortSessions(sessions);
  const ids = new Set(sorted.map((view) => view.id));
  const children = new Map<string, SessionView[]>();
  const roots: SessionView[] = [];
  for (const view of sorted) {
    const parent = view.parentId;
    if (parent === null || parent === undefined || parent === view.id || !ids.has(parent)) {
      roots.push(view);
      continue;
    }
    const siblings = children.get(parent);
    if (siblings) siblings.push(view);
    else children.set(parent, [view]);
  }
  const rows: NestedSession[] = [];
  const placed = new Set<string>();
  const visit = (view: SessionView, depth: number) => {
    // A parent chain that loops (a → b → a) is shown once, never endlessly.
    if (placed.has(view.id)) return;
    placed.add(view.id);
    rows.push({ view, depth });
    for (const child of children.get(view.id) ?? []) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  // Sessions only reachable through a loop of parents.
  for (const view of sorted) visit(view, 0);
  return rows;
}

/** The session's health level, `unknown` when it has none yet. */
export function sessionHealth(view: SessionView): HealthLevel {
  return healthLevelOf(view.health.level);
}

/** How many sessions are at each level, for the summary line above the list. */
export function countByHealth(sessions: Iterable<SessionView>): Record<HealthLevel, number> {
  const counts: Record<HealthLevel, number> = { critical: 0, caution: 0, healthy: 0, unknown: 0 };
  for (const view of sessions) counts[sessionHealth(view)] += 1;
  return counts;
}

/** The timeline length the API keeps (docs/sessions-api.md); a page following a session keeps as many. */
export const TIMELINE_POINTS = 500;
export const TIMELINE_MARKERS = 200;

/**
 * A session view with an `update` message applied: the new summary, and the points and markers the message
 * added (points the view already holds, by index, are not added twice).
 */
export function applyDelta(view: SessionView, delta: SessionDelta): SessionView {
  const last = view.timeline.at(-1)?.index ?? -1;
  const points = delta.points.filter((point) => point.index > last);
  const lastMarker = view.markers.at(-1);
  const markers = lastMarker
    ? delta.markers.filter(
        (marker) =>
          marker.index > lastMarker.index ||
          (marker.index === lastMarker.index && marker.timestamp > lastMarker.timestamp),
      )
    : delta.markers;
  return {
    ...view,
    ...delta.summary,
    timeline: [...view.timeline, ...points].slice(-TIMELINE_POINTS),
    markers: [...view.markers, ...markers].slice(-TIMELINE_MARKERS),
  };
}
