import type { Command } from 'commander';
import {
  DEFAULT_ANTHROPIC_UPSTREAM,
  DEFAULT_CHATGPT_UPSTREAM,
  DEFAULT_OPENAI_UPSTREAM,
} from '../proxy/proxy-options.js';
import { DEFAULT_HOST } from '../server/options.js';
import { DATA_FOLDER_VARIABLE } from '../store/data-folder.js';
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
  logLevel?: string;
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
      '--log-level <level>',
      'fatal|error|warn|info|debug|trace|silent, written to <data folder>/logs/proxy.log (default warn)',
    );
}

export function portOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 65535)
    throw new UsageError(`--port must be a port from 0 to 65535; got ${JSON.stringify(text)}`);
  return Number(text);
}
