import { type KeptPools, keptPool, type Pool, type Reservation, restorePools } from './kept-pools.js';
import { poolPressure, priorityLimits, resolvePoolConfig } from './pool-limits.js';
import {
  DEFAULT_RESERVATION_TTL_SECONDS,
  POOL_WINDOW_MS,
  type PoolConfig,
  type PoolPriority,
  type PoolView,
  RESERVATION_RETENTION_SECONDS,
  type Release,
  type ReservationDecision,
  type ReservationRefusal,
  type ReservationRequest,
  type Settlement,
  type SettleRequest,
} from './pool-schemas.js';
import {
  generateReservationId,
  type PoolStore,
  parsePoolConfig,
  parsePoolId,
  parseReservationId,
  parseReservationRequest,
  parseSettleRequest,
  poolExists,
  poolNotFound,
  reservationNotFound,
  secondsUntil,
} from './pool-store.js';

export interface MemoryPoolStoreOptions {
  /** The clock, in epoch milliseconds. @default Date.now */
  now?: () => number;
  /** Reservation ids. @default generateReservationId */
  generateId?: () => string;
  /** Where pools and reservations are kept across restarts (rows of the data dir's database); none: memory only. */
  kept?: KeptPools;
}

const RETENTION_MS = RESERVATION_RETENTION_SECONDS * 1000;
/** Reservations (window entries) a refusal's retry time looks through, as RedisPoolStore's script does. */
const RETRY_SCAN_LIMIT = 1000;

/**
 * Pools in this process's memory, kept across restarts in `kept` (the data dir's database) when given: every change
 * is written before the operation answers. Every operation runs to completion within one turn of the event loop,
 * so concurrent reservations never over-commit. Run the service on Redis to share pools across instances.
 */
export class MemoryPoolStore implements PoolStore {
  readonly #pools: Map<string, Pool>;
  readonly #reservations: Map<string, Reservation>;
  /** Ended reservations to forget, in the order they ended (their retention ends in the same order). */
  readonly #forget: Array<{ at: number; id: string }>;
  #forgetHead = 0;
  readonly #now: () => number;
  readonly #generateId: () => string;
  readonly #kept: KeptPools | undefined;

  constructor(options: MemoryPoolStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#generateId = options.generateId ?? generateReservationId;
    this.#kept = options.kept;
    const restored = restorePools(options.kept?.load() ?? { pools: [], reservations: [] }, RETENTION_MS);
    this.#pools = restored.pools;
    this.#reservations = restored.reservations;
    this.#forget = restored.forget;
  }

  async create(config: PoolConfig): Promise<PoolView> {
    const resolved = resolvePoolConfig(parsePoolConfig(config));
    if (this.#pools.has(resolved.id)) throw poolExists(resolved.id);
    const now = this.#now();
    const perMinute = resolved.tokensPerMinute !== null || resolved.requestsPerMinute !== null;
    const pool: Pool = {
      config: resolved,
      limits: priorityLimits(resolved),
      createdAt: now,
      used: 0,
      reserved: 0,
      active: new Map(),
      window: perMinute ? new Map() : null,
      windowTokens: 0,
    };
    this.#pools.set(resolved.id, pool);
    this.#kept?.putPool(keptPool(pool));
    return this.#viewOf(pool);
  }

  async view(poolId: string): Promise<PoolView> {
    return this.#viewOf(this.#sweep(this.#pool(poolId), this.#now()));
  }

  async list(): Promise<PoolView[]> {
    const now = this.#now();
    return [...this.#pools.keys()].sort().map((id) => this.#viewOf(this.#sweep(this.#pools.get(id)!, now)));
  }

  async delete(poolId: string): Promise<boolean> {
    const pool = this.#pools.get(parsePoolId(poolId));
    if (!pool) return false;
    for (const id of pool.active.keys()) this.#reservations.delete(id);
    this.#pools.delete(pool.config.id);
    this.#kept?.removePool(pool.config.id);
    return true;
  }

  async reserve(poolId: string, request: ReservationRequest): Promise<ReservationDecision> {
    const input = parseReservationRequest(request);
    const now = this.#now();
    const pool = this.#sweep(this.#pool(poolId), now);
    const refusal = this.#refusal(pool, input.priority, input.tokens, now);
    if (refusal) return { ok: false, refusal };
    const ttlMs = (input.ttlSeconds ?? DEFAULT_RESERVATION_TTL_SECONDS) * 1000;
    const reservation: Reservation = {
      id: this.#generateId(),
      admittedAt: now,
      poolId: pool.config.id,
      agentId: input.agentId,
      priority: input.priority,
      tokens: input.tokens,
      expiresAt: now + ttlMs,
      state: 'active',
    };
    pool.active.set(reservation.id, reservation);
    pool.reserved += input.tokens;
    if (pool.window) {
      pool.window.set(reservation.id, { at: now, tokens: input.tokens });
      pool.windowTokens += input.tokens;
    }
    this.#reservations.set(reservation.id, reservation);
    this.#kept?.putReservation(reservation);
    return {
      ok: true,
      reservation: {
        reservationId: reservation.id,
        poolId: pool.config.id,
        agentId: reservation.agentId,
        priority: reservation.priority,
        tokens: reservation.tokens,
        expiresAt: new Date(reservation.expiresAt).toISOString(),
      },
    };
  }

  async settle(poolId: string, reservationId: string, request: SettleRequest): Promise<Settlement> {
    const { actualTokens } = parseSettleRequest(request);
    const now = this.#now();
    const pool = this.#sweep(this.#pool(poolId), now);
    const reservation = this.#reservation(pool, reservationId);
    const alreadySettled = reservation.state === 'settled';
    if (!alreadySettled) {
      if (reservation.state === 'active') {
        pool.active.delete(reservation.id);
        pool.reserved -= reservation.tokens;
        this.#ended(reservation.id, now);
        reservation.endedAt = now;
      }
      pool.used += actualTokens;
      // The window counts what was used once it is known (a released reservation has left it).
      const entry = pool.window?.get(reservation.id);
      if (entry) {
        pool.windowTokens += actualTokens - entry.tokens;
        entry.tokens = actualTokens;
      }
      reservation.settledFrom = reservation.state;
      reservation.state = 'settled';
      reservation.actualTokens = actualTokens;
      reservation.settledAt = now;
      this.#kept?.settled(keptPool(pool), reservation);
    }
    return {
      reservationId: reservation.id,
      poolId: pool.config.id,
      reservedTokens: reservation.tokens,
      actualTokens: reservation.actualTokens!,
      alreadySettled,
      settledFrom: reservation.settledFrom!,
      settledAt: new Date(reservation.settledAt!).toISOString(),
    };
  }

  async release(poolId: string, reservationId: string): Promise<Release> {
    const now = this.#now();
    const pool = this.#sweep(this.#pool(poolId), now);
    const reservation = this.#reservation(pool, reservationId);
    const released = reservation.state === 'active';
    if (released) {
      pool.active.delete(reservation.id);
      pool.reserved -= reservation.tokens;
      const entry = pool.window?.get(reservation.id);
      if (entry) {
        pool.window!.delete(reservation.id);
        pool.windowTokens -= entry.tokens;
      }
      reservation.state = 'released';
      reservation.endedAt = now;
      this.#ended(reservation.id, now);
      this.#kept?.putReservation(reservation);
    }
    return { reservationId: reservation.id, poolId: pool.config.id, state: reservation.state, released };
  }

  #pool(poolId: string): Pool {
    const id = parsePoolId(poolId);
    const pool = this.#pools.get(id);
    if (!pool) throw poolNotFound(id);
    return pool;
  }

  #reservation(pool: Pool, reservationId: string): Reservation {
    const id = parseReservationId(reservationId);
    const reservation = this.#reservations.get(id);
    if (!reservation || reservation.poolId !== pool.config.id) throw reservationNotFound(pool.config.id, id);
    return reservation;
  }

  #ended(id: string, now: number): void {
    this.#forget.push({ at: now + RETENTION_MS, id });
  }

  /** Releases expired reservations, slides the window, forgets reservations past their retention. */
  #sweep(pool: Pool, now: number): Pool {
    for (const reservation of pool.active.values()) {
      if (reservation.expiresAt > now) continue;
      pool.active.delete(reservation.id);
      pool.reserved -= reservation.tokens;
      reservation.state = 'expired';
      this.#forget.push({ at: reservation.expiresAt + RETENTION_MS, id: reservation.id });
    }
    if (pool.window) {
      for (const [id, entry] of pool.window) {
        if (entry.at > now - POOL_WINDOW_MS) break;
        pool.window.delete(id);
        pool.windowTokens -= entry.tokens;
      }
    }
    while (this.#forgetHead < this.#forget.length && this.#forget[this.#forgetHead]!.at <= now) {
      const { id } = this.#forget[this.#forgetHead]!;
      if (this.#reservations.get(id)?.state !== 'active') {
        this.#reservations.delete(id);
        this.#kept?.removeReservation(id);
      }
      this.#forgetHead += 1;
    }
    if (this.#forgetHead > 1024 && this.#forgetHead * 2 > this.#forget.length) {
      this.#forget.splice(0, this.#forgetHead);
      this.#forgetHead = 0;
    }
    return pool;
  }

  /** The first limit the reservation would break, or null when it is admitted (docs/decisions/009-pools.md). */
  #refusal(pool: Pool, priority: PoolPriority, tokens: number, now: number): ReservationRefusal | null {
    const failures: ReservationRefusal[] = [];
    const budget = pool.limits.budget?.[priority];
    if (budget !== undefined) {
      const current = pool.used + pool.reserved;
      if (tokens > budget) failures.push(refusal('request_too_large', null, budget, current, tokens));
      else if (pool.used + tokens > budget)
        failures.push(refusal('budget_exhausted', null, budget, current, tokens));
      else if (current + tokens > budget) {
        // The earliest expiry after which the outstanding reservations expiring by then make room.
        const expiries = [...pool.active.values()]
          .sort((a, b) => a.expiresAt - b.expiresAt)
          .slice(0, RETRY_SCAN_LIMIT);
        let freed = 0;
        let at = expiries[0]!.expiresAt;
        for (const reservation of expiries) {
          freed += reservation.tokens;
          at = reservation.expiresAt;
          if (current - freed + tokens <= budget) break;
        }
        failures.push(refusal('budget_reserved', secondsUntil(at, now), budget, current, tokens));
      }
    }
    const window = pool.window ? [...pool.window.values()] : [];
    const oldest = window.slice(0, RETRY_SCAN_LIMIT);
    const tokensPerMinute = pool.limits.tokensPerMinute?.[priority];
    if (tokensPerMinute !== undefined) {
      const current = pool.windowTokens;
      if (tokens > tokensPerMinute)
        failures.push(refusal('request_too_large', null, tokensPerMinute, current, tokens));
      else if (current + tokens > tokensPerMinute) {
        let freed = 0;
        let at = now;
        for (const entry of oldest) {
          freed += entry.tokens;
          at = entry.at + POOL_WINDOW_MS;
          if (current - freed + tokens <= tokensPerMinute) break;
        }
        failures.push(refusal('tokens_per_minute', secondsUntil(at, now), tokensPerMinute, current, tokens));
      }
    }
    const requestsPerMinute = pool.limits.requestsPerMinute?.[priority];
    if (requestsPerMinute !== undefined) {
      const current = window.length;
      if (requestsPerMinute < 1)
        failures.push(refusal('request_too_large', null, requestsPerMinute, current, 1));
      else if (current + 1 > requestsPerMinute) {
        const leaving = window[current - requestsPerMinute]!;
        failures.push(
          refusal(
            'requests_per_minute',
            secondsUntil(leaving.at + POOL_WINDOW_MS, now),
            requestsPerMinute,
            current,
            1,
          ),
        );
      }
    }
    return combine(failures);
  }

  #viewOf(pool: Pool): PoolView {
    const { config } = pool;
    const lastMinute = pool.window ? { tokens: pool.windowTokens, requests: pool.window.size } : null;
    const pressure = poolPressure({ ...config, used: pool.used, reserved: pool.reserved, lastMinute });
    return {
      id: config.id,
      tokenBudget: config.tokenBudget,
      tokensPerMinute: config.tokensPerMinute,
      requestsPerMinute: config.requestsPerMinute,
      priorityCeilings: { ...config.priorityCeilings },
      used: pool.used,
      reserved: pool.reserved,
      left: config.tokenBudget === null ? null : Math.max(0, config.tokenBudget - pool.used - pool.reserved),
      reservations: pool.active.size,
      lastMinute,
      level: pressure.level,
      usedFraction: pressure.usedFraction,
      createdAt: new Date(pool.createdAt).toISOString(),
    };
  }
}

function refusal(
  reason: ReservationRefusal['reason'],
  retryAfterSeconds: number | null,
  limit: number,
  current: number,
  requested: number,
): ReservationRefusal {
  return { reason, retryAfterSeconds, limit, current, requested };
}

/**
 * One refusal from every limit that refused: one that waiting cannot help, if any (its reason explains the null
 * retry time); else the first (budget, then tokens, then requests per minute) with the longest wait of them all.
 */
export function combine(failures: readonly ReservationRefusal[]): ReservationRefusal | null {
  const first = failures[0];
  if (!first) return null;
  const final = failures.find((failure) => failure.retryAfterSeconds === null);
  if (final) return final;
  let retryAfterSeconds = 0;
  for (const failure of failures) retryAfterSeconds = Math.max(retryAfterSeconds, failure.retryAfterSeconds!);
  return { ...first, retryAfterSeconds };
}
