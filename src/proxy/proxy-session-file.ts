import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import type { ProxySession } from './proxy-session.js';

/**
 * A session's edits, policy states and observe mark as kept in `<data dir>/proxy/<session>.json`: after a restart
 * the session's next request carries the same tombstones (the cache stays warm), the policy goes on where it was,
 * and a session seen in observe stays observed.
 */
const SavedProxySessionSchema = z.object({
  edits: z.array(
    z.tuple([z.string(), z.object({ result: z.string().optional(), input: z.string().optional() })]),
  ),
  threads: z.array(
    z.tuple([
      z.string(),
      z.object({
        scanned: z.number(),
        completedUpTo: z.number(),
        evictedUpTo: z.number(),
        batches: z.number(),
        completedPlanItems: z.array(z.string()),
      }),
    ]),
  ),
  observed: z.boolean().optional(),
});

/**
 * Reads back into `entry` what an earlier run kept of the session; nothing when it has no file.
 * @throws when the file cannot be read or is not a saved session
 */
export async function readProxySession(file: string, entry: ProxySession): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const saved = SavedProxySessionSchema.parse(JSON.parse(text));
  for (const [callId, edit] of saved.edits) entry.edits.set(callId, edit);
  for (const [thread, state] of saved.threads) entry.threads.set(thread, state);
  if (saved.observed === true) entry.observed = true;
  entry.version++;
  entry.saved = text;
}

/**
 * Writes what the session keeps when it changed (a temporary file, then renamed).
 * @throws when the file cannot be written
 */
export async function writeProxySession(file: string, entry: ProxySession): Promise<void> {
  const text = JSON.stringify({
    edits: [...entry.edits],
    threads: [...entry.threads],
    ...(entry.observed ? { observed: true } : {}),
  });
  if (text === entry.saved) return;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // Owner-only, as every file of the data folder: its edits hold the tombstones of what the agent read.
  await writeFile(`${file}.tmp`, text, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  entry.saved = text;
}

/**
 * Each session's file in a folder (normally `<data dir>/proxy`), or none (no folder: in memory only). A file that
 * cannot be read or written is reported and the session goes on in memory.
 */
export class ProxySessionFiles {
  readonly #directory: string | undefined;
  readonly #onFailure: (error: unknown) => void;

  constructor(directory: string | undefined, onFailure: (error: unknown) => void) {
    this.#directory = directory;
    this.#onFailure = onFailure;
  }

  #file(entry: ProxySession): string | undefined {
    return this.#directory === undefined ? undefined : join(this.#directory, `${entry.id}.json`);
  }

  /** Reads back what an earlier run kept of the session, if anything. */
  async restore(entry: ProxySession): Promise<void> {
    const file = this.#file(entry);
    if (file) await readProxySession(file, entry).catch(this.#onFailure);
  }

  /** Writes what the session keeps when it changed. */
  async save(entry: ProxySession): Promise<void> {
    const file = this.#file(entry);
    if (file) await writeProxySession(file, entry).catch(this.#onFailure);
  }
}
