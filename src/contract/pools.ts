import * as z from 'zod';
import { IdSchema } from '../ids/id-schema.js';
import { PoolViewSchema, ReservationIdSchema, ReservationRefusalSchema } from '../pools/pool-schemas.js';

/** Shared pools (`/api/v1/pools`, `barometer pool`): the pools' own schemas, re-exported, and the wire's envelopes. */
export {
  PoolConfigSchema,
  PoolViewSchema,
  PriorityCeilingsSchema,
  ReleaseSchema,
  ReservationGrantSchema,
  ReservationIdSchema,
  ReservationRefusalSchema,
  ReservationRequestSchema,
  SettlementSchema,
  SettleRequestSchema,
} from '../pools/pool-schemas.js';

export const PoolParamsSchema = z.strictObject({ id: IdSchema });
export const ReservationParamsSchema = z.strictObject({ id: IdSchema, rid: ReservationIdSchema });
export const PoolListSchema = z.strictObject({ pools: z.array(PoolViewSchema) }).meta({ id: 'PoolList' });

/** A refused reservation (429): the problem's sentence and code with the refusal's figures. */
export const PoolExhaustedProblemSchema = ReservationRefusalSchema.extend({
  error: z.string(),
  code: z.literal('BR_ERR_POOL_EXHAUSTED'),
});
