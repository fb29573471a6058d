import { BarometerError } from '../errors/barometer-error.js';
import { BarometerValidationError } from '../errors/validation.js';
import { DEFAULT_SERVER_URL } from '../integrations/barometer-client.js';
import type { PoolView, ReservationRefusal } from '../pools/pool-schemas.js';
import type { PoolStore } from '../pools/pool-store.js';
import { numberOf } from './flag-schema.js';
import type { CliIo } from './io.js';
import { HttpPoolStore } from './pool-http-store.js';

export interface PoolFlags {
  server?: string;
  redis?: string;
  redisPrefix: string;
  apiKey?: string;
  json?: boolean;
  tokenBudget?: string;
  tokensPerMinute?: string;
  requestsPerMinute?: string;
  ceiling?: string[];
  agentId?: string;
  tokens?: string;
  priority?: string;
  ttlSeconds?: string;
  actualTokens?: string;
}

function ceilingsOf(entries: readonly string[] | undefined): Record<string, unknown> | undefined {
  if (!entries || entries.length === 0) return undefined;
  const ceilings: Record<string, unknown> = {};
  for (const entry of entries) {
    const match = /^([a-z]+)=(.+)$/.exec(entry);
    if (!match) {
      throw new BarometerValidationError(
        [{ field: 'priorityCeilings', value: entry, message: 'must be PRIORITY=SHARE, e.g. low=0.4' }],
        'flags',
      );
    }
    ceilings[match[1]!] = numberOf(match[2]);
  }
  return ceilings;
}

function viewText(view: PoolView): string {
  const limits = [
    view.tokenBudget === null ? null : `budget ${view.tokenBudget.toLocaleString('en-US')}`,
    view.tokensPerMinute === null ? null : `${view.tokensPerMinute.toLocaleString('en-US')} tokens/min`,
    view.requestsPerMinute === null ? null : `${view.requestsPerMinute.toLocaleString('en-US')} requests/min`,
  ].filter(Boolean);
  const ceilings = Object.entries(view.priorityCeilings)
    .map(([priority, share]) => `${priority} ${share}`)
    .join(', ');
  const lines = [
    `${view.id}: ${view.level} (${(view.usedFraction * 100).toFixed(1)}% of its most pressed limit)`,
    `  limits: ${limits.join(', ')}; ceilings: ${ceilings}`,
    `  used ${view.used.toLocaleString('en-US')}, reserved ${view.reserved.toLocaleString('en-US')} in ${view.reservations} reservation${view.reservations === 1 ? '' : 's'}${view.left === null ? '' : `, left ${view.left.toLocaleString('en-US')}`}`,
  ];
  if (view.lastMinute)
    lines.push(
      `  last minute: ${view.lastMinute.tokens.toLocaleString('en-US')} tokens, ${view.lastMinute.requests} requests`,
    );
  return `${lines.join('\n')}\n`;
}

function refusalText(poolId: string, refusal: ReservationRefusal): string {
  const wait =
    refusal.retryAfterSeconds === null ? 'waiting cannot help' : `retry in ${refusal.retryAfterSeconds} s`;
  return `pool ${JSON.stringify(poolId)} refused: ${refusal.reason} (${refusal.current.toLocaleString('en-US')} of ${refusal.limit.toLocaleString('en-US')}, asked ${refusal.requested.toLocaleString('en-US')}); ${wait}`;
}

async function openStore(
  io: CliIo,
  flags: PoolFlags,
): Promise<{ store: PoolStore; close: () => Promise<void> }> {
  if (flags.redis !== undefined) {
    const [{ Redis }, { RedisPoolStore }] = await Promise.all([
      import('ioredis'),
      import('../pools/redis-pool-store.js'),
    ]);
    const client = new Redis(flags.redis, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 3000,
    });
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw new BarometerError(
        'BR_ERR_UNAVAILABLE',
        `Redis not reachable at ${flags.redis}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return {
      store: new RedisPoolStore(client, { keyPrefix: flags.redisPrefix }),
      close: async () => {
        await client.quit();
      },
    };
  }
  const apiKey = flags.apiKey ?? io.env.BAROMETER_API_KEY;
  return {
    store: new HttpPoolStore({
      url: flags.server ?? io.env.BAROMETER_URL ?? DEFAULT_SERVER_URL,
      timeoutMs: 5000,
      ...(apiKey ? { apiKey } : {}),
    }),
    close: async () => {},
  };
}

/** Runs one `barometer pool` action; a refusal prints its reason and throws BR_ERR_POOL_EXHAUSTED (exit 6). */
export async function runPool(io: CliIo, action: string, args: string[], flags: PoolFlags): Promise<void> {
  const { store, close } = await openStore(io, flags);
  const print = (value: unknown, text: string) =>
    io.stdout.write(flags.json ? `${JSON.stringify(value, null, 2)}\n` : text);
  try {
    const [poolId = '', reservationId = ''] = args;
    switch (action) {
      case 'create': {
        const ceilings = ceilingsOf(flags.ceiling);
        const view = await store.create({
          id: poolId,
          ...(flags.tokenBudget === undefined ? {} : { tokenBudget: numberOf(flags.tokenBudget) }),
          ...(flags.tokensPerMinute === undefined
            ? {}
            : { tokensPerMinute: numberOf(flags.tokensPerMinute) }),
          ...(flags.requestsPerMinute === undefined
            ? {}
            : { requestsPerMinute: numberOf(flags.requestsPerMinute) }),
          ...(ceilings ? { priorityCeilings: ceilings } : {}),
        } as never);
        print(view, `created ${viewText(view)}`);
        return;
      }
      case 'show': {
        const view = await store.view(poolId);
        print(view, viewText(view));
        return;
      }
      case 'list': {
        const views = await store.list();
        print({ pools: views }, views.length === 0 ? 'no pools\n' : views.map(viewText).join(''));
        return;
      }
      case 'delete': {
        if (!(await store.delete(poolId)))
          throw new BarometerError('BR_ERR_POOL_NOT_FOUND', `No pool ${JSON.stringify(poolId)}`);
        print({ deleted: poolId }, `deleted pool ${poolId}\n`);
        return;
      }
      case 'reserve': {
        const decision = await store.reserve(poolId, {
          agentId: flags.agentId ?? '',
          tokens: numberOf(flags.tokens),
          priority: flags.priority,
          ...(flags.ttlSeconds === undefined ? {} : { ttlSeconds: numberOf(flags.ttlSeconds) }),
        } as never);
        if (decision.ok) {
          const grant = decision.reservation;
          print(
            grant,
            `${grant.reservationId}: ${grant.tokens.toLocaleString('en-US')} tokens at ${grant.priority} for ${grant.agentId}, until ${grant.expiresAt}\n`,
          );
          return;
        }
        if (flags.json) print(decision.refusal, '');
        throw new BarometerError('BR_ERR_POOL_EXHAUSTED', refusalText(poolId, decision.refusal), {
          details: decision.refusal,
        });
      }
      case 'settle': {
        const settlement = await store.settle(poolId, reservationId, {
          actualTokens: numberOf(flags.actualTokens),
        } as never);
        print(
          settlement,
          settlement.alreadySettled
            ? `${reservationId} was settled already (${settlement.actualTokens.toLocaleString('en-US')} tokens): nothing changed\n`
            : `${reservationId} settled: ${settlement.actualTokens.toLocaleString('en-US')} tokens used of ${settlement.reservedTokens.toLocaleString('en-US')} reserved${settlement.settledFrom === 'active' ? '' : ` (late: it had ${settlement.settledFrom === 'expired' ? 'expired' : 'been released'})`}\n`,
        );
        return;
      }
      case 'release': {
        const release = await store.release(poolId, reservationId);
        print(
          release,
          release.released
            ? `${reservationId} released\n`
            : `${reservationId} was ${release.state} already: nothing changed\n`,
        );
        return;
      }
      default:
        throw new BarometerError('BR_ERR_INVALID_PARAM', `unknown pool action ${JSON.stringify(action)}`);
    }
  } finally {
    await close();
  }
}
