import type { StateDatabase } from '../store/state-database.js';
import { type PriorityLimits, priorityLimits, type ResolvedPoolConfig } from './pool-limits.js';
import type { PoolPriority, ReservationState } from './pool-schemas.js';

/** A reservation as the store holds it (and keeps it: see {@link KeptPools}). */
export interface Reservation {
  id: string;
  /** When it was admitted (epoch ms): its place in the pool's last-minute window. */
  admittedAt: number;
  /** When it was released or settled while active (epoch ms): its retention runs from then. */
  endedAt?: number;
  poolId: string;
  agentId: string;
  priority: PoolPriority;
  tokens: number;
  expiresAt: number;
  state: ReservationState;
  actualTokens?: number;
  settledFrom?: ReservationState;
  settledAt?: number;
}

/** A pool as the store holds it. */
export interface Pool {
  config: ResolvedPoolConfig;
  limits: PriorityLimits;
  createdAt: number;
  used: number;
  reserved: number;
  /** Active reservations, by id. */
  active: Map<string, Reservation>;
  /** Admissions of the last minute, oldest first (only for pools with a per-minute limit). */
  window: Map<string, { at: number; tokens: number }> | null;
  windowTokens: number;
}

/** A pool as kept: what is not derived from its reservations. */
export interface KeptPool {
  config: ResolvedPoolConfig;
  createdAt: number;
  used: number;
}

/**
 * Where a `MemoryPoolStore` keeps its pools and reservations across restarts: one row per pool and one per
 * reservation, each change written (and committed) before the operation answers. A reservation's expiry is not
 * written: a restart finds it active past its expiry, and the first sweep expires it as it would have.
 */
export interface KeptPools {
  load(): { pools: KeptPool[]; reservations: Reservation[] };
  putPool(pool: KeptPool): void;
  /** Removes a pool and its reservations. */
  removePool(id: string): void;
  putReservation(reservation: Reservation): void;
  /** A settlement: the pool's new `used` and the reservation, in one transaction. */
  settled(pool: KeptPool, reservation: Reservation): void;
  removeReservation(id: string): void;
}

/** What a pool keeps of itself. */
export function keptPool(pool: Pool): KeptPool {
  return { config: pool.config, createdAt: pool.createdAt, used: pool.used };
}

/**
 * The store's maps rebuilt from what was kept: each pool's active reservations and reserved tokens, its last-minute
 * window (its reservations in admission order, released ones left out, settled ones at their actual tokens; the
 * next sweep drops what the clock left behind), and the queue of ended reservations to forget.
 */
export function restorePools(
  kept: { pools: KeptPool[]; reservations: Reservation[] },
  retentionMs: number,
): {
  pools: Map<string, Pool>;
  reservations: Map<string, Reservation>;
  forget: Array<{ at: number; id: string }>;
} {
  const pools = new Map<string, Pool>();
  for (const { config, createdAt, used } of kept.pools) {
    const perMinute = config.tokensPerMinute !== null || config.requestsPerMinute !== null;
    pools.set(config.id, {
      config,
      limits: priorityLimits(config),
      createdAt,
      used,
      reserved: 0,
      active: new Map(),
      window: perMinute ? new Map() : null,
      windowTokens: 0,
    });
  }
  const reservations = new Map<string, Reservation>();
  const forget: Array<{ at: number; id: string }> = [];
  const sorted = [...kept.reservations].sort((a, b) => a.admittedAt - b.admittedAt);
  for (const reservation of sorted) {
    const pool = pools.get(reservation.poolId);
    if (!pool) continue;
    reservations.set(reservation.id, reservation);
    if (reservation.state === 'active') {
      pool.active.set(reservation.id, reservation);
      pool.reserved += reservation.tokens;
    } else {
      const ended = reservation.endedAt ?? reservation.expiresAt;
      forget.push({ at: ended + retentionMs, id: reservation.id });
    }
    // In admission order: the next sweep slides the window by the clock, as it would have.
    if (pool.window && reservation.state !== 'released') {
      const tokens = reservation.state === 'settled' ? (reservation.actualTokens ?? 0) : reservation.tokens;
      pool.window.set(reservation.id, { at: reservation.admittedAt, tokens });
      pool.windowTokens += tokens;
    }
  }
  forget.sort((a, b) => a.at - b.at);
  return { pools, reservations, forget };
}

/** {@link KeptPools} as two tables of the data dir's database, `pools` and `pool_reservations`. */
export function poolRows(database: StateDatabase): KeptPools {
  const connection = database.connection;
  connection.exec(
    `CREATE TABLE IF NOT EXISTS pools (id TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL);
     CREATE TABLE IF NOT EXISTS pool_reservations (id TEXT PRIMARY KEY NOT NULL, pool TEXT NOT NULL, data TEXT NOT NULL);
     CREATE INDEX IF NOT EXISTS pool_reservations_pool ON pool_reservations (pool);`,
  );
  const sql = {
    pools: connection.prepare('SELECT data FROM pools').pluck(),
    reservations: connection.prepare('SELECT data FROM pool_reservations').pluck(),
    putPool: connection.prepare(
      'INSERT INTO pools (id, data) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data',
    ),
    removePool: connection.prepare('DELETE FROM pools WHERE id = ?'),
    removeItsReservations: connection.prepare('DELETE FROM pool_reservations WHERE pool = ?'),
    putReservation: connection.prepare(
      'INSERT INTO pool_reservations (id, pool, data) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data',
    ),
    removeReservation: connection.prepare('DELETE FROM pool_reservations WHERE id = ?'),
  };
  const putPool = (pool: KeptPool) => sql.putPool.run(pool.config.id, JSON.stringify(pool));
  const putReservation = (reservation: Reservation) =>
    sql.putReservation.run(reservation.id, reservation.poolId, JSON.stringify(reservation));
  return {
    load: () => ({
      pools: (sql.pools.all() as string[]).map((text) => JSON.parse(text) as KeptPool),
      reservations: (sql.reservations.all() as string[]).map((text) => JSON.parse(text) as Reservation),
    }),
    putPool,
    removePool: (id) =>
      database.transaction(() => {
        sql.removeItsReservations.run(id);
        sql.removePool.run(id);
      }),
    putReservation,
    settled: (pool, reservation) =>
      database.transaction(() => {
        putPool(pool);
        putReservation(reservation);
      }),
    removeReservation: (id) => sql.removeReservation.run(id),
  };
}
