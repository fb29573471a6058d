import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { BarometerError } from '../errors/barometer-error.js';
import { BarometerClient, ServiceUnreachableError } from '../integrations/barometer-client.js';
import { withSessionLock } from '../integrations/file-lock.js';
import { type LiveSessions, MonitorSessions, ServiceSessions } from '../integrations/live-sessions.js';
import { LogWatcher, WATCH_DEFAULTS, type WatchEvent } from '../integrations/log-watcher.js';
import { dataFolderFor } from './data-folder-for.js';
import { durationSeconds } from './duration.js';
import { type CliIo, UsageError } from './io.js';
import { runningService } from './running-service.js';
import { serviceTarget, serviceUnreachable } from './service-target.js';
import { startListening } from './start-listening.js';

/** The flags of `barometer watch` as commander gives them. */
export interface WatchFlags {
  server?: string;
  host?: string;
  port?: string;
  dataDir?: string;
  since: string;
  poll: string;
  settle: string;
}

/** Where the agents keep their logs, as their docs say (see docs/rules.md, "Agent logs"). */
export function defaultLogFolders(env: Record<string, string | undefined>, home = homedir()): string[] {
  const claude = env.CLAUDE_CONFIG_DIR ? env.CLAUDE_CONFIG_DIR : join(home, '.claude');
  const codex = env.CODEX_HOME ? env.CODEX_HOME : join(home, '.codex');
  return [join(claude, 'projects'), join(codex, 'sessions'), join(home, '.gemini', 'tmp')];
}

function milliseconds(flag: string, text: string): number {
  const seconds = durationSeconds(text);
  if (seconds === undefined)
    throw new UsageError(
      `--${flag} must be a duration such as 2h, 30m, 1.5s or 500ms; got ${JSON.stringify(text)}`,
    );
  return Math.round(seconds * 1000);
}

const short = (id: string) => (id.length > 13 ? `${id.slice(0, 8)}…` : id);
const grouped = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** Calls older than this are history being caught up on: their verdict changes are not printed. */
const LIVE_MS = 5 * 60 * 1000;

/**
 * Prints what the watcher does: each new session, each change of a session's verdict on a recent call (not while a
 * log's history is read), each problem.
 */
function reporter(io: CliIo, home: string, now: () => number) {
  const actions = new Map<string, string>();
  const tilde = (path: string) => (path.startsWith(home) ? `~${path.slice(home.length)}` : path);
  return (event: WatchEvent) => {
    switch (event.type) {
      case 'session': {
        // A sub-agent's session is printed under its parent's, indented, naming it.
        const lead = event.parentId === undefined ? '+ ' : `  └ + `;
        const parent = event.parentId === undefined ? '' : ` (sub-agent of ${short(event.parentId)})`;
        io.stdout.write(
          `${lead}${short(event.id)} ${event.model}${event.contextWindow ? ` (window ${grouped(event.contextWindow)})` : ''}${parent}${event.resumed ? ' (resumed)' : ''} ← ${tilde(event.path)}\n`,
        );
        return;
      }
      case 'call': {
        if (!event.answer) return;
        const before = actions.get(event.id);
        actions.set(event.id, event.answer.action);
        if (
          before !== undefined &&
          before !== event.answer.action &&
          Date.parse(event.timestamp) > now() - LIVE_MS
        )
          io.stdout.write(
            `  ${short(event.id)}: ${before} → ${event.answer.action} (${event.answer.health})\n`,
          );
        return;
      }
      case 'skipped':
        io.stderr.write(`! ${tilde(event.path)}: not followed: ${event.reason}\n`);
        return;
      case 'error':
        io.stderr.write(
          `! ${event.path ? tilde(event.path) : 'watch'}: ${event.error instanceof Error ? event.error.message : String(event.error)}\n`,
        );
        return;
      default:
        return;
    }
  };
}

/** Why `client` is not a barometer service that answers, or null when it is one. */
async function barometerServiceProblem(client: BarometerClient): Promise<string | null> {
  try {
    const answer = await client.request('GET', '/openapi.json');
    const title = (answer.body as { info?: { title?: unknown } } | null)?.info?.title;
    if (answer.status !== 200 || title !== 'barometer') {
      return `${client.url} answers, but is not a barometer service (GET /openapi.json: ${answer.status})`;
    }
    return null;
  } catch (error) {
    return error instanceof ServiceUnreachableError ? error.message : String(error);
  }
}

/** Where the sessions go without --server, and how to close it. */
interface LocalService {
  sessions: LiveSessions;
  serviceUrl: string;
  close: () => Promise<void>;
}

/**
 * Without --server: the barometer service of the data folder when one runs (its service file names it), else an
 * embedded one on the data folder, else (its port taken by a barometer service) that one.
 */
async function localService(io: CliIo, flags: WatchFlags): Promise<LocalService> {
  const folder = dataFolderFor(io, flags.dataDir);
  const own = await runningService(folder.path);
  if (own) {
    const client = new BarometerClient({ url: own.record.url });
    io.stdout.write(
      `barometer watch: the barometer service of ${folder.path} runs at ${client.url}: sending to it (dashboard ${client.url}/)\n`,
    );
    return { sessions: new ServiceSessions(client), serviceUrl: client.url, close: async () => undefined };
  }
  const [{ startServer }, { addressText }, { DEFAULT_HOST, DEFAULT_PORT }] = await Promise.all([
    import('../server/serve.js'),
    import('../server/listen-failure.js'),
    import('../server/options.js'),
  ]);
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535))
    throw new UsageError(`--port must be a whole number from 0 to 65535; got ${JSON.stringify(flags.port)}`);
  const host = flags.host ?? DEFAULT_HOST;
  try {
    const server = await startListening(() =>
      startServer(
        { logLevel: 'warn', host, ...(port === undefined ? {} : { port }), dataDir: folder.path },
        { serviceFile: true },
      ),
    );
    io.stdout.write(`barometer watch: dashboard ${server.url}/ (embedded service)\n`);
    return {
      sessions: new MonitorSessions(server.app.barometerMonitor),
      serviceUrl: server.url,
      close: server.close,
    };
  } catch (error) {
    if (!(error instanceof BarometerError) || error.code !== 'BR_ERR_PORT_IN_USE') throw error;
    // The port is taken: by a barometer service (`npm start`, `barometer serve`), the sessions go to it, as with
    // --server; by anything else, the user chooses another port.
    const client = new BarometerClient({
      url: `http://${addressText(host, port ?? DEFAULT_PORT)}`,
      timeoutMs: 2000,
    });
    if ((await barometerServiceProblem(client)) !== null) throw error;
    io.stdout.write(
      `barometer watch: a barometer service already listens at ${client.url}: sending to it (dashboard ${client.url}/)\n`,
    );
    return { sessions: new ServiceSessions(client), serviceUrl: client.url, close: async () => undefined };
  }
}

/** `barometer watch`: starts the embedded service (or checks the given one), then follows the logs until stopped. */
export async function runWatch(io: CliIo, dirs: string[], flags: WatchFlags): Promise<void> {
  const sinceMs = milliseconds('since', flags.since);
  const pollMs = Math.max(50, milliseconds('poll', flags.poll));
  const settleMs = milliseconds('settle', flags.settle);
  const home = io.env.HOME ?? homedir();
  const roots = dirs.length > 0 ? dirs.map((dir) => resolve(io.cwd, dir)) : defaultLogFolders(io.env, home);
  let sessions: LiveSessions;
  let serviceUrl: string;
  let close: () => Promise<void> = async () => undefined;
  if (flags.server !== undefined) {
    const target = serviceTarget(flags.server, io.env);
    const client = new BarometerClient({ url: target.url });
    let status: number;
    try {
      status = (await client.request('GET', '/healthz')).status;
    } catch (error) {
      if (!(error instanceof ServiceUnreachableError)) throw error;
      throw serviceUnreachable(target, error, '; or leave out --server to start one here');
    }
    if (status !== 200)
      throw new BarometerError(
        'BR_ERR_UNAVAILABLE',
        `what answers at ${target.url} is not a ready barometer service (GET /healthz answered ${status}): point --server at a barometer service, or leave it out to start one here`,
      );
    sessions = new ServiceSessions(client);
    serviceUrl = client.url;
    io.stdout.write(`barometer watch: sending to ${client.url} (dashboard ${client.url}/)\n`);
  } else {
    ({ sessions, serviceUrl, close } = await localService(io, flags));
  }
  const found = roots.filter((root) => existsSync(root));
  const missing = roots.filter((root) => !existsSync(root));
  io.stdout.write(
    `watching ${found.length > 0 ? found.join(', ') : 'nothing yet'}${missing.length > 0 ? ` (not found: ${missing.join(', ')})` : ''}\n`,
  );
  const watcher = new LogWatcher({
    roots,
    sessions,
    sinceMs,
    pollMs,
    settleMs,
    rescanMs: Math.max(pollMs, WATCH_DEFAULTS.rescanMs),
    // The hooks of the same agents (sent to the same service) take the same lock per session.
    exclusive: (sessionId, work) => withSessionLock(serviceUrl, sessionId, work),
    onEvent: reporter(io, home, Date.now),
  });
  await watcher.start();
  const stop = (signal: NodeJS.Signals) => {
    io.stderr.write(`barometer watch: ${signal}, sending the last calls\n`);
    watcher
      .close()
      .then(close)
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
