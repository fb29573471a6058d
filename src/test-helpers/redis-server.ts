/**
 * A throwaway `redis-server` for tests and benchmarks: started on a free loopback port with nothing saved to disk,
 * stopped by its pid. Redis is a real dependency of the shared-state suites: without the binary they skip with
 * the reason, except in CI (`CI` set), where they fail instead.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Stops the server by its pid (SIGTERM, then SIGKILL after a second). */
  stop(): Promise<void>;
}

/** Why Redis cannot be used here, or undefined when `redis-server` is on the PATH. */
export function redisMissing(): string | undefined {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'redis-server is not installed (Debian: apt-get install -y redis-server)';
  }
}

/** True when a Redis suite must fail instead of skipping. */
export const redisRequired = Boolean(process.env.CI);

/**
 * Whether a Redis suite skips: only outside CI, when redis-server is missing. The reason is printed (stderr, in the
 * test file's output), since vitest's reporter lists no skipped test of a run over many files. In CI the suite runs
 * and its beforeAll fails with the reason.
 */
export function skipWithoutRedis(suite: string): boolean {
  const missing = redisMissing();
  if (missing === undefined || redisRequired) return false;
  console.warn(`Skipping the Redis suite "${suite}": ${missing}. With CI set it fails instead.`);
  return true;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(200, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/**
 * Starts `redis-server` on a free 127.0.0.1 port; throws with the reason when it cannot. `extraArgs` are more
 * configuration options (e.g. `['--rename-command', 'FCALL', '']` for a server without functions).
 */
export async function startRedisServer(extraArgs: readonly string[] = []): Promise<RedisServer> {
  const missing = redisMissing();
  if (missing) throw new Error(missing);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freePort();
    const child: ChildProcess = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
        ...extraArgs,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    const deadline = Date.now() + 5000;
    while (!exited && Date.now() < deadline) {
      if (await answersPing(port)) {
        const pid = child.pid as number;
        return {
          url: `redis://127.0.0.1:${port}`,
          port,
          pid,
          async stop() {
            if (exited) return;
            const gone = once(child, 'exit');
            process.kill(pid, 'SIGTERM');
            const timer = setTimeout(() => {
              if (!exited) process.kill(pid, 'SIGKILL');
            }, 1000);
            await gone;
            clearTimeout(timer);
          },
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (!exited) child.kill('SIGKILL');
  }
  throw new Error('redis-server did not start on a free port after 5 attempts');
}
