import type { SessionView } from '../../src/contract/index.js';
import { archivePath } from './router.js';

/** One eviction by barometer, as the session page lists it. */
export interface EvictionRow {
  /** ISO time it was recorded. */
  at: string;
  /** Calls recorded before it. */
  generation: number;
  subTask: string;
  /** What ended the sub-task (`command: git commit …`), when the policy said. */
  boundary: string | null;
  items: number;
  tokensFreed: number;
  /** Calls recorded since: each sent the tombstones instead of the originals (unless the agent compacted since). */
  callsSince: number;
  /** The dashboard page of the archived originals. */
  archiveHref: string;
  /** The API route of the same archive, for scripts. */
  archiveApi: string;
}

/** The session's evictions, newest first, from its markers (the last 200 the API keeps). */
export function evictionRows(view: Pick<SessionView, 'markers' | 'generations'>): EvictionRow[] {
  const rows: EvictionRow[] = [];
  for (const marker of view.markers) {
    const evicted = marker.evicted;
    if (marker.type !== 'compaction' || !evicted) continue;
    const { sessionId, taskId } = evicted.archive;
    rows.push({
      at: marker.timestamp,
      generation: marker.index,
      subTask: evicted.subTask,
      boundary: evicted.boundary ?? null,
      items: evicted.items,
      tokensFreed: evicted.tokensFreed,
      callsSince: Math.max(0, view.generations - marker.index),
      archiveHref: archivePath(sessionId, taskId),
      archiveApi: `/api/v1/archives/${encodeURIComponent(sessionId)}/${encodeURIComponent(taskId)}`,
    });
  }
  return rows.reverse();
}

/** What the savings figures mean, said once on the page beside them. */
export const NOT_RESENT_EXPLANATION =
  'Tokens not resent: each eviction’s freed tokens times the calls recorded after it, while its tombstones stayed in the context (the agent’s own compaction ends the count). It is an upper bound: it assumes every later call of this session carried the tombstones, and a sub-agent sharing the session id does not. These are tokens, not money: Money saved is measured apart, per request, by the receipts (net of the cache writes an eviction caused).';
