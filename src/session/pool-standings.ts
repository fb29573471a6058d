import type { PoolStanding } from './pool-reason.js';
import type { SessionOptions } from './session-options.js';

/** What the monitor reads of a pool (a `PoolStore` has it). */
export interface PoolLookup {
  view(poolId: string): Promise<{
    level: PoolStanding['level'];
    usedFraction: number;
    priorityCeilings: Record<'low' | 'normal' | 'high' | 'urgent', number>;
  }>;
}

/** The pool a session draws on, and its priority there. */
export interface SessionPool {
  id: string;
  priority: string;
}

/** Sessions whose pool is remembered; beyond, the oldest is forgotten (its next update learns it again). */
const REMEMBERED_SESSIONS = 10_000;

/** The pool a session's options name (its priority `normal` unless given); null when none. */
export function poolOfOptions(options: Pick<SessionOptions, 'poolId' | 'poolPriority'>): SessionPool | null {
  return options.poolId === undefined
    ? null
    : { id: options.poolId, priority: options.poolPriority ?? 'normal' };
}

/**
 * The pools of the sessions a monitor updates, and their standings: a pooled session's pool is read before its
 * update, so the monitor remembers which pool each session it has updated is in (null: none), in memory and bounded.
 */
export class PoolStandings {
  readonly #pools: PoolLookup | undefined;
  readonly #poolOf = new Map<string, SessionPool | null>();

  constructor(pools: PoolLookup | undefined) {
    this.#pools = pools;
  }

  /** The pool of a session updated here (null: none); undefined when this monitor has not learned it yet. */
  poolOf(id: string): SessionPool | null | undefined {
    return this.#poolOf.get(id);
  }

  /** Remembers a session's pool, from its options, the first time it is updated here. */
  note(id: string, options: Pick<SessionOptions, 'poolId' | 'poolPriority'>): void {
    if (this.#poolOf.has(id)) return;
    this.#poolOf.set(id, poolOfOptions(options));
    if (this.#poolOf.size > REMEMBERED_SESSIONS)
      this.#poolOf.delete(this.#poolOf.keys().next().value as string);
  }

  forget(id: string): void {
    this.#poolOf.delete(id);
  }

  /** A pool's standing for a priority; null when there is no such pool, no lookup, or it cannot be read. */
  async standing(pool: SessionPool): Promise<PoolStanding | null> {
    if (!this.#pools) return null;
    try {
      const view = await this.#pools.view(pool.id);
      const ceiling = view.priorityCeilings[pool.priority as keyof typeof view.priorityCeilings] ?? 1;
      return { poolId: pool.id, level: view.level, usedFraction: view.usedFraction, ceiling };
    } catch {
      return null;
    }
  }
}
