export { MemoryPoolStore, type MemoryPoolStoreOptions } from './memory-pool-store.js';
export {
  ceilingShare,
  type PoolFigures,
  type PriorityLimits,
  poolPressure,
  priorityLimits,
  type ResolvedPoolConfig,
  resolvePoolConfig,
} from './pool-limits.js';
export * from './pool-schemas.js';
export { generateReservationId, type PoolStore } from './pool-store.js';
export { DEFAULT_POOL_KEY_PREFIX, RedisPoolStore, type RedisPoolStoreOptions } from './redis-pool-store.js';
