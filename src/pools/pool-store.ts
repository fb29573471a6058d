import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { BarometerError } from '../errors/barometer-error.js';
import { compileValidator } from '../errors/compiled-validator.js';
import { BarometerValidationError, parseWith, type Result } from '../errors/validation.js';
import { IdSchema } from '../ids/id-schema.js';
import {
  type ParsedReservationRequest,
  type PoolConfig,
  PoolConfigSchema,
  type PoolView,
  type Release,
  type ReservationDecision,
  ReservationIdSchema,
  type ReservationRequest,
  ReservationRequestSchema,
  type Settlement,
  type SettleRequest,
  SettleRequestSchema,
} from './pool-schemas.js';

/**
 * Shared budgets across agents (seed 000's cross-agent pool): reserve before a call, settle after it. Two
 * implementations keep the same contract: {@link MemoryPoolStore} (one process) and {@link RedisPoolStore} (every
 * instance on one Redis, each operation one atomic script). Bad input throws a BarometerValidationError naming the
 * field and writes nothing; an unknown pool throws BR_ERR_POOL_NOT_FOUND; a refusal is data, not an error.
 */
export interface PoolStore {
  /** Creates a pool. @throws BarometerError BR_ERR_POOL_EXISTS */
  create(config: PoolConfig): Promise<PoolView>;
  /** The pool's figures now (expired reservations released first). @throws BarometerError BR_ERR_POOL_NOT_FOUND */
  view(poolId: string): Promise<PoolView>;
  /** Every pool, by id. */
  list(): Promise<PoolView[]>;
  /** Removes a pool and its outstanding reservations; false when there was none. */
  delete(poolId: string): Promise<boolean>;
  /** Admits a reservation if it stays under its priority's ceiling of every limit, else says why not. */
  reserve(poolId: string, request: ReservationRequest): Promise<ReservationDecision>;
  /**
   * Counts what the call used, once: an active reservation frees its reserved tokens; an expired or released one
   * (a late settle) only adds its actual tokens; a settled one changes nothing (`alreadySettled`).
   * @throws BarometerError BR_ERR_POOL_NOT_FOUND, BR_ERR_RESERVATION_NOT_FOUND
   */
  settle(poolId: string, reservationId: string, request: SettleRequest): Promise<Settlement>;
  /** Frees an active reservation without usage (the call was not made). @throws like {@link settle} */
  release(poolId: string, reservationId: string): Promise<Release>;
}

/** A new reservation id: `rsv_` and a random UUID's 32 hex digits (122 random bits; randomUUID draws from a cache). */
export function generateReservationId(): string {
  return `rsv_${randomUUID().replaceAll('-', '')}`;
}

function parsed<T>(result: Result<T>, context: string): T {
  if (!result.ok) throw new BarometerValidationError(result.issues, context);
  return result.value;
}

export function parsePoolConfig(config: unknown): PoolConfig {
  return parsed(parseWith(PoolConfigSchema, config), 'pool');
}

const PoolIdSchema = z.strictObject({ poolId: IdSchema });
const ReservationIdFieldSchema = z.strictObject({ reservationId: ReservationIdSchema });

/** The id rule compiled (decision 104): every reservation names its pool. */
const poolIdValidator = compileValidator(IdSchema);

/** The pool id, checked by the one id rule; a bad one is a BarometerValidationError naming `poolId`. */
export function parsePoolId(poolId: unknown): string {
  // A good id is checked by the rule's compiled check; a bad one goes through the schema, which words the error.
  if (poolIdValidator.accepts(poolId)) return poolId as string;
  return parsed(parseWith(PoolIdSchema, { poolId }), 'pool id').poolId;
}

export function parseReservationId(reservationId: unknown): string {
  return parsed(parseWith(ReservationIdFieldSchema, { reservationId }), 'reservation id').reservationId;
}

/** Compiled from the schema (decision 104): zod's parse costs more than the rest of a memory reservation. */
const reservationRequestValidator = compileValidator(ReservationRequestSchema);

/** The reservation request, checked, with its priority's default; a bad one names each bad field. */
export function parseReservationRequest(request: unknown): ParsedReservationRequest {
  return parsed(reservationRequestValidator.parse(request), 'reservation');
}

export function parseSettleRequest(request: unknown): SettleRequest {
  return parsed(parseWith(SettleRequestSchema, request), 'settlement');
}

export function poolNotFound(poolId: string): BarometerError {
  return new BarometerError('BR_ERR_POOL_NOT_FOUND', `No pool ${JSON.stringify(poolId)}`, {
    details: { poolId },
  });
}

export function poolExists(poolId: string): BarometerError {
  return new BarometerError('BR_ERR_POOL_EXISTS', `A pool ${JSON.stringify(poolId)} already exists`, {
    details: { poolId },
  });
}

export function reservationNotFound(poolId: string, reservationId: string): BarometerError {
  return new BarometerError(
    'BR_ERR_RESERVATION_NOT_FOUND',
    `No reservation ${JSON.stringify(reservationId)} in pool ${JSON.stringify(poolId)}`,
    { details: { poolId, reservationId } },
  );
}

/** Whole seconds until `atMs`, at least 1 (a Retry-After of 0 invites a busy loop). */
export function secondsUntil(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}
