import { BarometerError } from '../errors/barometer-error.js';
import { BarometerValidationError } from '../errors/validation.js';
import type {
  PoolConfig,
  PoolView,
  ReservationRefusal,
  ReservationRequest,
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
import { type CliIo, UsageError } from './io.js';
import { issuesText } from './issues-text.js';
import { HttpPoolStore } from './pool-http-store.js';
import { serviceTarget } from './service-target.js';

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

/** A flag's number, or the flag's text itself so that the schema names the field and the value given. */
function numberOf(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^-?\d+(\.\d+)?(e\d+)?$/i.test(text.trim()) ? Number(text) : text;
}

function ceilingsOf(entries: readonly string[] | undefined): Record<string, unknown> | undefined {
  if (!entries || entries.length === 0) return undefined;
  const ceilings: Record<string, unknown> = {};
  for (const entry of entries) {
    const match = /^([a-z]+)=(.+)$/.exec(entry);
    if (!match) {
      throw new UsageError(
        `--ceiling must be PRIORITY=SHARE, such as low=0.4 (priorities low, normal, high, urgent); got ${JSON.stringify(entry)}`,
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
    const [{ Redis }, { RedisPoolStore }, { redactRedisUrl }] = await Promise.all([
      import('ioredis'),
      import('../pools/redis-pool-store.js'),
      import('../store/redis-connection.js'),
    ]);
    const client = new Redis(flags.redis, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 3000,
    });
    // ioredis reports a failed connection as an 'error' event too, printed as "Unhandled error event" without a
    // listener; its message (connect ECONNREFUSED …) says more than connect()'s rejection ("Connection is closed").
    let lastError: unknown;
    client.on('error', (error: unknown) => {
      lastError = error;
    });
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      const reason = lastError ?? error;
      throw new BarometerError(
        'BR_ERR_UNAVAILABLE',
        `no Redis answers at ${redactRedisUrl(flags.redis)} (given by --redis; ${reason instanceof Error ? reason.message : String(reason)}): start it, or leave out --redis to go through a barometer service`,
        { cause: error },
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
    store: new HttpPoolStore(serviceTarget(flags.server, io.env), {
      timeoutMs: 5000,
      ...(apiKey ? { apiKey } : {}),
    }),
    close: async () => {},
  };
}

/** The flag or argument that sets each field of a pool request, so that an error names what the user typed. */
const POOL_FLAGS: Readonly<Record<string, string>> = {
  id: 'the <id> argument',
  poolId: 'the <id> argument',
  reservationId: 'the <reservationId> argument',
  tokenBudget: '--token-budget',
  tokensPerMinute: '--tokens-per-minute',
  requestsPerMinute: '--requests-per-minute',
  agentId: '--agent-id',
  tokens: '--tokens',
  priority: '--priority',
  ttlSeconds: '--ttl-seconds',
  actualTokens: '--actual-tokens',
};

function poolFlagOf(field: string): string | undefined {
  const ceiling = /^priorityCeilings\.(\w+)$/.exec(field);
  if (ceiling) return `--ceiling ${ceiling[1]}=…`;
  return POOL_FLAGS[field];
}

/**
 * Checks the request here, by the same parsers the stores use, before any service or Redis is asked: bad input
 * exits 2 with the flags named, whether or not a service runs, and nothing is sent.
 */
function checked<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof BarometerValidationError && error.code === 'BR_ERR_INVALID_PARAM')
      throw new UsageError(`invalid input:\n${issuesText(error.issues, poolFlagOf)}`);
    throw error;
  }
}

/** The request an action sends, checked; nothing is opened before it passes. */
function requestOf(action: string, args: string[], flags: PoolFlags): unknown {
  const [poolId = '', reservationId = ''] = args;
  if (action === 'list') return undefined;
  if (action === 'create') {
    const ceilings = ceilingsOf(flags.ceiling);
    return checked(() =>
      parsePoolConfig({
        id: poolId,
        ...(flags.tokenBudget === undefined ? {} : { tokenBudget: numberOf(flags.tokenBudget) }),
        ...(flags.tokensPerMinute === undefined ? {} : { tokensPerMinute: numberOf(flags.tokensPerMinute) }),
        ...(flags.requestsPerMinute === undefined
          ? {}
          : { requestsPerMinute: numberOf(flags.requestsPerMinute) }),
        ...(ceilings ? { priorityCeilings: ceilings } : {}),
      }),
    );
  }
  checked(() => parsePoolId(poolId));
  if (action === 'reserve')
    return checked(() =>
      parseReservationRequest({
        agentId: flags.agentId ?? '',
        tokens: numberOf(flags.tokens),
        ...(flags.priority === undefined ? {} : { priority: flags.priority }),
        ...(flags.ttlSeconds === undefined ? {} : { ttlSeconds: numberOf(flags.ttlSeconds) }),
      }),
    );
  if (action === 'settle' || action === 'release') checked(() => parseReservationId(reservationId));
  if (action === 'settle')
    return checked(() => parseSettleRequest({ actualTokens: numberOf(flags.actualTokens) }));
  return undefined;
}

/** Runs one `barometer pool` action; a refusal prints its reason and throws BR_ERR_POOL_EXHAUSTED (exit 6). */
export async function runPool(io: CliIo, action: string, args: string[], flags: PoolFlags): Promise<void> {
  const request = requestOf(action, args, flags);
  const { store, close } = await openStore(io, flags);
  const print = (value: unknown, text: string) =>
    io.stdout.write(flags.json ? `${JSON.stringify(value, null, 2)}\n` : text);
  try {
    const [poolId = '', reservationId = ''] = args;
    switch (action) {
      case 'create': {
        const view = await store.create(request as PoolConfig);
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
        const decision = await store.reserve(poolId, request as ReservationRequest);
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
        const settlement = await store.settle(poolId, reservationId, request as SettleRequest);
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
