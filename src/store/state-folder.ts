import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/** The folder barometer keeps under the platform's per-user state folder. */
export const STATE_FOLDER_NAME = 'barometer';

/** What the state folder depends on: the platform, the environment and the user's home folder. */
export interface StateFolderInputs {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
}

/** A variable that names an absolute folder, else undefined (unset, empty, or relative). */
function absolute(value: string | undefined, isAbsolute: (path: string) => boolean): string | undefined {
  return value !== undefined && value !== '' && isAbsolute(value) ? value : undefined;
}

/**
 * The user's own barometer state folder (docs/rules.md, "Where barometer keeps its data"):
 * - Linux and other Unix: `$XDG_STATE_HOME/barometer`, else `$HOME/.local/state/barometer` (the XDG Base Directory
 *   Specification: an unset, empty or relative `XDG_STATE_HOME` is ignored);
 * - macOS: `~/Library/Application Support/barometer` (Apple's File System Programming Guide);
 * - Windows: `%LOCALAPPDATA%\barometer`, else `<home>\AppData\Local\barometer` (the default path of
 *   FOLDERID_LocalAppData, Microsoft's KNOWNFOLDERID reference).
 * Pure: the caller passes the platform, the environment and the home folder.
 * @example stateFolder({ platform: 'linux', env: {}, home: '/home/ada' }); // '/home/ada/.local/state/barometer'
 */
export function stateFolder({ platform, env, home }: StateFolderInputs): string {
  if (platform === 'win32') {
    const local = absolute(env.LOCALAPPDATA, win32.isAbsolute) ?? win32.join(home, 'AppData', 'Local');
    return win32.join(local, STATE_FOLDER_NAME);
  }
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', STATE_FOLDER_NAME);
  const state = absolute(env.XDG_STATE_HOME, posix.isAbsolute) ?? posix.join(home, '.local', 'state');
  return posix.join(state, STATE_FOLDER_NAME);
}

/** The home folder an environment names (`HOME`; `USERPROFILE` on Windows), else the operating system's. */
export function homeOf(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): string {
  const named = platform === 'win32' ? env.USERPROFILE : env.HOME;
  return named !== undefined && named !== '' ? named : homedir();
}

/**
 * This process's state folder: {@link stateFolder} of `process.platform`, the environment given (the process's by
 * default) and its home folder.
 */
export function defaultStateFolder(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return stateFolder({ platform: process.platform, env, home: homeOf(env) });
}
