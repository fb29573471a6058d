import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { homeOf, stateFolder } from './state-folder.js';

/** The data folder an earlier version made in the working directory by default. */
export const LEGACY_DATA_FOLDER = '.barometer';
/** The environment variable that chooses the data folder (the `--data-dir` flag wins over it). */
export const DATA_FOLDER_VARIABLE = 'BAROMETER_DATA_DIR';

/** What chose a data folder. */
export type DataFolderSource = '--data-dir' | typeof DATA_FOLDER_VARIABLE | 'legacy' | 'default';

export interface DataFolder {
  /** Absolute path of the folder. */
  path: string;
  source: DataFolderSource;
  /** The user's state folder: the default when neither the flag, the variable nor a legacy folder chose. */
  stateFolder: string;
}

export interface DataFolderInputs {
  /** `--data-dir`, relative to `cwd`. */
  flag?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** @default process.platform */
  platform?: NodeJS.Platform;
  /** Use a legacy `./.barometer` in `cwd` (false: a surface that only caches for itself writes nothing there). @default true */
  legacy?: boolean;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The data folder of every surface (wrap, proxy, serve, watch, report, compact, archive, hook, statusline, mcp):
 * `--data-dir`, else `$BAROMETER_DATA_DIR` (both relative to `cwd`), else a `./.barometer` an earlier version left in
 * `cwd` (kept in use: {@link legacyNotice} says where the default is now), else the user's state folder.
 */
export function resolveDataFolder(inputs: DataFolderInputs): DataFolder {
  const platform = inputs.platform ?? process.platform;
  const state = stateFolder({ platform, env: inputs.env, home: homeOf(inputs.env, platform) });
  const chosen = (path: string, source: DataFolderSource): DataFolder => ({
    path: resolve(inputs.cwd, path),
    source,
    stateFolder: state,
  });
  if (inputs.flag !== undefined && inputs.flag !== '') return chosen(inputs.flag, '--data-dir');
  const variable = inputs.env[DATA_FOLDER_VARIABLE]?.trim();
  if (variable) return chosen(variable, DATA_FOLDER_VARIABLE);
  const legacy = join(inputs.cwd, LEGACY_DATA_FOLDER);
  if (inputs.legacy !== false && isFolder(legacy)) return chosen(legacy, 'legacy');
  return chosen(state, 'default');
}

/**
 * The one line that says a legacy `./.barometer` is in use, where the default is now and how to move, e.g.
 * `barometer: using /work/app/.barometer, left by an earlier version; the default data folder is now
 * /home/ada/.local/state/barometer (to move: stop barometer, then mkdir -p … && mv …; or keep this one …)`.
 */
export function legacyNotice(folder: DataFolder): string {
  const quote = (path: string) => `'${path.replaceAll("'", "'\\''")}'`;
  const move = isFolder(folder.stateFolder)
    ? `it exists already: move what you want to keep from ${quote(folder.path)} into it, then remove ${quote(folder.path)}`
    : `to move: stop barometer, then mkdir -p ${quote(dirname(folder.stateFolder))} && mv ${quote(folder.path)} ${quote(folder.stateFolder)}`;
  return `barometer: using ${folder.path}, left by an earlier version; the default data folder is now ${folder.stateFolder} (${move}; or keep this one with --data-dir or ${DATA_FOLDER_VARIABLE})`;
}
