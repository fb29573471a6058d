import type { Command } from 'commander';
import { ERROR_CATALOGUE } from '../../errors/error-catalogue.js';
import { DEFAULT_SERVER_URL } from '../../integrations/barometer-client.js';
import type { CliIo } from '../io.js';
import type { PoolFlags } from '../pool.js';
import { SERVICE_URL_VARIABLE } from '../service-target.js';

/** `barometer pool …`: shared budgets on a running service (default) or directly on Redis (`--redis`). */
export function registerPoolCommand(program: Command, io: CliIo): void {
  const pool = program
    .command('pool')
    .description(
      'Shared token budgets across agents: create a pool, reserve before a call, settle after it (on a running service, or directly on Redis with --redis)',
    )
    .addHelpText(
      'after',
      `
Ceilings: a reservation of a priority is admitted only while the pool's used plus reserved tokens stay at or under
that priority's share of each limit (low 0.5, normal 0.7, high 0.85, urgent 1.0): the last share is kept for urgent
work. A refusal exits ${ERROR_CATALOGUE.BR_ERR_POOL_EXHAUSTED.exit} and prints the reason and when to retry (never, when waiting cannot help).

Where: without --redis, every pool command talks to the barometer service at --server, else $${SERVICE_URL_VARIABLE},
else ${DEFAULT_SERVER_URL} (start one with barometer serve). When none answers there, the command says which URL
it tried and exits ${ERROR_CATALOGUE.BR_ERR_UNAVAILABLE.exit}. Bad flags exit ${ERROR_CATALOGUE.BR_ERR_INVALID_PARAM.exit} before anything is sent.

Examples:
  barometer pool create team --token-budget 2000000 --tokens-per-minute 400000
  barometer pool reserve team --agent-id agent-1 --tokens 12000 --priority normal
  barometer pool settle team rsv_… --actual-tokens 9800
  barometer pool show team --json
  barometer pool list --redis redis://127.0.0.1:6379`,
    );
  const common = (command: Command) =>
    command
      .option(
        '--server <url>',
        `the barometer service (default: $${SERVICE_URL_VARIABLE}, else ${DEFAULT_SERVER_URL})`,
      )
      .option('--redis <url>', 'work on this Redis directly (redis://host:port) instead of through a service')
      .option(
        '--redis-prefix <prefix>',
        'the Redis key prefix (with --redis), as given to serve --redis-prefix',
        'barometer:',
      )
      .option('--api-key <key>', 'an API key for a service that requires one (default: $BAROMETER_API_KEY)')
      .option('--json', 'print the answer as JSON');
  const run = async (action: string, args: string[], flags: PoolFlags) => {
    const { runPool } = await import('../pool.js');
    await runPool(io, action, args, flags);
  };

  common(pool.command('create').argument('<id>', 'the pool id').description('Create a pool'))
    .option('--token-budget <tokens>', 'tokens the pool may spend in all')
    .option('--tokens-per-minute <tokens>', 'tokens admitted over any 60-second window')
    .option('--requests-per-minute <n>', 'reservations admitted over any 60-second window')
    .option(
      '--ceiling <priority=share>',
      'a priority ceiling, e.g. low=0.4 (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action((id: string, flags: PoolFlags) => run('create', [id], flags));
  common(
    pool.command('show').argument('<id>', 'the pool id').description("A pool's figures and pressure level"),
  ).action((id: string, flags: PoolFlags) => run('show', [id], flags));
  common(pool.command('list').description('Every pool')).action((flags: PoolFlags) => run('list', [], flags));
  common(pool.command('delete').argument('<id>', 'the pool id').description('Delete a pool')).action(
    (id: string, flags: PoolFlags) => run('delete', [id], flags),
  );
  common(pool.command('reserve').argument('<id>', 'the pool id').description('Reserve tokens before a call'))
    .requiredOption('--agent-id <id>', 'the agent reserving')
    .requiredOption('--tokens <tokens>', 'tokens to reserve')
    .option('--priority <priority>', 'low, normal, high or urgent', 'normal')
    .option('--ttl-seconds <seconds>', 'release it if not settled within this time (default 120)')
    .action((id: string, flags: PoolFlags) => run('reserve', [id], flags));
  common(
    pool
      .command('settle')
      .argument('<id>', 'the pool id')
      .argument('<reservationId>', 'the reservation id')
      .description('Settle a reservation with the tokens the call used (idempotent)'),
  )
    .requiredOption('--actual-tokens <tokens>', 'tokens the call used')
    .action((id: string, reservationId: string, flags: PoolFlags) =>
      run('settle', [id, reservationId], flags),
    );
  common(
    pool
      .command('release')
      .argument('<id>', 'the pool id')
      .argument('<reservationId>', 'the reservation id')
      .description('Release a reservation without usage (the call was not made)'),
  ).action((id: string, reservationId: string, flags: PoolFlags) =>
    run('release', [id, reservationId], flags),
  );
  for (const command of pool.commands) {
    command.exitOverride();
    command.configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
    command.showHelpAfterError('(run with --help for usage)');
  }
}
