/**
 * Pool reservations per second on Redis (RedisPoolStore.reserve: validation, one FCALL of the library's reserve function,
 * the answer read back) against a raw `EVAL` of a trivial script (`return 1`) on the same client and server, in the
 * same run. Both keep the same number of commands in flight; rounds alternate, the median is reported.
 */
import { Redis } from 'ioredis';
import { RedisPoolStore } from '../src/pools/redis-pool-store.js';
import { startRedisServer } from '../src/test-helpers/redis-server.js';

const IN_FLIGHT = 64;
const OPERATIONS = 20_000;
const ROUNDS = 5;

async function throughput(operation: (index: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < OPERATIONS) await operation(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return OPERATIONS / (Number(process.hrtime.bigint() - started) / 1e9);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The least an atomic admission can do: add, compare with the limit, take back on refusal (no expiry, no time). */
const MINIMAL_ADMISSION = `local v = redis.call('HINCRBY', KEYS[1], 'reserved', ARGV[1])
if v > tonumber(ARGV[2]) then redis.call('HINCRBY', KEYS[1], 'reserved', -tonumber(ARGV[1])) return 0 end
return 1`;

/** Server time per call of a command (µs), from INFO commandstats. */
async function serverMicros(client: Redis, command: string): Promise<number> {
  const line = (await client.info('commandstats'))
    .split('\n')
    .find((entry) => entry.startsWith(`cmdstat_${command}:`));
  return Number(/usec_per_call=([\d.]+)/.exec(line ?? '')?.[1] ?? Number.NaN);
}

export interface PoolBenchFigures {
  reserveServerMicros: number;
  evalServerMicros: number;
  minimalPerSecond: number;
  reservePerSecond: number;
  windowedReservePerSecond: number;
  evalPerSecond: number;
  evalshaPerSecond: number;
  ratio: number;
  inFlight: number;
  operations: number;
  rounds: number;
}

export async function benchPools(): Promise<PoolBenchFigures> {
  const server = await startRedisServer();
  const client = new Redis(server.url);
  try {
    const pools = new RedisPoolStore(client, { keyPrefix: 'bench:' });
    // Budgets no round can fill: every reservation is admitted, so each runs the whole function.
    await pools.create({ id: 'budget', tokenBudget: 1e15 });
    await pools.create({ id: 'windowed', tokenBudget: 1e15, tokensPerMinute: 1e15, requestsPerMinute: 1e15 });
    const trivialSha = (await client.script('LOAD', 'return 1')) as string;
    const reserve = (poolId: string) => async (index: number) => {
      const decision = await pools.reserve(poolId, { agentId: `agent-${index % 50}`, tokens: 1 });
      if (!decision.ok) throw new Error(`bench reservation refused: ${decision.refusal.reason}`);
    };
    const rawEval = () => client.eval('return 1', 0);
    const rawEvalsha = () => client.evalsha(trivialSha, 0);
    const minimal = () => client.eval(MINIMAL_ADMISSION, 1, 'bench:minimal', 1, 1e15);
    // Warm up: the function library, the JIT, the connection.
    await throughput(reserve('budget'));
    await throughput(rawEval);
    let reserveServerMicros = 0;
    let evalServerMicros = 0;
    const figures = {
      minimal: [] as number[],
      reserve: [] as number[],
      windowed: [] as number[],
      eval: [] as number[],
      evalsha: [] as number[],
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      await client.config('RESETSTAT');
      figures.eval.push(await throughput(rawEval));
      evalServerMicros = await serverMicros(client, 'eval');
      await client.config('RESETSTAT');
      figures.reserve.push(await throughput(reserve('budget')));
      reserveServerMicros = await serverMicros(client, 'fcall');
      figures.minimal.push(await throughput(minimal));
      figures.evalsha.push(await throughput(rawEvalsha));
      figures.windowed.push(await throughput(reserve('windowed')));
      // Each round leaves its reservations outstanding; clear them so that rounds are alike.
      await client.flushdb();
      await pools.create({ id: 'budget', tokenBudget: 1e15 });
      await pools.create({
        id: 'windowed',
        tokenBudget: 1e15,
        tokensPerMinute: 1e15,
        requestsPerMinute: 1e15,
      });
    }
    const reservePerSecond = median(figures.reserve);
    const evalPerSecond = median(figures.eval);
    return {
      reserveServerMicros,
      evalServerMicros,
      minimalPerSecond: median(figures.minimal),
      reservePerSecond,
      windowedReservePerSecond: median(figures.windowed),
      evalPerSecond,
      evalshaPerSecond: median(figures.evalsha),
      ratio: reservePerSecond / evalPerSecond,
      inFlight: IN_FLIGHT,
      operations: OPERATIONS,
      rounds: ROUNDS,
    };
  } finally {
    await client.quit();
    await server.stop();
  }
}
