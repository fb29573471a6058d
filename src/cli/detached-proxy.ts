import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BarometerError } from '../errors/barometer-error.js';
import { ensureOwnerOnlyFolder, OWNER_ONLY_FILE_MODE } from '../store/owner-only.js';
import { readServiceFile, type ServiceRecord } from '../store/service-file.js';
import { barometerAt } from './running-service.js';

/** The log file of the service `wrap` and `proxy` run, in the data folder. */
export function proxyLogFile(dataDir: string): string {
  return join(dataDir, 'logs', 'proxy.log');
}

export interface DetachedProxyOptions {
  dataDir: string;
  /** `barometer proxy`'s own flags besides `--data-dir` (port, host, upstreams, log level). */
  args: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** How long to wait for it to answer. @default 30000 */
  timeoutMs?: number;
}

/** The last lines of a log file, for the message of a service that did not start. */
function tail(path: string, lines = 8): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts `barometer proxy` as a process of its own that outlives this one (detached, unreferenced, its output
 * appended to `<dataDir>/logs/proxy.log`, nothing inherited from the agent's terminal), and resolves with its
 * service record once its URL answers as barometer.
 * @throws BarometerError BR_ERR_UNAVAILABLE when it exits first or does not answer in time, with its log's end.
 */
export async function startDetachedProxy(options: DetachedProxyOptions): Promise<ServiceRecord> {
  const log = proxyLogFile(options.dataDir);
  ensureOwnerOnlyFolder(join(options.dataDir, 'logs'));
  const output = openSync(log, 'a', OWNER_ONLY_FILE_MODE);
  let exited: string | undefined;
  let pid: number | undefined;
  try {
    // This very program, run as it was run (node, its loader flags, the CLI's entry), in the data folder: the
    // service holds no folder of the user's project.
    const child = spawn(
      process.execPath,
      [
        ...process.execArgv,
        process.argv[1] as string,
        'proxy',
        '--data-dir',
        options.dataDir,
        ...options.args,
      ],
      {
        cwd: options.dataDir,
        env: options.env as NodeJS.ProcessEnv,
        detached: true,
        stdio: ['ignore', output, output],
        windowsHide: true,
      },
    );
    child.on('error', (error) => (exited = error.message));
    child.on('exit', (code, signal) => (exited ??= `exited with ${code ?? signal}`));
    child.unref();
    pid = child.pid;
  } finally {
    closeSync(output);
  }
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (exited === undefined && Date.now() < deadline) {
    const record = readServiceFile(options.dataDir);
    if (record !== undefined && record.pid === pid && (await barometerAt(record.url)) !== undefined)
      return record;
    await sleep(50);
  }
  // One that never answered is not left running behind the user's back.
  if (exited === undefined && pid !== undefined) {
    try {
      process.kill(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  const why = exited ?? `did not answer within ${Math.round((options.timeoutMs ?? 30_000) / 1000)} s`;
  const end = tail(log);
  throw new BarometerError(
    'BR_ERR_UNAVAILABLE',
    `could not start the barometer service: barometer proxy ${why} (its log: ${log})${end ? `\n${end}` : ''}`,
  );
}
