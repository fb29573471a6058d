import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parseWith } from '../../errors/validation.js';
import type { BarometerConfig } from '../../models/barometer-config.js';
import {
  DEFAULT_ANTHROPIC_UPSTREAM,
  DEFAULT_CHATGPT_UPSTREAM,
  DEFAULT_OPENAI_UPSTREAM,
} from '../../proxy/proxy-options.js';
import { DEFAULT_HOST, DEFAULT_PORT, ServerOptionsSchema } from '../../server/options.js';
import { type RunningServer, startServer } from '../../server/serve.js';
import { configFor } from '../config-for.js';
import { type CliIo, UsageError } from '../io.js';
import { issuesText } from '../issues-text.js';
import { startListening } from '../start-listening.js';
import { SERVE_ENVIRONMENT } from './serve.js';

/** Flags shared by `proxy` and `wrap`. */
interface ProxyFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  anthropicUpstream?: string;
  openaiUpstream?: string;
  chatgptUpstream?: string;
  observe?: boolean;
  logLevel?: string;
  config?: string;
}

function withProxyFlags(command: Command): Command {
  return command
    .option('--host <host>', `address to listen on (default ${DEFAULT_HOST}: this machine only)`)
    .option('--data-dir <dir>', 'where sessions and archives are written (default .barometer)')
    .option(
      '--anthropic-upstream <url>',
      `where Anthropic requests go (default ${DEFAULT_ANTHROPIC_UPSTREAM})`,
    )
    .option('--openai-upstream <url>', `where OpenAI requests go (default ${DEFAULT_OPENAI_UPSTREAM})`)
    .option(
      '--chatgpt-upstream <url>',
      `where Codex's requests go when it is signed in with ChatGPT (default ${DEFAULT_CHATGPT_UPSTREAM})`,
    )
    .option('--observe', 'only measure: forward every request unchanged (default: evict completed sub-tasks)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (default warn)')
    .option(
      '--config <path>',
      `barometer.config.json/.yaml with model figures and prices (env ${SERVE_ENVIRONMENT.config}; default: the one in the working directory, if any)`,
    );
}

/**
 * The config file the proxy's sessions are measured with: `--config`, else $BAROMETER_CONFIG, else one in the working
 * directory. The proxy never read one (issue 37): a model declared in barometer.config.json stayed unknown to it.
 */
function proxyConfig(flags: ProxyFlags, io: CliIo): Promise<BarometerConfig | undefined> {
  const path = flags.config ?? io.env[SERVE_ENVIRONMENT.config];
  return configFor(io, path === '' ? undefined : path);
}

function serverOptions(flags: ProxyFlags, io: CliIo, port: number) {
  const raw: Record<string, unknown> = {
    port,
    logLevel: flags.logLevel ?? 'warn',
    // Absolute: tombstones name the archive files, which the agent opens from its own working directory.
    dataDir: resolve(io.cwd, flags.dataDir ?? '.barometer'),
    proxy: {
      mode: flags.observe ? 'observe' : 'act',
      ...(flags.anthropicUpstream ? { anthropicUpstream: flags.anthropicUpstream } : {}),
      ...(flags.openaiUpstream ? { openaiUpstream: flags.openaiUpstream } : {}),
      ...(flags.chatgptUpstream ? { chatgptUpstream: flags.chatgptUpstream } : {}),
    },
  };
  if (flags.host !== undefined) raw.host = flags.host;
  const options = parseWith(ServerOptionsSchema, raw);
  if (!options.ok) throw new UsageError(`invalid proxy options:\n${issuesText(options.issues)}`);
  return options.value;
}

function portOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 65535)
    throw new UsageError(`--port must be a port from 0 to 65535; got ${JSON.stringify(text)}`);
  return Number(text);
}

/** Whether a barometer proxy already answers at `url` (its /openapi.json lists the Messages route). */
async function proxyAt(url: string): Promise<boolean> {
  try {
    const answer = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(1000) });
    if (!answer.ok) return false;
    const document = (await answer.json()) as { paths?: Record<string, unknown> };
    return document.paths?.['/v1/messages'] !== undefined && document.paths['/v1/responses'] !== undefined;
  } catch {
    return false;
  }
}

/** The command line that points an agent at the proxy at `url`, the user's own arguments after it. */
export function agentCommand(
  agent: 'claude' | 'codex',
  url: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): { command: string; args: string[]; env: Record<string, string> } {
  if (agent === 'claude') return { command: 'claude', args: [...args], env: { ANTHROPIC_BASE_URL: url } };
  // Codex ignores OPENAI_BASE_URL: a model-provider override names the proxy; the user's model stays theirs. An
  // API key in OPENAI_API_KEY is sent as it is; otherwise Codex's own login is used (requires_openai_auth): an API
  // key it keeps, or a ChatGPT login, whose requests the proxy sends to the ChatGPT backend.
  const auth = env.OPENAI_API_KEY ? 'env_key="OPENAI_API_KEY"' : 'requires_openai_auth=true';
  const provider = `model_providers.barometer={name="barometer",base_url="${url}/v1",${auth},wire_api="responses",supports_websockets=false}`;
  return { command: 'codex', args: ['-c', 'model_provider=barometer', '-c', provider, ...args], env: {} };
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
      '\nPoint an agent at it: ANTHROPIC_BASE_URL=http://127.0.0.1:8797 claude, or barometer wrap claude|codex. Keys pass through, never stored.',
    )
    .action(async (flags: ProxyFlags) => {
      const options = serverOptions(flags, io, portOf(flags.port, DEFAULT_PORT));
      const config = await proxyConfig(flags, io);
      const server = await startListening(() =>
        startServer(options, { handleSignals: true, ...(config ? { config } : {}) }),
      );
      io.stdout.write(
        `barometer proxy listening on ${server.url} (${options.proxy?.mode ?? 'act'}; dashboard ${server.url}/): ANTHROPIC_BASE_URL=${server.url}, OpenAI base URL ${server.url}/v1\n`,
      );
    });

  withProxyFlags(
    program
      .command('wrap')
      .description(
        'Run Claude Code or Codex through a barometer proxy (one already listening, or one of its own)',
      )
      .argument('<agent>', 'claude or codex')
      .argument('[args...]', "the agent's own arguments, passed as they are")
      .option(
        '--port <port>',
        `the proxy to reuse or start (default ${DEFAULT_PORT}; taken by another program: a free one)`,
      )
      .allowUnknownOption(true)
      .passThroughOptions(true),
  ).action(async (agent: string, args: string[], flags: ProxyFlags) => {
    if (agent !== 'claude' && agent !== 'codex')
      throw new UsageError(`wrap runs claude or codex; got ${JSON.stringify(agent)}`);
    const port = portOf(flags.port, DEFAULT_PORT);
    const host = flags.host ?? DEFAULT_HOST;
    let server: RunningServer | undefined;
    let url = `http://${host}:${port}`;
    if (port === 0 || !(await proxyAt(url))) {
      const options = serverOptions(flags, io, port);
      const config = await proxyConfig(flags, io);
      const dependencies = config ? { config } : {};
      try {
        server = await startServer(options, dependencies);
      } catch {
        // The port is taken by something that is not a barometer proxy: a free one instead.
        server = await startServer({ ...options, port: 0 }, dependencies);
      }
      url = server.url;
    }
    io.stderr.write(`barometer: ${agent} through ${url} (dashboard ${url}/)\n`);
    const command = agentCommand(agent, url, args, io.env);
    const code = await new Promise<number>((done) => {
      const child = spawn(command.command, command.args, {
        cwd: io.cwd,
        env: { ...io.env, ...command.env },
        stdio: 'inherit',
      });
      child.on('error', (error) => {
        io.stderr.write(`barometer: could not run ${command.command}: ${error.message}\n`);
        done(127);
      });
      child.on('exit', (exitCode, signal) =>
        done(exitCode ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)),
      );
    });
    await server?.close();
    io.stderr.write(
      `barometer: ${agent} exited ${code}; sessions on the dashboard at ${url}/ while a proxy runs there\n`,
    );
    // The agent's exit code is the command's (main.ts leaves it as set).
    process.exitCode = code;
  });
}
