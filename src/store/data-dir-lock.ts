import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { BarometerError } from '../errors/barometer-error.js';
import { ensureOwnerOnlyFolder, OWNER_ONLY_FILE_MODE } from './owner-only.js';

/** The lock's file name in a data dir. */
export const LOCK_FILE = 'barometer.lock';

/** Who holds a data dir: written as JSON into its lock file. */
export interface LockHolder {
  pid: number;
  /** When the holder process started, ISO 8601. */
  startedAt: string;
  hostname: string;
  /** The holder's command line, for the message a second process prints. */
  command: string;
}

/** Whether a process with this pid runs on this machine (EPERM: it does, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    return typeof holder.pid === 'number' && Number.isInteger(holder.pid) && holder.pid > 0
      ? (holder as LockHolder)
      : undefined;
  } catch {
    return undefined;
  }
}

export interface DataDirLock {
  readonly path: string;
  /** The holder it replaced, when the lock was stale (its process gone). */
  readonly tookOverFrom: LockHolder | undefined;
  /** Removes the lock file (once); later calls do nothing. */
  release(): void;
}

/**
 * Takes the data dir for this process: one writer per directory, or two processes would overwrite each other's
 * session files (issue 29, F5: 30 of 35 answered updates lost, timelines interleaved). The lock is a file created
 * exclusively (`O_EXCL`) holding the holder's pid, start time, host and command. A lock whose pid no longer runs on
 * this host is stale (the holder was killed) and is taken over, and `tookOverFrom` says whose it was. A lock held
 * by this very process is shared (a process may open the same dir twice, as tests do).
 * @throws BarometerError BR_ERR_DATA_DIR_LOCKED naming the holder (`details.holder`)
 */
export function lockDataDir(directory: string): DataDirLock {
  ensureOwnerOnlyFolder(directory);
  const path = join(directory, LOCK_FILE);
  const me: LockHolder = {
    pid: process.pid,
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    hostname: hostname(),
    command: process.argv.slice(1).join(' '),
  };
  let tookOverFrom: LockHolder | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    let descriptor: number;
    try {
      descriptor = openSync(path, 'wx', OWNER_ONLY_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(path);
      if (holder?.pid === process.pid && holder.hostname === me.hostname) return shared(path);
      if (holder && (holder.hostname !== me.hostname || alive(holder.pid))) {
        throw new BarometerError(
          'BR_ERR_DATA_DIR_LOCKED',
          `The data dir ${directory} is in use by process ${holder.pid} on ${holder.hostname} (${holder.command || 'barometer'}, started ${holder.startedAt}): one process writes a data dir at a time. Stop it (barometer stop, for a service), send your requests to it (barometer watch --server, --server), or choose another --data-dir. If that process is gone, remove ${path}`,
          { details: { holder, lockFile: path } },
        );
      }
      // Stale (its process is gone) or unreadable (a holder killed while writing it): taken over.
      tookOverFrom = holder ?? { pid: 0, startedAt: '', hostname: me.hostname, command: '(unreadable lock)' };
      try {
        unlinkSync(path);
      } catch (unlinkError) {
        if ((unlinkError as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkError;
      }
      continue;
    }
    writeSync(descriptor, `${JSON.stringify(me)}\n`);
    closeSync(descriptor);
    return owned(path, tookOverFrom);
  }
  throw new BarometerError(
    'BR_ERR_DATA_DIR_LOCKED',
    `The data dir ${directory} is being locked by another process at the same moment; try again`,
    { details: { lockFile: path } },
  );
}

/** How many opens of each lock file this process holds; the file goes with the last release. */
const holds = new Map<string, number>();

function owned(path: string, tookOverFrom: LockHolder | undefined): DataDirLock {
  holds.set(path, 1);
  return handle(path, tookOverFrom);
}

function shared(path: string): DataDirLock {
  holds.set(path, (holds.get(path) ?? 0) + 1);
  return handle(path, undefined);
}

function handle(path: string, tookOverFrom: LockHolder | undefined): DataDirLock {
  let released = false;
  return {
    path,
    tookOverFrom,
    release() {
      if (released) return;
      released = true;
      const left = (holds.get(path) ?? 1) - 1;
      if (left > 0) {
        holds.set(path, left);
        return;
      }
      holds.delete(path);
      // Only our own lock is removed: one taken over meanwhile (this process was thought gone) is another's.
      if (readHolder(path)?.pid !== process.pid) return;
      try {
        unlinkSync(path);
      } catch {
        // Already gone.
      }
    },
  };
}
