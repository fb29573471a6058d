import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createEmptyProject,
  diskUsage,
  installedPackages,
  npmInstall,
  packageSizes,
  packBarometer,
  REPO_ROOT,
} from '../src/test-helpers/packed-install.js';

export interface InstallFigures {
  tarballBytes: number;
  unpackedBytes: number;
  files: number;
  packages: number;
  diskBytes: number;
  installSeconds: number;
  /** The heaviest packages of the install, on disk. */
  heaviest: Array<{ name: string; bytes: number }>;
  /** The baseline: barometer's runtime dependencies installed alone, at the versions package.json pins. */
  dependenciesPackages: number;
  dependenciesDiskBytes: number;
  /** npm's warnings during the install of the tarball (EBADENGINE and the like). */
  warnings: string[];
}

/**
 * What a user gets from `npm install barometer`: the package packed as `npm publish` would (built first if
 * stale), installed into an empty `npm init -y` project from its tarball, against its dependencies alone.
 * The npm registry must be reachable (packages come from npm's cache when they are in it).
 */
export async function benchInstall(): Promise<InstallFigures> {
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the build failed');
  const scratch = await mkdtemp(join(tmpdir(), 'barometer-bench-install-'));
  try {
    const packed = await packBarometer(scratch);

    const project = join(scratch, 'project');
    await mkdir(project);
    await createEmptyProject(project);
    const started = performance.now();
    const install = await npmInstall(project, [packed.tarball]);
    const installSeconds = (performance.now() - started) / 1000;
    if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);

    const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const alone = join(scratch, 'dependencies');
    await mkdir(alone);
    await createEmptyProject(alone);
    const dependencies = await npmInstall(
      alone,
      Object.entries(manifest.dependencies).map(([name, version]) => `${name}@${version}`),
    );
    if (dependencies.code !== 0)
      throw new Error(`npm install of the dependencies failed:\n${dependencies.stderr}`);

    return {
      tarballBytes: packed.size,
      unpackedBytes: packed.unpackedSize,
      files: packed.files.length,
      packages: installedPackages(project),
      diskBytes: diskUsage(join(project, 'node_modules')),
      installSeconds,
      heaviest: packageSizes(project).slice(0, 8),
      dependenciesPackages: installedPackages(alone),
      dependenciesDiskBytes: diskUsage(join(alone, 'node_modules')),
      warnings: `${install.stdout}${install.stderr}`.split('\n').filter((line) => /^npm warn/i.test(line)),
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
