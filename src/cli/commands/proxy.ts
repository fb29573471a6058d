import type { Command } from 'commander';
import { parseWith } from '../../errors/validation.js';
import type { BarometerConfig } from '../../models/barometer-config.js';
import { DEFAULT_PORT, ServerOptionsSchema } from '../../server/options.js';
import { startServer } from '../../server/serve.js';
import { configFor } from '../config-for.js';
import { dataFolderFor } from '../data-folder-for.js';
import { proxyLogFile } from '../detached-proxy.js';
import { type CliIo, UsageError } from '../io.js';
import { issuesText } from '../issues-text.js';
import {
  type ProxyFlags,
  portOf,
  timeoutFlag,
  WINDOW_POLICY_VARIABLE,
  windowPolicyFrom,
  withProxyFlags,
} from '../proxy-flags.js';
import { startListening } from '../start-listening.js';
import { SERVE_ENVIRONMENT } from './serve.js';
import { registerWrapCommand } from './wrap.js';

/**
 * The config file the proxy's sessions are measured with: `--config`, else $BAROMETER_CONFIG, else one in the working
 * directory. The proxy never read one (issue 37): a model declared in barometer.config.json stayed unknown to it.
 */
function proxyConfig(flags: ProxyFlags, io: CliIo): Promise<BarometerConfig | undefined> {
  const path = flags.config ?? io.env[SERVE_ENVIRONMENT.config];
  return configFor(io, path === '' ? undefined : path);
}

/**
 * The window policy's levers: `--window-policy`, else $BAROMETER_WINDOW_POLICY, else the config file's
 * `window_policy`, else none.
 */
function windowPolicyOf(flags: ProxyFlags, io: CliIo, config: BarometerConfig | undefined): string[] {
  if (flags.windowPolicy !== undefined) return windowPolicyFrom(flags.windowPolicy, '--window-policy');
  const variable = io.env[WINDOW_POLICY_VARIABLE];
  if (variable !== undefined) return windowPolicyFrom(variable, WINDOW_POLICY_VARIABLE);
  return config?.windowPolicy ?? [];
}

/** The service options of `barometer proxy`: the proxy routes on, the log in the data folder's proxy.log. */
function proxyServerOptions(flags: ProxyFlags, dataDir: string, port: number, windowPolicy: string[]) {
  const raw: Record<string, unknown> = {
    port,
    logLevel: flags.logLevel ?? 'warn',
    // Absolute: tombstones name the archive files, which the agent opens from its own working directory.
    dataDir,
    // The agent's terminal is the agent's: the service's lines go to its log file, never to stdout.
    logFile: proxyLogFile(dataDir),
    proxy: {
      mode: flags.observe ? 'observe' : 'act',
      ...(flags.anthropicUpstream ? { anthropicUpstream: flags.anthropicUpstream } : {}),
      ...(flags.openaiUpstream ? { openaiUpstream: flags.openaiUpstream } : {}),
      ...(flags.chatgptUpstream ? { chatgptUpstream: flags.chatgptUpstream } : {}),
      ...timeoutFlag(
        '--upstream-headers-timeout',
        flags.upstreamHeadersTimeout,
        'upstreamHeadersTimeoutSeconds',
      ),
      ...timeoutFlag('--upstream-idle-timeout', flags.upstreamIdleTimeout, 'upstreamIdleTimeoutSeconds'),
      ...(windowPolicy.length > 0 ? { windowPolicy } : {}),
    },
  };
  if (flags.host !== undefined) raw.host = flags.host;
  const options = parseWith(ServerOptionsSchema, raw);
  if (!options.ok) throw new UsageError(`invalid proxy options:\n${issuesText(options.issues)}`);
  return options.value;
}

/** `barometer proxy` and `barometer wrap claude|codex`. */
export function registerProxyCommands(program: Command, io: CliIo): void {
  // `wrap claude -p "…" --model x`: everything after the agent's name is the agent's (the root's own options are
  // --help and --version, read before a command's name anyway).
  program.enablePositionalOptions();
  withProxyFlags(
    program
      .command('proxy')
      .description(
        'Start the service with proxy routes for Anthropic Messages and OpenAI Chat/Responses: every call measured, completed sub-tasks evicted to archives',
      )
      .option('--port <port>', `port to listen on, 0 for any free port (default ${DEFAULT_PORT})`),
  )
    .addHelpText(
      'after',
      '\nPoint an agent at it: ANTHROPIC_BASE_URL=http://127.0.0.1:8797 claude, or barometer wrap claude|codex. Keys pass through, never stored.\nIts log lines go to <data folder>/logs/proxy.log; barometer stop (or Ctrl-C) stops it.',
    )
    .action(async (flags: ProxyFlags) => {
      const folder = dataFolderFor(io, flags.dataDir);
      const config = await proxyConfig(flags, io);
      const options = proxyServerOptions(
        flags,
        folder.path,
        portOf(flags.port, DEFAULT_PORT),
        windowPolicyOf(flags, io, config),
      );
      const server = await startListening(() =>
        startServer(options, { handleSignals: true, serviceFile: true, ...(config ? { config } : {}) }),
      );
      io.stdout.write(
        `barometer proxy listening on ${server.url} (${options.proxy?.mode ?? 'act'}${options.proxy?.windowPolicy?.length ? `, window policy ${options.proxy.windowPolicy.join(',')}` : ''}; dashboard ${server.url}/): ANTHROPIC_BASE_URL=${server.url}, OpenAI base URL ${server.url}/v1; data in ${folder.path}, log in ${options.logFile}\n`,
      );
    });
  registerWrapCommand(program, io);
}
