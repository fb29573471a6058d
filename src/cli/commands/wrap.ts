import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { constants } from 'node:os';
import type { Command } from 'commander';
import { BarometerError } from '../../errors/barometer-error.js';
import { addressText } from '../../server/listen-failure.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../server/options.js';
import type { DataFolder } from '../../store/data-folder.js';
import type { ServiceRecord } from '../../store/service-file.js';
import { agentCommand, type WrappedAgent } from '../agent-command.js';
import { configPathFor } from '../config-for.js';
import { dataFolderFor } from '../data-folder-for.js';
import { proxyLogFile, startDetachedProxy } from '../detached-proxy.js';
import { type CliIo, UsageError } from '../io.js';
import {
  type ProxyFlags,
  portOf,
  timeoutArguments,
  windowPolicyFrom,
  withProxyFlags,
} from '../proxy-flags.js';
import { barometerAt, runningService } from '../running-service.js';

/** The service wrap sends the agent to, and how it came to be. */
interface WrapService {
  url: string;
  pid: number | undefined;
  /** `started`: by this wrap, and it outlives the agent; `found`: already running. */
  how: 'started' | 'found';
}

const UPSTREAM_FLAGS = [
  ['anthropicUpstream', '--anthropic-upstream', 'Anthropic'],
  ['openaiUpstream', '--openai-upstream', 'OpenAI'],
  ['chatgptUpstream', '--chatgpt-upstream', 'ChatGPT-login'],
] as const;

/** The `--data-dir` to repeat in a command wrap suggests, when the folder is not the default one. */
function dataDirArgument(folder: DataFolder): string {
  return folder.source === 'default' ? '' : ` --data-dir '${folder.path.replaceAll("'", "'\\''")}'`;
}

/** Why a running service of the data folder cannot take this agent, or undefined when it can. */
function misfit(record: ServiceRecord, flags: ProxyFlags): string | undefined {
  if (record.proxy === null) return 'it was started without the proxy routes (barometer serve)';
  for (const [key, flag, label] of UPSTREAM_FLAGS) {
    const wanted = flags[key]?.replace(/\/+$/, '');
    if (wanted !== undefined && wanted !== record.proxy[key])
      return `it forwards ${label} requests to ${record.proxy[key]}, not to ${wanted} (${flag})`;
  }
  if (flags.windowPolicy !== undefined) {
    const wanted = windowPolicyFrom(flags.windowPolicy, '--window-policy').sort().join(',');
    const running = [...(record.proxy.windowPolicy ?? [])].sort().join(',');
    if (wanted !== running)
      return `its window policy is ${running || 'off'}, not ${wanted || 'off'} (--window-policy)`;
  }
  return undefined;
}

/** Whether nothing listens on host:port (a listener of ours opens and closes there). */
function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * The barometer service for the agent: the data folder's own (its service file), else one with the proxy routes on
 * the port, else a new `barometer proxy` started detached, which outlives the agent so that the address printed
 * keeps showing the session.
 */
async function serviceFor(io: CliIo, flags: ProxyFlags, folder: DataFolder): Promise<WrapService> {
  const own = await runningService(folder.path);
  if (own) {
    const why = misfit(own.record, flags);
    if (why !== undefined)
      throw new BarometerError(
        'BR_ERR_DATA_DIR_LOCKED',
        `the barometer service of ${folder.path} at ${own.record.url} (process ${own.record.pid}) cannot take this agent: ${why}. Stop it with \`barometer stop${dataDirArgument(folder)}\` and run wrap again (it starts one that fits), or give wrap another --data-dir`,
      );
    return { url: own.record.url, pid: own.record.pid, how: 'found' };
  }
  const host = flags.host ?? DEFAULT_HOST;
  let port = portOf(flags.port, DEFAULT_PORT);
  if (port !== 0) {
    const url = `http://${addressText(host, port)}`;
    const there = await barometerAt(url);
    if (there && !there.proxy)
      throw new BarometerError(
        'BR_ERR_DATA_DIR_LOCKED',
        `the barometer service at ${url} was started without the proxy routes (barometer serve): the agent's calls cannot go through it. Stop it and start \`barometer proxy\` instead (the same dashboard, with the proxy routes), or give wrap --port 0 to start a service of its own on another port, whose dashboard is not the one at ${url}`,
      );
    if (there) {
      const given = UPSTREAM_FLAGS.find(([key]) => flags[key] !== undefined);
      if (given)
        throw new UsageError(
          `a barometer proxy answers at ${url}, but not from ${folder.path}, so wrap cannot tell where it forwards: leave out ${given[1]} to use it as it is, or give --port 0 to start a service of its own`,
        );
      if (flags.windowPolicy !== undefined)
        throw new UsageError(
          `a barometer proxy answers at ${url}, but not from ${folder.path}, so wrap cannot tell its window policy: leave out --window-policy to use it as it is, or give --port 0 to start a service of its own`,
        );
      return { url, pid: undefined, how: 'found' };
    }
    // Taken by another program: a free port instead.
    if (!(await portFree(host, port))) port = 0;
  }
  const args = ['--port', String(port), '--host', host];
  for (const [key, flag] of UPSTREAM_FLAGS) if (flags[key] !== undefined) args.push(flag, flags[key]);
  if (flags.logLevel !== undefined) args.push('--log-level', flags.logLevel);
  args.push(...timeoutArguments(flags));
  // The service runs in the data folder: the config of the agent's working directory is named to it.
  const config = configPathFor(io, flags.config);
  if (config !== undefined) args.push('--config', config);
  const record = await startDetachedProxy({ dataDir: folder.path, args, env: io.env });
  return { url: record.url, pid: record.pid, how: 'started' };
}

/** The one line wrap writes before the agent starts: where the dashboard is, and what runs it. */
function startLine(agent: string, service: WrapService, folder: DataFolder, observe: boolean): string {
  const through = observe ? `${service.url}/observe (only measured)` : service.url;
  const head = `barometer: ${agent} through ${through} (dashboard ${service.url}/)`;
  if (service.how === 'found')
    return `${head}, the barometer service already running there${service.pid === undefined ? '' : ` (process ${service.pid})`}\n`;
  return `${head}; started the barometer service (process ${service.pid}, log ${proxyLogFile(folder.path)}), which keeps running after ${agent} exits: stop it with \`barometer stop${dataDirArgument(folder)}\`\n`;
}

/** Runs the agent with the terminal's stdio; resolves with its exit code (128 + signal when killed by one). */
function runAgent(io: CliIo, command: ReturnType<typeof agentCommand>): Promise<number> {
  return new Promise<number>((done) => {
    const child = spawn(command.command, command.args, {
      cwd: io.cwd,
      env: { ...io.env, ...command.env },
      stdio: 'inherit',
    });
    // Ctrl-C reaches the agent from the terminal itself: wrap waits for the agent's own exit. A signal sent to wrap
    // alone is passed on.
    const pass = (signal: NodeJS.Signals) => child.kill(signal);
    const ignore = () => undefined;
    process.on('SIGINT', ignore);
    process.on('SIGTERM', pass);
    process.on('SIGHUP', pass);
    const finish = (code: number) => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', pass);
      process.off('SIGHUP', pass);
      done(code);
    };
    child.on('error', (error) => {
      io.stderr.write(`barometer: could not run ${command.command}: ${error.message}\n`);
      finish(127);
    });
    child.on('exit', (exitCode, signal) =>
      finish(exitCode ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)),
    );
  });
}

/** `barometer wrap claude|codex [args…]`. */
export function registerWrapCommand(program: Command, io: CliIo): void {
  withProxyFlags(
    program
      .command('wrap')
      .description(
        'Run Claude Code or Codex through the barometer service of your data folder (the one running, or one started for it that keeps running)',
      )
      .argument('<agent>', 'claude or codex')
      .argument('[args...]', "the agent's own arguments, passed as they are")
      .option(
        '--port <port>',
        `where to start the service when none runs (default ${DEFAULT_PORT}; taken by another program: a free one)`,
      )
      .allowUnknownOption(true)
      .passThroughOptions(true),
  )
    .addHelpText(
      'after',
      `
wrap writes one line on stderr (where the dashboard is) and nothing on stdout: the agent's output is the agent's.
The service it starts logs to <data folder>/logs/proxy.log and keeps running after the agent, so that the
dashboard keeps showing the session; barometer stop stops it. --observe sends this agent's requests unchanged.`,
    )
    .action(async (agent: string, args: string[], flags: ProxyFlags) => {
      if (agent !== 'claude' && agent !== 'codex')
        throw new UsageError(`wrap runs claude or codex; got ${JSON.stringify(agent)}`);
      // A bad --window-policy is refused before any service is found or started.
      if (flags.windowPolicy !== undefined) windowPolicyFrom(flags.windowPolicy, '--window-policy');
      const folder = dataFolderFor(io, flags.dataDir);
      const service = await serviceFor(io, flags, folder);
      io.stderr.write(startLine(agent, service, folder, flags.observe === true));
      const command = agentCommand(agent as WrappedAgent, service.url, args, io.env, {
        observe: flags.observe === true,
      });
      // The agent's exit code is the command's (main.ts leaves it as set).
      process.exitCode = await runAgent(io, command);
    });
}
