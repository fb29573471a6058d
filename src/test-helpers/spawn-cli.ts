import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
/** tsx resolved from the repository: `--import tsx` would resolve it from the working directory, a temporary one. */
const TSX = createRequire(import.meta.url).resolve('tsx');
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));

let workingDirectory: string | undefined;

/**
 * An empty folder under os.tmpdir() for the commands of this test process to run in, removed when it exits: a
 * command's relative defaults (`serve`'s and `watch`'s data dir `.barometer`, `compact`'s archive dir) land there,
 * never in the repository.
 */
function cliWorkingDirectory(): string {
  if (workingDirectory === undefined) {
    const created = mkdtempSync(join(tmpdir(), 'barometer-cli-cwd-'));
    process.once('exit', () => rmSync(created, { recursive: true, force: true }));
    workingDirectory = created;
  }
  return workingDirectory;
}

/**
 * Runs the CLI from source in a child process (node --import tsx), as a user's shell would, in a temporary
 * working directory (or `options.cwd`, a folder the test made): give files by absolute path.
 */
export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string } = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', TSX, CLI, ...args], {
    cwd: options.cwd ?? cliWorkingDirectory(),
    // tsx reads the tsconfig of the working directory unless told where it is.
    env: { ...process.env, NO_COLOR: '1', TSX_TSCONFIG_PATH: TSCONFIG, ...env },
    stdio: 'pipe',
  });
}

/** Starts `barometer serve` on a free port and resolves with its URL once it prints it. */
export async function startServeProcess(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcessWithoutNullStreams; url: string; output: () => string }> {
  const child = spawnCli(['serve', '--port', '0', '--log-level', 'warn', ...args], env);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+?) /.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${output}`));
    });
  });
  return { child, url, output: () => output };
}

/** Resolves with the exit code (or signal) of a child. */
export function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | NodeJS.Signals | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
}
