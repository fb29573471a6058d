import type { z } from 'zod';
import {
  PoolConfigSchema,
  PoolExhaustedProblemSchema,
  PoolListSchema,
  PoolParamsSchema,
  PoolViewSchema,
  ReleaseSchema,
  ReservationGrantSchema,
  ReservationParamsSchema,
  ReservationRequestSchema,
  SettlementSchema,
  SettleRequestSchema,
} from '../../contract/pools.js';
import { sendProblem } from '../../http/problem.js';
import type { ApiRoute } from '../../http/route-table.js';
import type { ReservationRefusal } from '../../pools/pool-schemas.js';
import type { PoolStore } from '../../pools/pool-store.js';

export const POOL_CREATE_EXAMPLE =
  'POST /api/v1/pools {"id":"team","tokenBudget":2000000,"tokensPerMinute":400000,"priorityCeilings":{"low":0.5}}';
export const RESERVE_EXAMPLE =
  'POST /api/v1/pools/:id/reservations {"agentId":"agent-1","tokens":12000,"priority":"normal","ttlSeconds":120}';
export const SETTLE_EXAMPLE = 'POST /api/v1/pools/:id/reservations/:rid/settle {"actualTokens":9800}';

/** What the routes tell the metrics. */
export interface PoolRouteObservers {
  /** Each reservation outcome this instance answered. */
  onDecision?: (outcome: 'admitted' | 'refused' | 'settled' | 'released') => void;
  /** Each refusal: its pool and reason, and the refused request's priority and agent. */
  onRefusal?: (
    poolId: string,
    reason: string,
    detail: { refusal: ReservationRefusal; priority: string; agentId: string },
  ) => void;
}

/** The path's ids, as Fastify validated them with the route's params schema. */
type PoolParams = z.output<typeof PoolParamsSchema>;
type ReservationParams = z.output<typeof ReservationParamsSchema>;

/**
 * `/api/v1/pools`: shared budgets across agents (docs/decisions/009-pools.md). Reserve before a call, settle after
 * it; each route is one PoolStore call, so the memory store and Redis answer alike.
 */
export function poolRoutes(pools: PoolStore, observers: PoolRouteObservers = {}): ApiRoute[] {
  const { onDecision = () => {}, onRefusal = () => {} } = observers;
  return [
    {
      method: 'POST',
      url: '/api/v1/pools',
      scope: 'json',
      summary: 'Create a shared pool: a token budget and/or per-minute limits, with ceilings per priority',
      body: PoolConfigSchema,
      example: POOL_CREATE_EXAMPLE,
      responses: {
        '201': { description: 'The pool view', schema: PoolViewSchema },
        '409': { description: 'A pool with that id exists (BR_ERR_POOL_EXISTS)' },
      },
      handler: async (request, reply) =>
        reply.code(201).send(await pools.create(request.body as z.output<typeof PoolConfigSchema>)),
    },
    {
      method: 'GET',
      url: '/api/v1/pools',
      scope: 'json',
      summary: 'List pools with their figures and pressure level',
      responses: {
        '200': { description: '{ pools }', schema: PoolListSchema },
      },
      handler: async () => ({ pools: await pools.list() }),
    },
    {
      method: 'GET',
      url: '/api/v1/pools/:id',
      scope: 'json',
      summary: "A pool's used, reserved and left tokens, last minute, and pressure level",
      params: PoolParamsSchema,
      responses: {
        '200': { description: 'The pool view', schema: PoolViewSchema },
        '404': { description: 'No such pool (BR_ERR_POOL_NOT_FOUND)' },
      },
      handler: async (request) => pools.view((request.params as PoolParams).id),
    },
    {
      method: 'DELETE',
      url: '/api/v1/pools/:id',
      scope: 'json',
      summary: 'Delete a pool and its outstanding reservations',
      params: PoolParamsSchema,
      responses: {
        '204': { description: 'Deleted', empty: true },
        '404': { description: 'No such pool (BR_ERR_POOL_NOT_FOUND)' },
      },
      handler: async (request, reply) => {
        const params = request.params as PoolParams;
        if (!(await pools.delete(params.id)))
          return sendProblem(reply, 'BR_ERR_POOL_NOT_FOUND', `No pool ${JSON.stringify(params.id)}`);
        return reply.code(204).send();
      },
    },
    {
      method: 'POST',
      url: '/api/v1/pools/:id/reservations',
      scope: 'json',
      summary: "Reserve tokens before a call: admitted while the pool stays under the priority's ceiling",
      params: PoolParamsSchema,
      body: ReservationRequestSchema,
      example: RESERVE_EXAMPLE,
      responses: {
        '201': {
          description: '{ reservationId, expiresAt, … }: settle it after the call',
          schema: ReservationGrantSchema,
        },
        '404': { description: 'No such pool (BR_ERR_POOL_NOT_FOUND)' },
        '429': {
          description:
            'Refused (BR_ERR_POOL_EXHAUSTED): { reason, retryAfterSeconds (null: waiting cannot help), limit, current, requested }; Retry-After when waiting helps',
          schema: PoolExhaustedProblemSchema,
        },
      },
      handler: async (request, reply) => {
        const params = request.params as PoolParams;
        const body = request.body as z.output<typeof ReservationRequestSchema>;
        const decision = await pools.reserve(params.id, body);
        if (decision.ok) {
          onDecision('admitted');
          return reply.code(201).send(decision.reservation);
        }
        const { refusal } = decision;
        onDecision('refused');
        onRefusal(params.id, refusal.reason, { refusal, priority: body.priority, agentId: body.agentId });
        if (refusal.retryAfterSeconds !== null)
          reply.header('retry-after', String(refusal.retryAfterSeconds));
        return sendProblem(
          reply,
          'BR_ERR_POOL_EXHAUSTED',
          `Pool ${JSON.stringify(params.id)} refused ${refusal.requested} ${refusal.reason === 'requests_per_minute' ? 'request' : 'tokens'} at priority ${body.priority}: ${refusal.reason} (${refusal.current} of ${refusal.limit}); ${refusal.retryAfterSeconds === null ? 'waiting cannot help' : `retry in ${refusal.retryAfterSeconds} s`}`,
          refusal,
        );
      },
    },
    {
      method: 'POST',
      url: '/api/v1/pools/:id/reservations/:rid/settle',
      scope: 'json',
      summary: 'Settle a reservation with the tokens the call used (idempotent; a late settle counts once)',
      params: ReservationParamsSchema,
      body: SettleRequestSchema,
      example: SETTLE_EXAMPLE,
      responses: {
        '200': { description: 'The settlement (alreadySettled: true on a repeat)', schema: SettlementSchema },
        '404': { description: 'No such pool or reservation' },
      },
      handler: async (request) => {
        const params = request.params as ReservationParams;
        const body = request.body as z.output<typeof SettleRequestSchema>;
        const settlement = await pools.settle(params.id, params.rid, body);
        if (!settlement.alreadySettled) onDecision('settled');
        return settlement;
      },
    },
    {
      method: 'DELETE',
      url: '/api/v1/pools/:id/reservations/:rid',
      scope: 'json',
      summary: 'Release a reservation without usage (the call was not made)',
      params: ReservationParamsSchema,
      responses: {
        '200': { description: 'The reservation state after the release', schema: ReleaseSchema },
        '404': { description: 'No such pool or reservation' },
      },
      handler: async (request) => {
        const params = request.params as ReservationParams;
        const release = await pools.release(params.id, params.rid);
        if (release.released) onDecision('released');
        return release;
      },
    },
  ];
}
