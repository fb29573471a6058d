import {
  DEFAULT_PRIORITY_CEILINGS,
  POOL_PRIORITIES,
  type PoolConfig,
  type PoolLevel,
  type PoolPriority,
} from './pool-schemas.js';

/** A pool's settings with every default applied. */
export interface ResolvedPoolConfig {
  id: string;
  tokenBudget: number | null;
  tokensPerMinute: number | null;
  requestsPerMinute: number | null;
  priorityCeilings: Record<PoolPriority, number>;
}

/** Each limit's share per priority, in whole tokens (requests), computed once when the pool is created. */
export interface PriorityLimits {
  budget: Record<PoolPriority, number> | null;
  tokensPerMinute: Record<PoolPriority, number> | null;
  requestsPerMinute: Record<PoolPriority, number> | null;
}

export function resolvePoolConfig(config: PoolConfig): ResolvedPoolConfig {
  return {
    id: config.id,
    tokenBudget: config.tokenBudget ?? null,
    tokensPerMinute: config.tokensPerMinute ?? null,
    requestsPerMinute: config.requestsPerMinute ?? null,
    priorityCeilings: { ...DEFAULT_PRIORITY_CEILINGS, ...config.priorityCeilings },
  };
}

/**
 * `ceiling × limit` in whole units, rounded down, except that a product a rounding error below an integer is that
 * integer (0.7 × 10,000 is 7,000, not 6,999, and 0.57 × 100 is 57).
 * @example ceilingShare(10_000, 0.85) // 8500
 */
export function ceilingShare(limit: number, ceiling: number): number {
  const exact = limit * ceiling;
  const nearest = Math.round(exact);
  return Math.abs(exact - nearest) <= 1e-9 * Math.max(1, exact) ? nearest : Math.floor(exact);
}

function shares(limit: number | null, ceilings: Record<PoolPriority, number>) {
  if (limit === null) return null;
  return Object.fromEntries(
    POOL_PRIORITIES.map((priority) => [priority, ceilingShare(limit, ceilings[priority])]),
  ) as Record<PoolPriority, number>;
}

export function priorityLimits(config: ResolvedPoolConfig): PriorityLimits {
  return {
    budget: shares(config.tokenBudget, config.priorityCeilings),
    tokensPerMinute: shares(config.tokensPerMinute, config.priorityCeilings),
    requestsPerMinute: shares(config.requestsPerMinute, config.priorityCeilings),
  };
}

/** What {@link poolPressure} reads: a pool view, or the same figures from anywhere. */
export interface PoolFigures {
  tokenBudget: number | null;
  tokensPerMinute: number | null;
  requestsPerMinute: number | null;
  priorityCeilings: Record<PoolPriority, number>;
  used: number;
  reserved: number;
  lastMinute: { tokens: number; requests: number } | null;
}

/**
 * A pool's pressure in seed 000's four levels, from the share of its most pressed limit (`(used + reserved) /
 * tokenBudget`, the last minute's tokens / tokensPerMinute, its reservations / requestsPerMinute) against the
 * pool's own priority ceilings: below the low ceiling LOW (every priority is admitted), below normal's MODERATE
 * (low work is refused), below high's HIGH (only high and urgent get in), else CRITICAL (urgent only).
 * Pure and deterministic: the session's verdict reads it ("pool HIGH and priority low: defer").
 * @example poolPressure({ ...view, used: 6000, reserved: 1000, tokenBudget: 10000 }) // { level: 'HIGH', usedFraction: 0.7 }
 */
export function poolPressure(figures: PoolFigures): { level: PoolLevel; usedFraction: number } {
  let usedFraction = 0;
  if (figures.tokenBudget !== null)
    usedFraction = Math.max(usedFraction, (figures.used + figures.reserved) / figures.tokenBudget);
  if (figures.lastMinute !== null) {
    if (figures.tokensPerMinute !== null)
      usedFraction = Math.max(usedFraction, figures.lastMinute.tokens / figures.tokensPerMinute);
    if (figures.requestsPerMinute !== null)
      usedFraction = Math.max(usedFraction, figures.lastMinute.requests / figures.requestsPerMinute);
  }
  const ceilings = figures.priorityCeilings;
  const level: PoolLevel =
    usedFraction < ceilings.low
      ? 'LOW'
      : usedFraction < ceilings.normal
        ? 'MODERATE'
        : usedFraction < ceilings.high
          ? 'HIGH'
          : 'CRITICAL';
  return { level, usedFraction };
}
