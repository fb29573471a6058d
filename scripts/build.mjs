/**
 * barometer's build. `npm run build` (and `prepack`, before `npm pack` and `npm publish`) builds everything anew;
 * with `--if-stale` (`npm start`, and npm's `prepare`, which runs on `npm install` in a clone and on a git install)
 * it builds only the parts whose output is missing or older than one of its inputs, so that a second
 * `npm start` starts the service at once.
 *
 * `--check` builds nothing and exits 1 when a part is stale. `npm start` is scripts/start.mjs, which imports `build`.
 *
 * Plain JavaScript, run by plain Node: the check must cost nothing when there is nothing to build, and must run
 * before anything is installed to check it with.
 *
 * Each part writes a stamp into its output folder when it has built, with the time its build began: an input
 * changed while it built is newer than the stamp, so the next start builds again. A folder's own time is an
 * input too, so that deleting or renaming a source file rebuilds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const STAMP = '.build-stamp';
const PACKAGE_FILES = ['package.json', 'package-lock.json', 'scripts/build.mjs'];

/** Sources of the package, without the tests and their fixtures (which the build does not emit). */
const isSource = (path) => !/\.test\.ts$|\/(test-helpers|fixtures)(\/|$)/.test(path);

/**
 * @typedef {object} Part
 * @property {string} name
 * @property {string} output the folder the part builds (its stamp is in it)
 * @property {string[]} inputs files and folders (walked) it is built from
 * @property {(path: string) => boolean} [include] which walked paths count
 * @property {() => void} build
 */

/** @type {Part[]} */
const PARTS = [
  {
    name: 'library (dist)',
    output: 'dist',
    inputs: [
      'src',
      'tsconfig.json',
      'tsconfig.build.json',
      'scripts/bundle-lean-entries.ts',
      'scripts/bundle-vendored.ts',
      ...PACKAGE_FILES,
    ],
    include: isSource,
    build() {
      // Anew, so that nothing of an older build (a renamed module, a test fixture) is left to be packed.
      rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
      run([devTool('typescript', 'bin/tsc'), '-p', 'tsconfig.build.json']);
      run(['--import', 'tsx', 'scripts/bundle-lean-entries.ts']);
      run(['--import', 'tsx', 'scripts/bundle-vendored.ts']);
    },
  },
  {
    name: 'dashboard (web/dist)',
    output: 'web/dist',
    // The dashboard imports from src too (types, and the CLI's pressure formatter).
    inputs: ['web', 'src', ...PACKAGE_FILES],
    include: (path) => isSource(path) && !path.startsWith('web/dist'),
    build() {
      run([devTool('vite', 'bin/vite.js'), 'build', '--config', 'web/vite.config.ts']);
    },
  },
];

/** The devDependencies the build runs: `npm ci --omit=dev` leaves them out. */
const BUILD_TOOLS = ['typescript', 'tsx', 'esbuild', 'vite'];
const requireFromRoot = createRequire(join(ROOT, 'package.json'));

/** The path of a build tool's file. */
function devTool(name, file) {
  return join(dirname(requireFromRoot.resolve(`${name}/package.json`)), file);
}

/** Exits with what to do when a build tool is not installed. */
function checkBuildTools() {
  const missing = BUILD_TOOLS.filter((name) => {
    try {
      requireFromRoot.resolve(`${name}/package.json`);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return;
  console.error(
    `barometer's build needs its devDependencies (${missing.join(', ')} not installed): run \`npm ci\` in ${ROOT} first.`,
  );
  process.exit(1);
}

/** Runs Node with these arguments in the repository, its output shown; exits if it fails. */
function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build failed: node ${args.join(' ')} exited with ${result.status ?? result.signal}`);
    process.exit(result.status ?? 1);
  }
}

/** The newest input of a part (the path and its modification time), folders included. */
function newestInput(part) {
  let newest = { path: '', time: 0 };
  const consider = (path) => {
    const time = statSync(join(ROOT, path)).mtimeMs;
    if (time > newest.time) newest = { path, time };
  };
  for (const input of part.inputs) {
    if (!existsSync(join(ROOT, input))) continue;
    consider(input);
    if (!statSync(join(ROOT, input)).isDirectory()) continue;
    for (const entry of readdirSync(join(ROOT, input), { recursive: true, withFileTypes: true })) {
      const path = relative(ROOT, join(entry.parentPath, entry.name));
      if (!part.include || part.include(path)) consider(path);
    }
  }
  return newest;
}

/** Why a part must be built, or undefined when its output is newer than every input. */
function staleness(part) {
  const stamp = join(ROOT, part.output, STAMP);
  if (!existsSync(stamp)) return `${part.output} has not been built`;
  const newest = newestInput(part);
  return newest.time > statSync(stamp).mtimeMs ? `${newest.path} changed since` : undefined;
}

/**
 * Builds every part, or with `onlyStale` the parts that are stale, or only the part whose output folder is `only`
 * (`--only web/dist`); exits the process if a build step fails.
 * In an installed copy of the package (a build and no sources) there is nothing to build.
 */
export function build({ onlyStale, only }) {
  if (onlyStale && !existsSync(join(ROOT, 'src'))) return;
  const parts = only === undefined ? PARTS : PARTS.filter((part) => part.output === only);
  if (parts.length === 0) {
    console.error(
      `build: no part builds ${only} (the parts: ${PARTS.map((part) => part.output).join(', ')})`,
    );
    process.exit(2);
  }
  for (const part of parts) {
    const reason = onlyStale ? staleness(part) : 'npm run build builds everything';
    if (!reason) {
      console.log(`build: ${part.name} is up to date`);
      continue;
    }
    console.log(`build: ${part.name} (${reason})`);
    checkBuildTools();
    const began = new Date();
    part.build();
    const stamp = join(ROOT, part.output, STAMP);
    writeFileSync(stamp, `built ${began.toISOString()}\n`);
    utimesSync(stamp, began, began);
  }
}

/** What is stale, each part with its reason (none in an installed copy of the package). */
export function staleParts() {
  if (!existsSync(join(ROOT, 'src'))) return [];
  return PARTS.map((part) => ({ name: part.name, reason: staleness(part) })).filter((part) => part.reason);
}

// Run as a script (not imported by scripts/start.mjs).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--check')) {
    // Builds nothing: says what is stale and exits 1 if anything is (the package test packs the build as it is).
    const stale = staleParts();
    for (const part of stale) console.log(`build: ${part.name} is stale (${part.reason})`);
    process.exit(stale.length === 0 ? 0 : 1);
  }
  const only = process.argv.indexOf('--only');
  build({
    onlyStale: process.argv.includes('--if-stale'),
    only: only === -1 ? undefined : process.argv[only + 1],
  });
}
