import { open, stat, unlink } from 'node:fs/promises';

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
