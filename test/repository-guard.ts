import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultStateFolder } from '../src/store/state-folder.js';

/**
 * The suite's guard against tests that write into the repository (CONVENTIONS: tests write only under
 * os.tmpdir()): vitest's global setup takes a snapshot of the repository root before any test runs and compares it
 * after the last one. A test that starts a service or a command without a data dir of its own leaves barometer's
 * default data dir, `.barometer/`, in the working directory (the repository root): that, or any other new entry
 * at the root, fails the run. So does a write into the user's real state folder (barometer's default data folder,
 * `~/.local/state/barometer`): the setup points `XDG_STATE_HOME` of every test process at a temporary folder, and
 * each helper that starts the CLI (spawnCli, memoryIo) gives it a temporary `HOME` as well.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** barometer's default data dir, and the one it had before the rename: watched file by file. */
const DATA_DIRS = ['.barometer', '.headroom'];
/** Top-level entries made on purpose, all gitignored: dependencies, the build (`npm test` builds first), e2e screenshots. */
const EXPECTED_OUTPUTS = new Set(['node_modules', 'dist', 'coverage', 'test-artifacts']);

/** Every top-level entry of `root`, and every file and folder of its data dirs, with its modification time. */
export function repositorySnapshot(root: string): Map<string, number> {
  const entries = new Map<string, number>();
  for (const name of readdirSync(root)) if (!EXPECTED_OUTPUTS.has(name)) entries.set(name, 0);
  for (const name of DATA_DIRS) {
    const directory = join(root, name);
    if (!existsSync(directory)) continue;
    entries.set(name, statSync(directory).mtimeMs);
    for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      entries.set(relative(root, path), statSync(path).mtimeMs);
    }
  }
  return entries;
}

/**
 * The state folder's own entries and those one level down (`sessions/`, `archives/<session>/`, …), with their
 * modification times: a file created or removed anywhere in the first two levels changes one of them. Cheap on a
 * folder of many sessions, unlike a walk of every file.
 */
export function stateFolderSnapshot(folder: string): Map<string, number> {
  const entries = new Map<string, number>();
  if (!existsSync(folder)) return entries;
  entries.set('.', statSync(folder).mtimeMs);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    entries.set(entry.name, statSync(path).mtimeMs);
    if (!entry.isDirectory()) continue;
    for (const inner of readdirSync(path))
      entries.set(join(entry.name, inner), statSync(join(path, inner)).mtimeMs);
  }
  return entries;
}

/** The paths created or modified between two snapshots. */
export function writesBetween(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].filter(([path, modified]) => before.get(path) !== modified).map(([path]) => path);
}

export default function setup(): () => void {
  const before = repositorySnapshot(ROOT);
  const realStateFolder = defaultStateFolder(process.env);
  const stateBefore = stateFolderSnapshot(realStateFolder);
  // Every test process (forked after this setup) inherits it: a service or command started in-process with the
  // default data folder writes here, never into the user's own.
  const scratchState = mkdtempSync(join(tmpdir(), 'barometer-test-state-'));
  process.env.XDG_STATE_HOME = scratchState;
  return () => {
    rmSync(scratchState, { recursive: true, force: true });
    const stateWrites = writesBetween(stateBefore, stateFolderSnapshot(realStateFolder));
    if (stateWrites.length > 0) {
      console.error(
        `\nTests wrote into the real state folder ${realStateFolder}: ${stateWrites.join(', ')}.\n` +
          'Give a test its own HOME and XDG_STATE_HOME (spawnCli and memoryIo do), or a data dir of its own.\n',
      );
      process.exitCode = 1;
    }
    const writes = writesBetween(before, repositorySnapshot(ROOT));
    if (writes.length === 0) return;
    console.error(
      `\nTests wrote into the repository root: ${writes.join(', ')}.\n` +
        'Every test must write only under os.tmpdir(): give a service or command a data dir of its own ' +
        '(dataDir, --data-dir, --archive-dir), or run the command in a temporary folder (spawnCli does).\n',
    );
    // A teardown that throws is only logged by vitest (the run still exits 0): fail the run through its exit code.
    process.exitCode = 1;
  };
}
