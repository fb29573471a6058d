import { open, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FileLockOptions {
  /** How long to wait for another holder before running anyway (a hook never blocks its agent). @default 2000 */
  waitMs?: number;
  /** A lock older than this was left by a process that died: it is taken over. @default 10000 */
  staleMs?: number;
  /** @default 15 */
  pollMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` while holding a lock file (created exclusively, removed after), so that processes started at the same
 * moment (one hook per parallel tool call) take turns. A lock held past `waitMs` is not waited for any longer.
 */
export async function withFileLock<T>(
  path: string,
  work: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const waitMs = options.waitMs ?? 2000;
  const staleMs = options.staleMs ?? 10_000;
  const pollMs = options.pollMs ?? 15;
  const deadline = Date.now() + waitMs;
  let held = false;
  for (;;) {
    try {
      await (await open(path, 'wx')).close();
      held = true;
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') break;
      try {
        if (Date.now() - (await stat(path)).mtimeMs > staleMs) {
          await unlink(path).catch(() => undefined);
          continue;
        }
      } catch {
        continue;
      }
      if (Date.now() >= deadline) break;
      await sleep(pollMs);
    }
  }
  try {
    return await work();
  } finally {
    if (held) await unlink(path).catch(() => undefined);
  }
}

/** A short, stable tag of a string (a service URL), for a file name. */
function tag(text: string): string {
  let hash = 5381;
  for (let index = 0; index < text.length; index++) hash = ((hash * 33) ^ text.charCodeAt(index)) >>> 0;
  return hash.toString(36);
}

/**
 * Runs `work` holding the lock of one live session of one service: the hooks of an agent (one process per event)
 * and `barometer watch` on the same log take turns at reading the session's state and posting a call, so that a call
 * is never counted twice. The lock files live in the temporary folder.
 */
export function withSessionLock<T>(
  serviceUrl: string,
  sessionId: string,
  work: () => Promise<T>,
  options: FileLockOptions & { directory?: string } = {},
): Promise<T> {
  const path = join(
    options.directory ?? tmpdir(),
    `barometer-session-${tag(serviceUrl.replace(/\/+$/, ''))}-${sessionId}.lock`,
  );
  return withFileLock(path, work, options);
}
