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

/** A pool's standing as read for a session's pool (null: the pool could not be read). */
export interface ReadPool {
  of: SessionPool;
  standing: PoolStanding | null;
}

/** Whether two sessions' pools are one: the same pool at the same priority (its ceiling). */
export function samePool(a: SessionPool | null | undefined, b: SessionPool | null | undefined): boolean {
  return a === b || (!!a && !!b && a.id === b.id && a.priority === b.priority);
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

  /** Remembers a session's pool from its options, when it is updated here (a session made again may have another). */
  note(id: string, options: Pick<SessionOptions, 'poolId' | 'poolPriority'>): void {
    const pool = poolOfOptions(options);
    const known = this.#poolOf.get(id);
    if (known !== undefined && samePool(known, pool)) return;
    this.#poolOf.set(id, pool);
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

  /** The standing of a session's pool, with the pool it was read for. */
  async read(pool: SessionPool): Promise<ReadPool> {
    return { of: pool, standing: await this.standing(pool) };
  }
}
