import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository (two levels above src/test-helpers). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a child npm or node: this process's, without the `npm_*` variables an enclosing `npm test`
 * or `npm run bench` sets (npm_config_local_prefix and the like would make the child npm act on the repository).
 */
export function cleanEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const environment = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'),
  );
  return { ...environment, NO_COLOR: '1', ...extra };
}

/** Runs a command to its end, its output collected; rejects only if it cannot start or outlives the timeout. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs?: number; env?: Record<string, string> },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: cleanEnvironment(options.env),
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${command} ${args.join(' ')} did not end within ${options.timeoutMs} ms:\n${stdout}${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface PackedPackage {
  tarball: string;
  /** Bytes of the .tgz. */
  size: number;
  unpackedSize: number;
  /** Paths inside the package. */
  files: string[];
}

/**
 * `npm pack` of the repository as it is built (`--ignore-scripts`: prepack would rebuild it from scratch; build
 * first with `npm run build`, or `node scripts/build.mjs --if-stale`).
 */
export async function packBarometer(destination: string): Promise<PackedPackage> {
  const result = await runCommand(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', destination],
    {
      cwd: REPO_ROOT,
    },
  );
  if (result.code !== 0) throw new Error(`npm pack failed (${result.code}):\n${result.stderr}`);
  const [packed] = JSON.parse(result.stdout) as Array<{
    filename: string;
    size: number;
    unpackedSize: number;
    files: Array<{ path: string }>;
  }>;
  return {
    tarball: join(destination, packed!.filename),
    size: packed!.size,
    unpackedSize: packed!.unpackedSize,
    files: packed!.files.map((file) => file.path),
  };
}

/** An empty project as `npm init -y` makes it (CommonJS: no `type` field). */
export async function createEmptyProject(folder: string): Promise<void> {
  const result = await runCommand('npm', ['init', '-y'], { cwd: folder });
  if (result.code !== 0) throw new Error(`npm init -y failed (${result.code}):\n${result.stderr}`);
}

/** `npm install --no-audit --no-fund` of these specifiers (a tarball path, name@version) into a project. */
export function npmInstall(project: string, specifiers: readonly string[]): Promise<CommandResult> {
  return runCommand('npm', ['install', '--no-audit', '--no-fund', ...specifiers], {
    cwd: project,
    timeoutMs: 300_000,
  });
}

/** How many packages a project's node_modules holds (npm's own record of what it installed). */
export function installedPackages(project: string): number {
  const lock = JSON.parse(readFileSync(join(project, 'node_modules/.package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages).filter((path) => path.startsWith('node_modules/')).length;
}

/** Bytes a folder takes on disk, as `du` counts them (allocated blocks); nested node_modules left out if asked. */
export function diskUsage(folder: string, withNestedModules = true): number {
  let bytes = statSync(folder).blocks * 512;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (withNestedModules || entry.name !== 'node_modules') bytes += diskUsage(path, withNestedModules);
    } else bytes += statSync(path).blocks * 512;
  }
  return bytes;
}

/** Each installed package's bytes on disk (its own files, not its nested node_modules), heaviest first. */
export function packageSizes(project: string): Array<{ name: string; bytes: number }> {
  const lock = JSON.parse(readFileSync(join(project, 'node_modules/.package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages)
    .filter((path) => path.startsWith('node_modules/'))
    .map((path) => ({
      name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
      bytes: diskUsage(join(project, path), false),
    }))
    .sort((a, b) => b.bytes - a.bytes);
}
