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
import type { PoolStore } from '../pools/pool-store.js';
import { SERVICE_URL_VARIABLE, type ServiceTarget, serviceUnreachable } from './service-target.js';

/**
 * The PoolStore contract over a running service's `/api/v1/pools`: what `barometer pool` uses without `--redis`. The
 * service's problem codes come back as the same BarometerErrors the stores throw, so the CLI exits alike either way.
 */
export class HttpPoolStore implements PoolStore {
  readonly #client: BarometerClient;
  readonly #target: ServiceTarget;

  constructor(target: ServiceTarget, options: Omit<BarometerClientOptions, 'url'> = {}) {
    this.#target = target;
    this.#client = new BarometerClient({ ...options, url: target.url });
  }

  async #call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    let answer: { status: number; body: unknown };
    try {
      answer = await this.#client.request(method, path, body);
    } catch (error) {
      throw serviceUnreachable(this.#target, error, '; or work on Redis directly with --redis <url>');
    }
    const problem = (answer.body ?? {}) as { code?: unknown; error?: unknown; issues?: ValidationIssue[] };
    // A pool's refusal is an answer (a decision as data); any other 429 (the service's rate limit) is an error.
    if (answer.status < 400 || problem.code === 'BR_ERR_POOL_EXHAUSTED') return answer;
    if (problem.code === 'BR_ERR_INVALID_PARAM' && Array.isArray(problem.issues))
      throw new BarometerValidationError(problem.issues, 'input');
    // Something answers, but not with barometer's problem document: another program on that port.
    if (!isErrorCode(problem.code))
      throw new BarometerError(
        'BR_ERR_UNAVAILABLE',
        `what answers at ${this.#target.url} is not a barometer service (HTTP ${answer.status} to ${method} ${path}): point --server or ${SERVICE_URL_VARIABLE} at a barometer service`,
      );
    throw new BarometerError(problem.code, String(problem.error ?? `the service answered ${answer.status}`));
  }

  async create(config: PoolConfig): Promise<PoolView> {
    return (await this.#call('POST', '/api/v1/pools', config)).body as PoolView;
  }

  async view(poolId: string): Promise<PoolView> {
    return (await this.#call('GET', `/api/v1/pools/${encodeURIComponent(poolId)}`)).body as PoolView;
  }

  async list(): Promise<PoolView[]> {
    return ((await this.#call('GET', '/api/v1/pools')).body as { pools: PoolView[] }).pools;
  }

  async delete(poolId: string): Promise<boolean> {
    try {
      await this.#call('DELETE', `/api/v1/pools/${encodeURIComponent(poolId)}`);
      return true;
    } catch (error) {
      if (error instanceof BarometerError && error.code === 'BR_ERR_POOL_NOT_FOUND') return false;
      throw error;
    }
  }

  async reserve(poolId: string, request: ReservationRequest): Promise<ReservationDecision> {
    const answer = await this.#call(
      'POST',
      `/api/v1/pools/${encodeURIComponent(poolId)}/reservations`,
      request,
    );
    if (answer.status < 400) return { ok: true, reservation: answer.body as ReservationGrant };
    const { reason, retryAfterSeconds, limit, current, requested } = answer.body as ReservationRefusal;
    return { ok: false, refusal: { reason, retryAfterSeconds, limit, current, requested } };
  }

  async settle(poolId: string, reservationId: string, request: SettleRequest): Promise<Settlement> {
    const path = `/api/v1/pools/${encodeURIComponent(poolId)}/reservations/${encodeURIComponent(reservationId)}/settle`;
    return (await this.#call('POST', path, request)).body as Settlement;
  }

  async release(poolId: string, reservationId: string): Promise<Release> {
    const path = `/api/v1/pools/${encodeURIComponent(poolId)}/reservations/${encodeURIComponent(reservationId)}`;
    return (await this.#call('DELETE', path)).body as Release;
  }
}
