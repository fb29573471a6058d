import type { Redis } from 'ioredis';
import { poolPressure, priorityLimits, resolvePoolConfig } from './pool-limits.js';
import {
  DEFAULT_RESERVATION_TTL_SECONDS,
  POOL_PRIORITIES,
  type PoolConfig,
  type PoolView,
  type Release,
  type ReservationDecision,
  type ReservationRefusal,
  type ReservationRequest,
  type ReservationState,
  type Settlement,
  type SettleRequest,
} from './pool-schemas.js';
import { POOL_FUNCTIONS, POOL_LIBRARY, type PoolOperation } from './pool-scripts.js';
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
} from './pool-store.js';

export interface RedisPoolStoreOptions {
  /** Prepended to every key, so that several deployments can share one Redis. @default 'barometer:' */
  keyPrefix?: string;
  /** Reservation ids. @default generateReservationId */
  generateId?: () => string;
  /**
   * A clock for tests, in epoch milliseconds. By default the scripts read the Redis server's `TIME`, so that
   * instances with skewed clocks agree: leave it unset outside tests.
   */
  now?: () => number;
}

/** The default key prefix. */
export const DEFAULT_POOL_KEY_PREFIX = 'barometer:';

/** A Redis older than 7 has no functions: say so, rather than pass its "unknown command" on. */
function unsupported(error: unknown): unknown {
  if (error instanceof Error && /unknown command/i.test(error.message)) {
    return new Error(
      `barometer's pools need Redis 7 or newer (FUNCTION LOAD, FCALL); this server said: ${error.message}`,
    );
  }
  return error;
}

/**
 * Pools on Redis, shared by every service instance and agent that uses the same Redis and prefix. Each operation is
 * one Lua script (src/pools/pool-scripts.ts), atomic on the server: concurrent reservations from any number of
 * clients never over-commit. Time is the Redis server's clock. The client is the caller's: this store never
 * closes it.
 *
 * @example
 * const pools = new RedisPoolStore(new Redis(process.env.BAROMETER_REDIS_URL));
 * const decision = await pools.reserve('team', { agentId: 'a1', tokens: 8000, priority: 'normal' });
 */
export class RedisPoolStore implements PoolStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #generateId: () => string;
  readonly #now: (() => number) | undefined;

  constructor(client: Redis, options: RedisPoolStoreOptions = {}) {
    this.#client = client;
    this.#prefix = options.keyPrefix ?? DEFAULT_POOL_KEY_PREFIX;
    this.#generateId = options.generateId ?? generateReservationId;
    this.#now = options.now;
  }

  /**
   * Calls one of the library's functions, the test clock (when there is one) as its last argument. A Redis that
   * does not have the library (a new server, a `FUNCTION FLUSH`) gets it loaded, then the call is made again.
   */
  #call(
    operation: PoolOperation,
    keys: readonly string[],
    args: ReadonlyArray<string | number>,
  ): Promise<unknown> {
    const all = this.#now ? [...args, this.#now()] : args;
    const name = POOL_FUNCTIONS[operation];
    return this.#client.fcall(name, keys.length, ...keys, ...all).catch(async (error: unknown) => {
      if (!(error instanceof Error) || !error.message.includes('Function not found'))
        throw unsupported(error);
      await this.#client.call('FUNCTION', 'LOAD', 'REPLACE', POOL_LIBRARY).catch((loadError: unknown) => {
        throw unsupported(loadError);
      });
      return this.#client.fcall(name, keys.length, ...keys, ...all);
    });
  }

  #base(poolId: string): string {
    return `${this.#prefix}pool:{${poolId}}`;
  }

  async create(config: PoolConfig): Promise<PoolView> {
    const resolved = resolvePoolConfig(parsePoolConfig(config));
    const limits = priorityLimits(resolved);
    const fields: Array<string | number> = [];
    if (resolved.tokenBudget !== null) fields.push('budget', resolved.tokenBudget);
    if (resolved.tokensPerMinute !== null) fields.push('tpm', resolved.tokensPerMinute);
    if (resolved.requestsPerMinute !== null) fields.push('rpm', resolved.requestsPerMinute);
    if (resolved.tokensPerMinute !== null || resolved.requestsPerMinute !== null) fields.push('win', 1);
    for (const priority of POOL_PRIORITIES) {
      fields.push(`c_${priority}`, String(resolved.priorityCeilings[priority]));
      if (limits.budget) fields.push(`b_${priority}`, limits.budget[priority]);
      if (limits.tokensPerMinute) fields.push(`t_${priority}`, limits.tokensPerMinute[priority]);
      if (limits.requestsPerMinute) fields.push(`q_${priority}`, limits.requestsPerMinute[priority]);
    }
    const answer = await this.#call(
      'create',
      [this.#base(resolved.id), `${this.#prefix}pools`],
      [resolved.id, ...fields],
    );
    if (answer === 'exists') throw poolExists(resolved.id);
    return this.view(resolved.id);
  }

  async view(poolId: string): Promise<PoolView> {
    const id = parsePoolId(poolId);
    const view = await this.#viewOf(id);
    if (!view) throw poolNotFound(id);
    return view;
  }

  async #viewOf(id: string): Promise<PoolView | undefined> {
    const answer = (await this.#call('view', [this.#base(id)], [])) as
      | [string[], number, number, number]
      | null;
    if (!answer) return undefined;
    const [flat, reservations, requests] = answer;
    const hash = new Map<string, string>();
    for (let index = 0; index < flat.length; index += 2) hash.set(flat[index]!, flat[index + 1]!);
    const numberOf = (field: string) => (hash.has(field) ? Number(hash.get(field)) : null);
    const priorityCeilings = Object.fromEntries(
      POOL_PRIORITIES.map((priority) => [priority, Number(hash.get(`c_${priority}`))]),
    ) as PoolView['priorityCeilings'];
    const tokenBudget = numberOf('budget');
    const used = numberOf('used') ?? 0;
    const reserved = numberOf('reserved') ?? 0;
    const lastMinute = hash.has('win') ? { tokens: numberOf('wtokens') ?? 0, requests } : null;
    const figures = {
      tokenBudget,
      tokensPerMinute: numberOf('tpm'),
      requestsPerMinute: numberOf('rpm'),
      priorityCeilings,
    };
    const pressure = poolPressure({ ...figures, used, reserved, lastMinute });
    return {
      id,
      ...figures,
      used,
      reserved,
      left: tokenBudget === null ? null : Math.max(0, tokenBudget - used - reserved),
      reservations,
      lastMinute,
      level: pressure.level,
      usedFraction: pressure.usedFraction,
      createdAt: new Date(numberOf('created') ?? 0).toISOString(),
    };
  }

  async list(): Promise<PoolView[]> {
    const ids = (await this.#client.smembers(`${this.#prefix}pools`)).sort();
    const views = await Promise.all(ids.map((id) => this.#viewOf(id)));
    return views.filter((view): view is PoolView => view !== undefined);
  }

  async delete(poolId: string): Promise<boolean> {
    const id = parsePoolId(poolId);
    const answer = await this.#call('delete', [this.#base(id), `${this.#prefix}pools`], [id]);
    return answer === 1;
  }

  async reserve(poolId: string, request: ReservationRequest): Promise<ReservationDecision> {
    const id = parsePoolId(poolId);
    const input = parseReservationRequest(request);
    const ttlMs = (input.ttlSeconds ?? DEFAULT_RESERVATION_TTL_SECONDS) * 1000;
    for (let attempt = 0; ; attempt += 1) {
      const reservationId = this.#generateId();
      const answer = (await this.#call(
        'reserve',
        [this.#base(id)],
        [reservationId, input.priority, input.tokens, ttlMs],
      )) as number | [string, ...Array<string | number>];
      if (typeof answer === 'number') {
        // Admitted: the function answers the expiry alone.
        return {
          ok: true,
          reservation: {
            reservationId,
            poolId: id,
            agentId: input.agentId,
            priority: input.priority,
            tokens: input.tokens,
            expiresAt: new Date(answer).toISOString(),
          },
        };
      }
      switch (answer[0]) {
        case 'refused': {
          const retry = Number(answer[2]);
          return {
            ok: false,
            refusal: {
              reason: answer[1] as ReservationRefusal['reason'],
              retryAfterSeconds: retry < 0 ? null : retry,
              limit: Number(answer[3]),
              current: Number(answer[4]),
              requested: Number(answer[5]),
            },
          };
        }
        case 'missing':
          throw poolNotFound(id);
        case 'priority':
          throw new Error(`the pool library refused priority ${JSON.stringify(input.priority)}`);
        default:
          // An id already in use (a generator given by a caller that repeats itself): try a fresh one, twice.
          if (attempt >= 2) throw new Error(`reservation ids keep colliding in pool ${JSON.stringify(id)}`);
      }
    }
  }

  async settle(poolId: string, reservationId: string, request: SettleRequest): Promise<Settlement> {
    const id = parsePoolId(poolId);
    const rid = parseReservationId(reservationId);
    const { actualTokens } = parseSettleRequest(request);
    const answer = (await this.#call('settle', [this.#base(id)], [rid, actualTokens])) as [
      string,
      ...Array<string | number>,
    ];
    if (answer[0] === 'missing') throw poolNotFound(id);
    if (answer[0] === 'no_reservation') throw reservationNotFound(id, rid);
    return {
      reservationId: rid,
      poolId: id,
      reservedTokens: Number(answer[2]),
      actualTokens: Number(answer[3]),
      alreadySettled: answer[1] === 1,
      settledFrom: answer[4] as ReservationState,
      settledAt: new Date(Number(answer[5])).toISOString(),
    };
  }

  async release(poolId: string, reservationId: string): Promise<Release> {
    const id = parsePoolId(poolId);
    const rid = parseReservationId(reservationId);
    const answer = (await this.#call('release', [this.#base(id)], [rid])) as [
      string,
      ...Array<string | number>,
    ];
    if (answer[0] === 'missing') throw poolNotFound(id);
    if (answer[0] === 'no_reservation') throw reservationNotFound(id, rid);
    return {
      reservationId: rid,
      poolId: id,
      state: answer[1] as ReservationState,
      released: answer[2] === 1,
    };
  }
}
