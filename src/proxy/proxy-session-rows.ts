import * as z from 'zod';
import type { ProxySession } from './proxy-session.js';

/**
 * A session's edits, policy states and observe mark as kept in the data dir's database (one row per session):
 * after a restart the session's next request carries the same tombstones (the cache stays warm), the policy goes on
 * where it was, and a session seen in observe stays observed.
 */
const SavedProxySessionSchema = z.object({
  edits: z.array(
    z.tuple([
      z.string(),
      z.object({
        result: z.string().optional(),
        input: z.string().optional(),
        resultOf: z.string().optional(),
        inputOf: z.string().optional(),
      }),
    ]),
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
  /** The window policy's decision per sub-agent conversation (agent id, lowered): kept for the conversation's life. */
  conversations: z.array(z.tuple([z.string(), z.boolean()])).optional(),
});

/** Texts by session id: what the proxy keeps of each session (a `KeyValueTable` of the database is one). */
export interface KeptProxySessions {
  get(id: string): string | undefined;
  set(id: string, text: string): void;
}

/**
 * Reads back into `entry` what an earlier run kept of the session; nothing when it has no row.
 * @throws when the row is not a saved session
 */
export function readProxySession(kept: KeptProxySessions, entry: ProxySession): void {
  const text = kept.get(entry.id);
  if (text === undefined) return;
  const saved = SavedProxySessionSchema.parse(JSON.parse(text));
  for (const [callId, edit] of saved.edits) entry.edits.set(callId, edit);
  for (const [thread, state] of saved.threads) entry.threads.set(thread, state);
  if (saved.observed === true) entry.observed = true;
  for (const [agent, lowered] of saved.conversations ?? []) entry.conversations.set(agent, { lowered });
  entry.version++;
  entry.saved = text;
}

/**
 * Writes what the session keeps when it changed (one row, committed before it returns).
 * @throws when the row cannot be written
 */
export function writeProxySession(kept: KeptProxySessions, entry: ProxySession): void {
  const text = JSON.stringify({
    edits: [...entry.edits],
    threads: [...entry.threads],
    ...(entry.observed ? { observed: true } : {}),
    ...(entry.conversations.size > 0
      ? { conversations: [...entry.conversations].map(([agent, { lowered }]) => [agent, lowered]) }
      : {}),
  });
  if (text === entry.saved) return;
  kept.set(entry.id, text);
  entry.saved = text;
}

/**
 * Each session's row (normally the `proxy-sessions` table of the data dir's database), or none (in memory only). A
 * row that cannot be read or written is reported and the session goes on in memory.
 */
export class ProxySessionRows {
  readonly #kept: KeptProxySessions | undefined;
  readonly #onFailure: (error: unknown) => void;

  constructor(kept: KeptProxySessions | undefined, onFailure: (error: unknown) => void) {
    this.#kept = kept;
    this.#onFailure = onFailure;
  }

  /** Reads back what an earlier run kept of the session, if anything. */
  async restore(entry: ProxySession): Promise<void> {
    if (!this.#kept) return;
    try {
      readProxySession(this.#kept, entry);
    } catch (error) {
      this.#onFailure(error);
    }
  }

  /** Writes what the session keeps when it changed. */
  async save(entry: ProxySession): Promise<void> {
    if (!this.#kept) return;
    try {
      writeProxySession(this.#kept, entry);
    } catch (error) {
      this.#onFailure(error);
    }
  }
}
