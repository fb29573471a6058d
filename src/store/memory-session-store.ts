import { EventEmitter } from 'node:events';
import { HeadroomValidationError } from '../errors/validation.js';
import type { HeadroomConfig } from '../models/headroom-config.js';
import { Session, type SessionEvent, type SessionUpdate } from '../session/session.js';
import type { SessionOptions, UsageUpdate } from '../session/session-options.js';
import {
  SessionTimeline,
  type SessionView,
  sessionSummary,
  sessionView,
} from '../session/session-timeline.js';

type SessionSummary = ReturnType<typeof sessionSummary>;

/** What a store tells its subscribers. */
export type StoreEvent =
  | { type: 'session'; id: string; view: SessionView }
  | { type: 'session_event'; id: string; event: SessionEvent }
  | { type: 'deleted'; id: string };

interface Entry {
  session: Session;
  timeline: SessionTimeline;
}

export interface MemorySessionStoreOptions {
  now?: () => number;
  config?: HeadroomConfig;
  /**
   * Sessions kept at most; creating one more evicts the least recently updated. Each keeps a timeline of up to
   * 500 points (about 50 KB). @default 1000
   */
  maxSessions?: number;
}

/**
 * The embedded default: sessions in this process's memory, with an event fan-out for live views.
 * Nothing to install; state is gone when the process ends.
 */
export class MemorySessionStore {
  readonly #sessions = new Map<string, Entry>();
  readonly #events = new EventEmitter();
  readonly #now: () => number;
  readonly #config: HeadroomConfig | undefined;
  readonly #maxSessions: number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#config = options.config;
    this.#maxSessions = options.maxSessions ?? 1000;
    this.#events.setMaxListeners(0);
  }

  /** @throws HeadroomValidationError for bad options, an unknown model, or an id in use (HR_ERR_SESSION_EXISTS). */
  create(options: SessionOptions): SessionView {
    if (options.id !== undefined && this.#sessions.has(options.id)) {
      throw new HeadroomValidationError(
        [{ field: 'id', value: options.id, message: 'a session with this id already exists' }],
        'session',
        'HR_ERR_SESSION_EXISTS',
      );
    }
    const session = new Session(options, {
      now: this.#now,
      ...(this.#config ? { config: this.#config } : {}),
    });
    if (this.#sessions.size >= this.#maxSessions) this.#evictOldest();
    const entry = { session, timeline: new SessionTimeline() };
    this.#sessions.set(session.id, entry);
    const view = sessionView(session, entry.timeline);
    this.#emit({ type: 'session', id: session.id, view });
    return view;
  }

  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  get(id: string): SessionView | undefined {
    const entry = this.#sessions.get(id);
    return entry ? sessionView(entry.session, entry.timeline) : undefined;
  }

  /** The live Session object, for library callers that share the store. */
  session(id: string): Session | undefined {
    return this.#sessions.get(id)?.session;
  }

  /** Every session's summary (its view without the timeline), most recently updated first. */
  list(): SessionSummary[] {
    const views = [...this.#sessions.values()].map((entry) => sessionSummary(sessionView(entry.session)));
    return views.sort((a, b) => (b.updatedAt ?? b.createdAt).localeCompare(a.updatedAt ?? a.createdAt));
  }

  /** Applies one usage update; undefined when there is no such session. */
  update(
    id: string,
    update: UsageUpdate,
    extraEvents: SessionEvent[] = [],
  ): { update: SessionUpdate; view: SessionView } | undefined {
    const entry = this.#sessions.get(id);
    if (!entry) return undefined;
    const result = entry.session.update(update);
    entry.timeline.record(result, entry.session.generations - 1, extraEvents);
    const view = sessionView(entry.session, entry.timeline);
    for (const event of [...extraEvents, ...result.events]) this.#emit({ type: 'session_event', id, event });
    this.#emit({ type: 'session', id, view });
    return { update: result, view };
  }

  /**
   * Tells a session that its context was compacted (by the agent, or by headroom's /compact), so that the
   * triggers' loop guards hold until the context grows again; undefined when there is no such session.
   */
  recordCompaction(
    id: string,
    compaction: { before?: number; after?: number; trigger?: string; timestamp?: number | string },
  ): { event: SessionEvent; view: SessionView } | undefined {
    const entry = this.#sessions.get(id);
    if (!entry) return undefined;
    const event = entry.session.recordCompaction(compaction);
    entry.timeline.mark(event, entry.session.generations);
    const view = sessionView(entry.session, entry.timeline);
    this.#emit({ type: 'session_event', id, event });
    this.#emit({ type: 'session', id, view });
    return { event, view };
  }

  /** Runs `work` against the session and its timeline, then announces the new view (bulk loads, replays). */
  batch(id: string, work: (session: Session, timeline: SessionTimeline) => void): SessionView | undefined {
    const entry = this.#sessions.get(id);
    if (!entry) return undefined;
    work(entry.session, entry.timeline);
    const view = sessionView(entry.session, entry.timeline);
    this.#emit({ type: 'session', id, view });
    return view;
  }

  delete(id: string): boolean {
    const existed = this.#sessions.delete(id);
    if (existed) this.#emit({ type: 'deleted', id });
    return existed;
  }

  /** Subscribes to every session's events; returns the unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#events.on('event', listener);
    return () => this.#events.off('event', listener);
  }

  #emit(event: StoreEvent): void {
    this.#events.emit('event', event);
  }

  #evictOldest(): void {
    let oldestId: string | undefined;
    let oldestAt = Number.POSITIVE_INFINITY;
    for (const [id, entry] of this.#sessions) {
      const at = entry.session.lastActivityAt ?? entry.session.createdAt;
      if (at < oldestAt) {
        oldestAt = at;
        oldestId = id;
      }
    }
    if (oldestId !== undefined) this.delete(oldestId);
  }
}
