import { dirname, resolve } from 'node:path';
import pino from 'pino';
import { ensureOwnerOnlyFolder, OWNER_ONLY_FILE_MODE } from '../store/owner-only.js';

/**
 * The destination of a service's log lines when they go to a file (`logFile`): appended, created owner-only (a
 * failure's message may name the agent's files), its folder made 0700 when missing. Written synchronously: the
 * proxy logs warnings only, and none is lost when the process exits.
 */
export function logFileDestination(path: string): pino.DestinationStream {
  const file = resolve(path);
  ensureOwnerOnlyFolder(dirname(file));
  return pino.destination({ dest: file, append: true, mode: OWNER_ONLY_FILE_MODE, sync: true });
}
