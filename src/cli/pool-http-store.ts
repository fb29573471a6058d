import { BarometerError } from '../errors/barometer-error.js';
import { isErrorCode } from '../errors/error-catalogue.js';
import { BarometerValidationError, type ValidationIssue } from '../errors/validation.js';
import { BarometerClient, type BarometerClientOptions } from '../integrations/barometer-client.js';
import type {
  PoolConfig,
  PoolView,
  Release,
  ReservationDecision,
  ReservationGrant,
  ReservationRefusal,
  ReservationRequest,
  Settlement,
  SettleRequest,
} from '../pools/pool-schemas.js';
import {
  type PoolStore,
  parsePoolConfig,
  parsePoolId,
  parseReservationId,
  parseReservationRequest,
  parseSettleRequest,
} from '../pools/pool-store.js';

/**
 * The PoolStore contract over a running service's `/api/v1/pools`: what `barometer pool` uses without `--redis`. The
 * service's problem codes come back as the same BarometerErrors the stores throw, so the CLI exits alike either way.
 * Each request is checked here first by the schema the service checks it with (the stores' own parsers): a bad flag
 * is refused with the same issues, before any connection, whether or not a service is running.
 */
export class HttpPoolStore implements PoolStore {
  readonly #client: BarometerClient;

  constructor(options: BarometerClientOptions) {
    this.#client = new BarometerClient(options);
  }

  async #call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    let answer: { status: number; body: unknown };
    try {
      answer = await this.#client.request(method, path, body);
    } catch (error) {
      throw new BarometerError(
        'BR_ERR_UNAVAILABLE',
        `${error instanceof Error ? error.message : String(error)} (start it with: barometer serve; or use --redis)`,
        { cause: error },
      );
    }
    const problem = (answer.body ?? {}) as { code?: unknown; error?: unknown; issues?: ValidationIssue[] };
    // A pool's refusal is an answer (a decision as data); any other 429 (the service's rate limit) is an error.
    if (answer.status < 400 || problem.code === 'BR_ERR_POOL_EXHAUSTED') return answer;
    if (problem.code === 'BR_ERR_INVALID_PARAM' && Array.isArray(problem.issues))
      throw new BarometerValidationError(problem.issues, 'input');
    const code = isErrorCode(problem.code) ? problem.code : 'BR_ERR_INTERNAL';
    throw new BarometerError(code, String(problem.error ?? `the service answered ${answer.status}`));
  }

  async create(config: PoolConfig): Promise<PoolView> {
    return (await this.#call('POST', '/api/v1/pools', parsePoolConfig(config))).body as PoolView;
  }

  async view(poolId: string): Promise<PoolView> {
    const id = parsePoolId(poolId);
    return (await this.#call('GET', `/api/v1/pools/${encodeURIComponent(id)}`)).body as PoolView;
  }

  async list(): Promise<PoolView[]> {
    return ((await this.#call('GET', '/api/v1/pools')).body as { pools: PoolView[] }).pools;
  }

  async delete(poolId: string): Promise<boolean> {
    const id = parsePoolId(poolId);
    try {
      await this.#call('DELETE', `/api/v1/pools/${encodeURIComponent(id)}`);
      return true;
    } catch (error) {
      if (error instanceof BarometerError && error.code === 'BR_ERR_POOL_NOT_FOUND') return false;
      throw error;
    }
  }

  async reserve(poolId: string, request: ReservationRequest): Promise<ReservationDecision> {
    const id = parsePoolId(poolId);
    const answer = await this.#call(
      'POST',
      `/api/v1/pools/${encodeURIComponent(id)}/reservations`,
      parseReservationRequest(request),
    );
    if (answer.status < 400) return { ok: true, reservation: answer.body as ReservationGrant };
    const { reason, retryAfterSeconds, limit, current, requested } = answer.body as ReservationRefusal;
    return { ok: false, refusal: { reason, retryAfterSeconds, limit, current, requested } };
  }

  async settle(poolId: string, reservationId: string, request: SettleRequest): Promise<Settlement> {
    const path = `/api/v1/pools/${encodeURIComponent(parsePoolId(poolId))}/reservations/${encodeURIComponent(parseReservationId(reservationId))}/settle`;
    return (await this.#call('POST', path, parseSettleRequest(request))).body as Settlement;
  }

  async release(poolId: string, reservationId: string): Promise<Release> {
    const path = `/api/v1/pools/${encodeURIComponent(parsePoolId(poolId))}/reservations/${encodeURIComponent(parseReservationId(reservationId))}`;
    return (await this.#call('DELETE', path)).body as Release;
  }
}
