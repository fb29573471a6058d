import { mkdirSync } from 'node:fs';

/**
 * The mode of every folder barometer creates for its data: archives hold copies of what an agent read (`.env` files
 * included), so nobody but the user may list or read them. The XDG Base Directory Specification asks for the same
 * mode when it creates a missing destination folder, and for the mode of an existing one to be left alone.
 */
export const OWNER_ONLY_FOLDER_MODE = 0o700;
/** The mode of every file barometer writes into its data folder: archives, sessions, proxy state, logs, locks. */
export const OWNER_ONLY_FILE_MODE = 0o600;

/**
 * Creates `path` and any missing parent with mode 0700; an existing folder keeps its mode (the user chose it).
 * @returns `path`
 * @example ensureOwnerOnlyFolder(join(dataDir, 'logs'));
 */
export function ensureOwnerOnlyFolder(path: string): string {
  mkdirSync(path, { recursive: true, mode: OWNER_ONLY_FOLDER_MODE });
  return path;
}
