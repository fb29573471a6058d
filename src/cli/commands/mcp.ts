import { resolve } from 'node:path';
import type { Command } from 'commander';
import pino from 'pino';
import { BarometerError } from '../../errors/barometer-error.js';
import { createBarometerMcpServer } from '../../mcp/create-mcp-server.js';
import { oversizeAnswer, STDIO_MESSAGE_LIMIT_BYTES, StdioLineLimit } from '../../mcp/stdio-line-limit.js';
import { loadConfig } from '../../models/load-config.js';
import { dataDirPaths, openSessionMonitor, sweepIdleSessions } from '../../session/open-session-monitor.js';
import { DEFAULT_SESSION_TTL_MS } from '../../session/session-monitor.js';
import { ArchiveStore } from '../../store/archive.js';
import { readServiceFile } from '../../store/service-file.js';
import type { StoreProblem } from '../../store/sqlite-state-store.js';
import { StdioServerTransport } from '../../vendor/mcp-sdk-stdio.js';
import { dataFolderFor } from '../data-folder-for.js';
import { durationSeconds } from '../duration.js';
import { type CliIo, UsageError } from '../io.js';
import { DATA_DIR_HELP } from '../proxy-flags.js';
import { summarizerFrom } from '../summarizer-flags.js';
import { SERVE_ENVIRONMENT } from './serve.js';

/** The log levels `barometer mcp` takes (pino's); logs go to stderr, stdout carries the protocol only. */
export const MCP_LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type McpLogLevel = (typeof MCP_LOG_LEVELS)[number];

interface McpFlags {
  dataDir?: string;
  config?: string;
  logLevel?: string;
  sessionTtl?: string;
  summarizerCommand?: string;
  summarizerTimeout?: string;
}

/**
 * `barometer mcp`: the MCP server on stdio, for clients that start it as a child process (Claude Code, Claude
 * Desktop, Codex). The same data dir and config as `barometer serve`: sessions kept in `<data-dir>/barometer.db`,
 * archives in `<data-dir>/archives`, model overrides from barometer.config.*. Nothing but the protocol is written
 * to stdout: logs go to stderr.
 */
export function registerMcpCommand(program: Command, io: CliIo): void {
  program
    .command('mcp')
    .description('Serve the barometer tools to an MCP client over stdio (logs on stderr)')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option(
      '--config <path>',
      `barometer.config.json/.yaml overriding model limits (env ${SERVE_ENVIRONMENT.config}; default: the one in the working directory, if any)`,
    )
    .option(
      '--log-level <level>',
      `${MCP_LOG_LEVELS.join('|')}, written to stderr (env ${SERVE_ENVIRONMENT.logLevel}; default info)`,
    )
    .option(
      '--session-ttl <duration>',
      `sessions idle longer than this expire, e.g. 24h; 0 = never (env ${SERVE_ENVIRONMENT.sessionTtl}; default 24h)`,
    )
    .option(
      '--summarizer-command <cmd>',
      `a command that writes compaction recaps, as for serve (env ${SERVE_ENVIRONMENT.summarizerCommand})`,
    )
    .option(
      '--summarizer-timeout <duration>',
      `how long the summarizer command may run (env ${SERVE_ENVIRONMENT.summarizerTimeout}; default 60s)`,
    )
    .addHelpText(
      'after',
      `
Tools: evaluate_pressure, create_session, context_status, report_usage, compact_history, evict_task,
read_archive. Answers name archives by path (<data-dir>/archives/<session>/<task>.log#<item>).
This process keeps its own sessions; to share sessions with a running "barometer serve" (its dashboard, hooks),
point the MCP client at that service's /mcp endpoint (Streamable HTTP) instead.
Stops when the client closes stdin, or on SIGTERM/SIGINT, writing its sessions out first.

When a barometer service (serve, proxy, wrap's) holds the data folder, this server keeps its sessions in memory
and says so on stderr: connect the client to that service's /mcp to share them.

Claude Code:  claude mcp add barometer -- barometer mcp`,
    )
    .action(async (flags: McpFlags) => {
      const logLevel = (flags.logLevel ?? io.env[SERVE_ENVIRONMENT.logLevel] ?? 'info') as McpLogLevel;
      if (!MCP_LOG_LEVELS.includes(logLevel)) {
        throw new UsageError(
          `--log-level must be one of ${MCP_LOG_LEVELS.join(', ')}; got ${JSON.stringify(logLevel)}`,
        );
      }
      const ttlText = flags.sessionTtl ?? io.env[SERVE_ENVIRONMENT.sessionTtl];
      const ttlSeconds =
        ttlText === undefined || ttlText === '' ? DEFAULT_SESSION_TTL_MS / 1000 : durationSeconds(ttlText);
      if (ttlSeconds === undefined) {
        throw new UsageError(
          `--session-ttl must be a duration such as 24h, 30m, 90s or a number of seconds; got ${JSON.stringify(ttlText)}`,
        );
      }
      const paths = dataDirPaths(dataFolderFor(io, flags.dataDir).path);
      const configPath = flags.config ?? io.env[SERVE_ENVIRONMENT.config];
      const config = await loadConfig(
        configPath === undefined || configPath === '' ? io.cwd : resolve(io.cwd, configPath),
      );
      const summarizer = summarizerFrom(flags, io, SERVE_ENVIRONMENT);
      // stdout is the protocol: every log line goes to stderr, synchronously so that none is lost on exit.
      const log = pino({ name: 'barometer-mcp', level: logLevel }, pino.destination({ fd: 2, sync: true }));

      const archive = new ArchiveStore({ root: paths.archives });
      const monitorOptions = {
        dataDir: paths.root,
        archive,
        config,
        sessionTtlMs: Math.round(ttlSeconds * 1000),
        onProblem: (problem: StoreProblem) =>
          problem.action === 'import'
            ? log.info(problem, 'sessions imported into the database')
            : log.warn(
                problem,
                problem.action === 'repair' ? 'session repaired on load' : 'session file not imported',
              ),
        ...(summarizer ? { summarizer } : {}),
      };
      const monitor = await openSessionMonitor(monitorOptions).catch(async (error: unknown) => {
        if (!(error instanceof BarometerError) || error.code !== 'BR_ERR_DATA_DIR_LOCKED') throw error;
        // A service runs on the data folder (one writer per folder): the client still gets its tools, on sessions
        // of this process; the archives are the folder's (appends from many processes are safe).
        const service = readServiceFile(paths.root);
        log.warn(
          { dataDir: paths.root, ...(service ? { service: service.url } : {}) },
          `the data folder is in use by ${service ? `the barometer service at ${service.url}` : 'another barometer process'}: this MCP server keeps its sessions in memory${service ? `; connect the client to ${service.url}/mcp to share that service's sessions` : ''}`,
        );
        return openSessionMonitor({ ...monitorOptions, persistSessions: false });
      });
      const stopSweeping = sweepIdleSessions(monitor, ttlSeconds * 1000, {
        onExpired: (ids) => log.info({ sessionIds: ids }, 'sessions expired: idle longer than their TTL'),
        onError: (error) => log.error({ err: error }, 'session sweep failed'),
      });
      const server = createBarometerMcpServer({
        monitor,
        archive,
        archiveAddresses: 'path',
        // Started by the agent over stdio, in the agent's folder: its sessions (hooks, watch) name that folder.
        clientWorkingDirectory: io.cwd,
        // The agent starts this server as its child, as it runs its hooks: the hooks record the same process.
        clientProcessId: process.ppid,
        onError: (error, tool) => log.error({ err: error, tool }, 'tool failed'),
      });
      server.onerror = (error) => log.warn({ err: error }, 'MCP protocol error');

      let shuttingDown = false;
      const shutdown = async (reason: string) => {
        // stdin's end and a signal may both arrive: one shutdown.
        if (shuttingDown) return;
        shuttingDown = true;
        log.info({ reason }, 'shutting down');
        stopSweeping();
        try {
          await server
            .close()
            .catch((error: unknown) => log.warn({ err: error }, 'closing the transport failed'));
          // Every answered update is in the database already: closing folds its log into the file.
          await monitor.close();
          process.exit(0);
        } catch (error) {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        }
      };
      // The MCP stdio shutdown: the client closes our stdin, then signals if we linger.
      process.stdin.once('end', () => void shutdown('stdin closed'));
      process.once('SIGTERM', () => void shutdown('SIGTERM'));
      process.once('SIGINT', () => void shutdown('SIGINT'));

      // A message over the SDK's limit is answered with an error and dropped: the server goes on serving.
      const limit = STDIO_MESSAGE_LIMIT_BYTES;
      const input = process.stdin.pipe(
        new StdioLineLimit(limit, (id, bytes) => {
          log.warn({ bytes, limit, id }, 'MCP message over the size limit: answered with an error, not read');
          process.stdout.write(oversizeAnswer(id, bytes, limit));
        }),
      );
      // The SDK's own buffer holds at most one whole message under the limit and a chunk of the next.
      await server.connect(
        new StdioServerTransport(input, process.stdout, { maxBufferSize: 2 * limit + 1024 * 1024 }),
      );
      const sessions = await monitor.store.size();
      log.info(
        { dataDir: paths.root, sessions },
        `barometer MCP server on stdio; ${sessions} session${sessions === 1 ? '' : 's'} restored`,
      );
    });
}
