import type { Command } from 'commander';
import {
  DEFAULT_ANTHROPIC_UPSTREAM,
  DEFAULT_CHATGPT_UPSTREAM,
  DEFAULT_OPENAI_UPSTREAM,
  DEFAULT_UPSTREAM_HEADERS_TIMEOUT_SECONDS,
  DEFAULT_UPSTREAM_IDLE_TIMEOUT_SECONDS,
} from '../proxy/proxy-options.js';
import { WINDOW_LEVERS, type WindowLever, WindowPolicySchema } from '../quota/windows/window-lever-names.js';
import { DEFAULT_HOST } from '../server/options.js';
import { DATA_FOLDER_VARIABLE } from '../store/data-folder.js';
import { durationSeconds } from './duration.js';
import { UsageError } from './io.js';

/** Flags shared by `proxy` and `wrap`. */
export interface ProxyFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  anthropicUpstream?: string;
  openaiUpstream?: string;
  chatgptUpstream?: string;
  observe?: boolean;
  upstreamHeadersTimeout?: string;
  upstreamIdleTimeout?: string;
  logLevel?: string;
  config?: string;
  windowPolicy?: string;
}

/** The environment variable of `--window-policy` (the flag wins over it, it over the config file's `window_policy`). */
export const WINDOW_POLICY_VARIABLE = 'BAROMETER_WINDOW_POLICY';

/**
 * The window policy's levers from `--window-policy` or its variable: names separated by commas (`thinking,hold`),
 * `off` for none. @throws UsageError naming the value and the names allowed
 */
export function windowPolicyFrom(text: string, origin: string): WindowLever[] {
  const trimmed = text.trim();
  if (trimmed === 'off' || trimmed === '') return [];
  const levers = trimmed.split(',').map((name) => name.trim());
  const parsed = WindowPolicySchema.safeParse(levers);
  if (!parsed.success)
    throw new UsageError(
      `${origin} must be off or window levers separated by commas, each once, from ${WINDOW_LEVERS.join(', ')}; got ${JSON.stringify(text)}`,
    );
  return parsed.data;
}

/** The help text of `--data-dir`, as every command that keeps data words it. */
export const DATA_DIR_HELP = `the data folder: sessions, archives, logs (env ${DATA_FOLDER_VARIABLE}; default: your state folder, ~/.local/state/barometer on Linux; a ./.barometer left by an earlier version is still used)`;

export function withProxyFlags(command: Command): Command {
  return command
    .option('--host <host>', `address to listen on (default ${DEFAULT_HOST}: this machine only)`)
    .option('--data-dir <dir>', DATA_DIR_HELP)
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
    .option(
      '--upstream-headers-timeout <duration>',
      `longest wait for a provider's answer to start, such as 10m or 90s (default ${DEFAULT_UPSTREAM_HEADERS_TIMEOUT_SECONDS / 60}m)`,
    )
    .option(
      '--upstream-idle-timeout <duration>',
      `longest silence inside a provider's answer before it is cut, such as 5m (default ${DEFAULT_UPSTREAM_IDLE_TIMEOUT_SECONDS / 60}m)`,
    )
    .option(
      '--window-policy <levers>',
      `act on sub-agents while the 5-hour window would run out before its reset: thinking (lower their thinking budget), hold (hold their requests, at most 60 s each), both as thinking,hold, or off (env ${WINDOW_POLICY_VARIABLE}, or window_policy in the config file; default off)`,
    )
    .option(
      '--log-level <level>',
      'fatal|error|warn|info|debug|trace|silent, written to <data folder>/logs/proxy.log (default warn)',
    )
    .option(
      '--config <path>',
      'barometer.config.json/.yaml with model figures and prices (env BAROMETER_CONFIG; default: the one in the working directory, if any)',
    );
}

export function portOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 65535)
    throw new UsageError(`--port must be a port from 0 to 65535; got ${JSON.stringify(text)}`);
  return Number(text);
}

/** A timeout flag's duration as the proxy option `key`, in seconds; nothing when the flag is absent. */
export function timeoutFlag(flag: string, text: string | undefined, key: string): Record<string, number> {
  if (text === undefined) return {};
  const seconds = durationSeconds(text);
  if (seconds === undefined || seconds <= 0)
    throw new UsageError(
      `${flag} must be a duration such as 10m, 90s or a number of seconds; got ${JSON.stringify(text)}`,
    );
  return { [key]: seconds };
}

/** The timeout flags as `barometer proxy` arguments, for a proxy started on the user's behalf (wrap). */
export function timeoutArguments(flags: ProxyFlags): string[] {
  const args: string[] = [];
  if (flags.upstreamHeadersTimeout !== undefined)
    args.push('--upstream-headers-timeout', flags.upstreamHeadersTimeout);
  if (flags.upstreamIdleTimeout !== undefined)
    args.push('--upstream-idle-timeout', flags.upstreamIdleTimeout);
  if (flags.windowPolicy !== undefined) args.push('--window-policy', flags.windowPolicy);
  return args;
}
