import * as z from 'zod';
import { ArchiveIdSchema } from '../compaction/archive-sink.js';

const count = z.number().int().min(0);

/**
 * What an eviction by barometer removed (the proxy's batches, a policy compaction): how many items, the tokens
 * freed, the sub-task they belonged to, and the archive that holds the originals (`GET /api/v1/archives/:session/:task`).
 */
export const EvictedSchema = z
  .strictObject({
    items: count,
    tokensFreed: count,
    /** The sub-task whose outputs went: the batch's task id (`subtask-1`). */
    subTask: z.string().min(1).max(200),
    /** What ended the sub-task, as the policy saw it (`command: git commit -m …`). */
    boundary: z.string().max(300).optional(),
    archive: z.strictObject({ sessionId: ArchiveIdSchema, taskId: ArchiveIdSchema }),
  })
  .meta({ id: 'Evicted' });
export type Evicted = z.infer<typeof EvictedSchema>;

/**
 * The running figures of a session's evictions, kept in its state (plain JSON). `carried` and `weighted` describe the
 * evictions whose tombstones are still in the context: each later call resends `carried` tokens fewer than it would
 * have, so the tokens not resent are `settled + carried × generations − weighted` (`weighted` is the sum of each
 * eviction's freed tokens times the generation it came after). An agent's own compaction ends that (`settled`).
 */
export const EvictionTallySchema = z.strictObject({
  count,
  items: count,
  tokensFreed: count,
  carried: count,
  weighted: count,
  settled: count,
});
export type EvictionTally = z.infer<typeof EvictionTallySchema>;

/** A session's evictions as an answer shows them. */
export const EvictionSavingsSchema = z
  .strictObject({
    /** Evictions recorded, items they removed, and the tokens they freed (each counted once). */
    evictions: count,
    items: count,
    tokensFreed: count,
    /**
     * Tokens the calls after each eviction did not send again: each eviction's freed tokens × the calls recorded
     * after it while its tombstones stayed in the context. An upper bound: it assumes every later call of the session
     * carried the tombstones (a sub-agent's conversation sharing the session id does not).
     */
    tokensNotResent: count,
  })
  .meta({ id: 'EvictionSavings' });
export type EvictionSavings = z.infer<typeof EvictionSavingsSchema>;

const EMPTY: EvictionTally = { count: 0, items: 0, tokensFreed: 0, carried: 0, weighted: 0, settled: 0 };

/** The tally after an eviction recorded once `generations` calls were made. */
export function tallyEviction(
  tally: EvictionTally | undefined,
  evicted: Evicted,
  generations: number,
): EvictionTally {
  const current = tally ?? EMPTY;
  return {
    count: current.count + 1,
    items: current.items + evicted.items,
    tokensFreed: current.tokensFreed + evicted.tokensFreed,
    carried: current.carried + evicted.tokensFreed,
    weighted: current.weighted + evicted.tokensFreed * generations,
    settled: current.settled,
  };
}

/**
 * The tally after the agent's own compaction at `generations` calls: the tombstones it summarised away are no longer
 * resent, so what they saved so far is settled and nothing more accrues for them.
 */
export function settleEvictions(
  tally: EvictionTally | undefined,
  generations: number,
): EvictionTally | undefined {
  if (!tally || tally.carried === 0) return tally;
  return {
    ...tally,
    settled: tally.settled + tally.carried * generations - tally.weighted,
    carried: 0,
    weighted: 0,
  };
}

/** The figures an answer shows, at `generations` calls; null before any eviction. */
export function evictionSavings(
  tally: EvictionTally | undefined,
  generations: number,
): EvictionSavings | null {
  if (!tally || tally.count === 0) return null;
  return {
    evictions: tally.count,
    items: tally.items,
    tokensFreed: tally.tokensFreed,
    tokensNotResent: Math.max(0, tally.settled + tally.carried * generations - tally.weighted),
  };
}
