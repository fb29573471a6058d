import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The suite's guard against tests that write into the repository (CONVENTIONS: tests write only under
 * os.tmpdir()): vitest's global setup takes a snapshot of the repository root before any test runs and compares it
 * after the last one. A test that starts a service or a command without a data dir of its own leaves barometer's
 * default data dir, `.barometer/`, in the working directory (the repository root): that, or any other new entry
 * at the root, fails the run.
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

/** The paths created or modified between two snapshots. */
export function writesBetween(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].filter(([path, modified]) => before.get(path) !== modified).map(([path]) => path);
}

export default function setup(): () => void {
  const before = repositorySnapshot(ROOT);
  return () => {
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
