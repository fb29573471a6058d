import { join } from 'node:path';
import { type DataFolder, legacyNotice, resolveDataFolder } from '../store/data-folder.js';
import type { CliIo } from './io.js';

/** Whether this process has said that it uses a legacy `./.barometer` (said once, whatever the command). */
let legacySaid = false;

/**
 * The data folder of a command ({@link resolveDataFolder}: `--data-dir`, `BAROMETER_DATA_DIR`, a legacy
 * `./.barometer`, the state folder). A legacy folder is said once per process on stderr, unless `quiet`: the hook
 * and the status line print what Claude Code shows, and say nothing of it.
 */
export function dataFolderFor(
  io: CliIo,
  flag: string | undefined,
  options: { quiet?: boolean; legacy?: boolean } = {},
): DataFolder {
  const folder = resolveDataFolder({
    flag,
    env: io.env,
    cwd: io.cwd,
    ...(options.legacy === undefined ? {} : { legacy: options.legacy }),
  });
  if (folder.source === 'legacy' && options.quiet !== true && !legacySaid) {
    legacySaid = true;
    io.stderr.write(`${legacyNotice(folder)}\n`);
  }
  return folder;
}

/** Where the CLI's commands archive what they replace (`compact`) and read archives from (`archive`, `replay`). */
export function archiveDirFor(io: CliIo): string {
  return join(dataFolderFor(io, undefined).path, 'archives');
}
