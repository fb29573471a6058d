import type { ArchiveSink } from '../compaction/archive-sink.js';
import type { Summarizer } from '../compaction/compact-history.js';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import type { BarometerConfig } from '../models/barometer-config.js';
import { sourcedPriceOfModel } from '../models/resolve-profile.js';
import type { WindowTrack } from '../quota/windows/window-track.js';
import type { EventBus } from '../store/event-bus.js';
import { SqliteStateStore } from '../store/sqlite-state-store.js';
import type { StateStore } from '../store/state-store.js';
import type { HeaderBag } from '../usage/rate-limit-headers.js';
import { readSessionLog } from '../usage/read-session-log.js';
import type { LogFormat, SessionLog } from '../usage/session-log.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { DEFAULT_CLOCK_SKEW_MS, repairFutureClock } from './clock-repair.js';
import { type CompactionReport, recordCompactionStep } from './compaction-step.js';
import { describeSession, type SessionContext } from './describe-session.js';
import { toMillis } from './iso-time.js';
import { type PoolLookup, PoolStandings, type ReadPool } from './pool-standings.js';
import {
  type Receipt,
  type ReceiptInput,
  type ReceiptRow,
  receiptOf,
  receiptOfSession,
  tallyReceipt,
} from './proxy-receipt.js';
import { type ProxyState, ProxyStateSchema } from './proxy-status.js';
import { observeQuotaStep } from './rejudge.js';
import { replayIntoState, sessionOptionsForLog } from './replay.js';
import { type CompactAnswer, type CompactRequest, compactForSession } from './session-compaction.js';
import type { SessionOptions, UsageUpdate } from './session-options.js';
import type { SessionRecord } from './session-record.js';
import type {
  SessionEvent,
  SessionSummary,
  SessionView,
  TimelineMarker,
  TimelinePoint,
  UsageAnswer,
} from './session-schemas.js';
import { createSessionState, type SessionState } from './session-state.js';
import {
  ColumnTimeline,
  markersOf,
  pointOf,
  sessionSummary,
  sessionView,
  type Timeline,
  timelineOf,
} from './session-timeline.js';
import { collectSubAgents, type SubAgentsAnswer, withSubAgent } from './sub-agents.js';
import { type UsageChange, usageAnswerOf, usageChange } from './usage-change.js';

export type { PoolLookup } from './pool-standings.js';
export type { CompactAnswer, CompactRequest } from './session-compaction.js';
export { parseSessionRecord, type SessionRecord, SessionRecordSchema } from './session-record.js';

/**
 * What a monitor tells its subscribers (the event streams, the webhooks, the metrics). The state a listener gets is
 * the session's state after the change, and never changes afterwards: a listener may keep it.
 */
export type MonitorEvent =
  | { type: 'created'; id: string; state: SessionState }
  | {
      type: 'changed';
      id: string;
      state: SessionState;
      points: TimelinePoint[];
      markers: TimelineMarker[];
      events: SessionEvent[];
      /** The usage posted and its cost, when the change is a usage update (metrics read them). */
      usage?: UsageRecord;
      costUsd?: number | null;
      /** The receipt of a request the proxy forwarded acting, when the change records one (metrics read it). */
      receipt?: ReceiptRow;
    }
  | {
      /** A compaction through `compact` (recap, eviction, or the eviction policy), for metrics. */
      type: 'compacted';
      id: string | undefined;
      mode: 'recap' | 'eviction' | 'policy';
      evictedItems: number;
    }
  | { type: 'deleted'; id: string; reason: 'deleted' | 'expired' };

/** Idle sessions a sweep deletes between two turns of the event loop. */
const SWEEP_BATCH = 100;

/** Idle sessions expire after a day by default. */
export const DEFAULT_SESSION_TTL_MS = 24 * 60 * 60 * 1000;

export interface SessionMonitorOptions {
  /** Where sessions live. @default an embedded database of this process alone (nothing kept after it ends) */
  store?: StateStore<SessionRecord>;
  /** Where `compact` archives what it replaces. Without one, `compact` refuses to evict task outputs. */
  archive?: ArchiveSink;
  /** The clock (epoch ms). @default Date.now */
  now?: () => number;
  /** A loaded config file whose model entries override the built-in registry. */
  config?: BarometerConfig;
  /** Sessions idle longer than this expire (see `sweep`); 0 keeps them forever. @default 86400000 (24 h) */
  sessionTtlMs?: number;
  generateId?: () => string;
  /**
   * Writes compaction recaps unless a request brings its own; when it fails, the deterministic recap is used
   * and the answer carries a warning.
   */
  summarizer?: Summarizer;
  /**
   * Shares the session events with the other instances of one service (Redis pub/sub): what this monitor
   * emits is published, and what the others publish reaches the listeners subscribed with `{ remote: true }`.
   */
  bus?: EventBus;
  /**
   * How far ahead of the clock a live update's time (`timestamp`, `usage.timestamp`) may be: a later one is refused
   * (400 naming the field), and a session found with times beyond it (written before this rule) is repaired.
   * Logs replayed into a session (`loadLog`) keep their own clock. @default 300000 (5 minutes)
   */
  clockSkewMs?: number;
  /**
   * Where the pools of sessions created with a `poolId` are read (a `PoolStore`): the pool's standing enters
   * their verdict. Without it, such a session's verdict says its pool could not be read.
   */
  pools?: PoolLookup;
}

/** Which events a listener hears. */
export interface SubscribeOptions {
  /**
   * Also the events of the other instances sharing the bus (an event stream shows them all); by default only
   * this instance's own (metrics and webhooks count each event once, where it happened).
   */
  remote?: boolean;
}

export interface LoadLogRequest {
  /** The log's text (any supported format), or a log already read. */
  log: string | SessionLog;
  id?: string;
  format?: LogFormat | 'auto';
  model?: string;
  contextWindow?: number;
}

/** Whether a store's answer is a promise (an asynchronous store) rather than the value itself. */
function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as Partial<PromiseLike<T>> | undefined)?.then === 'function';
}

function notFound(id: string): BarometerValidationError {
  return new BarometerValidationError(
    [{ field: 'id', value: id, message: 'no session with this id' }],
    'session',
    'BR_ERR_SESSION_NOT_FOUND',
  );
}

/**
 * The one entry point to live sessions that the library, the HTTP service, the CLI and the MCP server call:
 * it creates sessions, applies usage and compactions to them through the store's atomic update, keeps their
 * timelines, and tells subscribers what changed. Each operation is one call; surfaces translate, they do not
 * decide.
 *
 * @example
 * const monitor = new SessionMonitor();
 * await monitor.create({ id: 'run-1', model: 'claude-opus-4-6', agent: 'claude-code' });
 * const answer = await monitor.postUsage('run-1', { usage: normalizeUsage('anthropic', response) });
 * answer.verdict.action; // 'continue' | 'optimize' | 'wait' | 'compress' | 'terminate'
 */
export class SessionMonitor {
  readonly store: StateStore<SessionRecord>;
  readonly archive: ArchiveSink | undefined;
  readonly #now: () => number;
  readonly #config: BarometerConfig | undefined;
  readonly #ttlMs: number;
  readonly #skewMs: number;
  readonly #generateId: (() => string) | undefined;
  readonly #summarizer: Summarizer | undefined;
  readonly #listeners = new Set<(event: MonitorEvent) => void>();
  readonly #remoteListeners = new Set<(event: MonitorEvent) => void>();
  readonly #bus: EventBus | undefined;
  /** The pool of each session this monitor updated, read before its update, and the pools' standings. */
  readonly #pools: PoolStandings;
  /**
   * The subscription windows as the latest answer of any of this monitor's sessions left them (the account's, as
   * the proxy sees every session of it): a session's share of a window is each rise over these. In memory: a new
   * process starts without, and credits nothing until a second figure of a period.
   */
  #accountWindows: WindowTrack[] = [];
  readonly #stopBus: (() => void) | undefined;
  /**
   * Sub-agents created before their parent (a `subagents/` transcript read first), by parent id: linked when the
   * parent is created in this process. Bounded; a restart forgets them (their `parentId` still nests them).
   */
  readonly #waitingChildren = new Map<string, string[]>();

  constructor(options: SessionMonitorOptions = {}) {
    this.store =
      options.store ?? new SqliteStateStore<SessionRecord>({ touchedAt: (record) => record.touchedAt });
    this.archive = options.archive;
    this.#now = options.now ?? Date.now;
    this.#config = options.config;
    this.#ttlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
    this.#skewMs = options.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
    this.#generateId = options.generateId;
    this.#summarizer = options.summarizer;
    this.#bus = options.bus;
    this.#pools = new PoolStandings(options.pools);
    this.#stopBus = options.bus?.subscribe((message) => {
      const event = message as MonitorEvent;
      for (const listener of this.#remoteListeners) listener(event);
    });
  }

  /**
   * Creates a session.
   * @throws BarometerValidationError: bad or inconsistent options, an id in use (BR_ERR_SESSION_EXISTS), a full
   * store (BR_ERR_SESSION_LIMIT)
   */
  async create(options: SessionOptions): Promise<SessionView> {
    const state = createSessionState(options, {
      now: this.#now,
      ...(this.#config ? { config: this.#config } : {}),
      ...(this.#generateId ? { generateId: this.#generateId } : {}),
    });
    const record: SessionRecord = { state, timeline: new ColumnTimeline(), touchedAt: this.#now() };
    const inserted = await this.#insert(record);
    return sessionView(inserted.state, record.timeline);
  }

  /**
   * Applies one generation's usage to a session, whole or not at all, and answers with what the agent needs.
   * `await` it: the answer comes within the call when the store answers at once (the memory store) and the session
   * is in no pool (the HTTP route then pays no promise per post), as a promise otherwise. A failure is always a
   * rejected promise.
   * @throws BarometerValidationError: no such session (BR_ERR_SESSION_NOT_FOUND), a time a date cannot hold
   */
  postUsage(id: string, update: UsageUpdate): UsageAnswer | Promise<UsageAnswer> {
    try {
      // A pooled session's pool is read before the update; the first update of a session this monitor has not
      // seen yet learns whether it has one (the update then changes nothing, and is made again once it is read).
      const known = this.#pools.poolOf(id);
      if (known) return this.#pools.read(known).then((pool) => this.#applyUsage(id, update, pool));
      return this.#applyUsage(id, update, undefined);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** One usage update through the store; `pool` is the standing read first, undefined when none was. */
  #applyUsage(
    id: string,
    update: UsageUpdate,
    pool: ReadPool | undefined,
  ): UsageAnswer | Promise<UsageAnswer> {
    let change: UsageChange | undefined;
    // A store may call the change more than once (optimistic concurrency): the outcome kept is that of the last
    // call, the one written. A session that needs its pool read first is written as it was (`describe` writes a
    // record with nothing new the same way), inside the same atomic update that found it so.
    const record: SessionRecord | undefined | Promise<SessionRecord | undefined> = this.store.update(
      id,
      (current) => {
        change = usageChange(current, update, {
          now: this.#now,
          skewMs: this.#skewMs,
          pool,
          config: this.#config,
          accountWindows: this.#accountWindows,
        });
        return change.kind === 'applied' ? change.record : current;
      },
    );
    if (!isPromiseLike(record)) return this.#afterUsage(id, update, record, change);
    return record.then((later) => this.#afterUsage(id, update, later, change));
  }

  /** The answer to an update the store made, or, for a session found to be in a pool, the update made again. */
  #afterUsage(
    id: string,
    update: UsageUpdate,
    record: SessionRecord | undefined,
    change: UsageChange | undefined,
  ): UsageAnswer | Promise<UsageAnswer> {
    if (!record || !change) throw notFound(id);
    if (change.kind === 'needs-pool')
      return this.#pools.read(change.pool).then((pool) => this.#applyUsage(id, update, pool));
    const { applied } = change;
    if (record.state.windows?.length) this.#noteWindows(record.state.windows);
    this.#pools.note(id, record.state.options);
    this.#emit({
      type: 'changed',
      id,
      state: record.state,
      points: [applied.point],
      markers: applied.markers,
      events: applied.step.update.events,
      usage: update.usage,
      costUsd: applied.step.update.costUsd,
    });
    return usageAnswerOf(id, record, applied);
  }

  /**
   * Tells a session that its context was compacted (by the agent, or by barometer), so that the triggers' loop
   * guards hold until the context grows again.
   * @throws BarometerValidationError: no such session, `after` larger than `before`, a bad time
   */
  async recordCompaction(
    id: string,
    report: CompactionReport,
  ): Promise<{ event: Extract<SessionEvent, { type: 'compaction' }>; session: SessionSummary }> {
    let event: Extract<SessionEvent, { type: 'compaction' }> | undefined;
    let markers: TimelineMarker[] = [];
    let changes: SessionEvent[] = [];
    const record = await this.store.update(id, (current) => {
      const now = this.#now();
      const state = repairFutureClock(current.state, now, now + this.#skewMs) ?? current.state;
      const step = recordCompactionStep(state, report, { now, latest: now + this.#skewMs });
      event = step.event;
      changes = step.events;
      markers = markersOf([step.event], step.state.generations);
      return {
        state: step.state,
        timeline: timelineOf(current.timeline).mark(markers),
        touchedAt: this.#now(),
      };
    });
    if (!record || !event) throw notFound(id);
    this.#emit({
      type: 'changed',
      id,
      state: record.state,
      points: [],
      markers,
      events: [event, ...changes],
    });
    return { event, session: sessionSummary(record.state) };
  }

  /**
   * Records what a provider's response without a generation says about the quotas (a refused request, 429:
   * its rate-limit headers and `retry-after`); the verdict is judged again and carries the wait.
   * @throws BarometerValidationError: no such session
   */
  async observeQuota(
    id: string,
    observation: { headers: HeaderBag; timestamp?: number | string },
  ): Promise<SessionSummary> {
    let events: SessionEvent[] = [];
    const record = await this.store.update(id, (current) => {
      const at =
        observation.timestamp === undefined ? this.#now() : toMillis(observation.timestamp, 'timestamp');
      const step = observeQuotaStep(current.state, observation.headers, at, this.#accountWindows);
      events = step.events;
      return { state: step.state, timeline: current.timeline, touchedAt: this.#now() };
    });
    if (!record) throw notFound(id);
    if (record.state.windows?.length) this.#noteWindows(record.state.windows);
    this.#emit({ type: 'changed', id, state: record.state, points: [], markers: [], events });
    return sessionSummary(record.state);
  }

  /**
   * Records what barometer's proxy does with the session's requests (acting or observing, and the latest pause
   * when recording failed): the session's answers show it as `proxy`. Nothing else of the session changes.
   * @throws BarometerValidationError: no such session, a malformed status
   */
  async setProxyStatus(id: string, status: ProxyState): Promise<SessionSummary> {
    const parsed = parseWith(ProxyStateSchema, status);
    if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'proxy status');
    const proxy = parsed.value;
    const record = await this.store.update(id, (current) => ({
      state: { ...current.state, proxy },
      timeline: current.timeline,
      touchedAt: this.#now(),
    }));
    if (!record) throw notFound(id);
    this.#emit({ type: 'changed', id, state: record.state, points: [], markers: [], events: [] });
    return sessionSummary(record.state);
  }

  /**
   * Records the receipt of a request barometer's proxy forwarded acting (what it would have cost as the agent sent
   * it, what it did cost, whether the provider's cache departed from the model), priced at the session's price for
   * the model that answered, as the session prices the call. Nothing else of the session changes.
   * @throws BarometerValidationError: no such session
   */
  async recordReceipt(id: string, input: ReceiptInput): Promise<ReceiptRow> {
    let row: ReceiptRow | undefined;
    const record = await this.store.update(id, (current) => {
      const { state } = current;
      const price =
        input.model !== state.model
          ? sourcedPriceOfModel(input.model, this.#config)?.price
          : state.profile.price;
      row = receiptOf(input, price, state.generations, this.#now());
      return {
        state: { ...state, receipts: tallyReceipt(state.receipts, row) },
        timeline: current.timeline,
        touchedAt: this.#now(),
      };
    });
    if (!record || !row) throw notFound(id);
    this.#emit({
      type: 'changed',
      id,
      state: record.state,
      points: [],
      markers: [],
      events: [],
      receipt: row,
    });
    return row;
  }

  /**
   * Compacts a history (recap and flush, or eviction of completed tasks), archiving what it replaces first;
   * then, when `sessionId` names a live session, records the compaction in it.
   * @throws BarometerValidationError for a malformed history or options
   */
  compact(request: CompactRequest): Promise<CompactAnswer> {
    return compactForSession(request, {
      archive: this.archive,
      summarizer: this.#summarizer,
      session: async (id) => (await this.store.get(id))?.state,
      setDrift: async (id, drift) => {
        await this.store.update(id, (current) => ({
          ...current,
          state: { ...current.state, drift },
          touchedAt: this.#now(),
        }));
      },
      recordCompaction: (id, report) => this.recordCompaction(id, report),
      compacted: (compaction) => this.#emit({ type: 'compacted', ...compaction }),
    });
  }

  /**
   * A new live session fed with a recorded log's calls (its model and the agent's window come from the log,
   * exactly as `barometer replay` takes them); it appears whole, once replayed.
   * @throws BarometerValidationError for a log that cannot be read, an unknown model, an id in use, a full store
   */
  async loadLog(request: LoadLogRequest): Promise<SessionView> {
    const log =
      typeof request.log === 'string'
        ? readSessionLog(request.log, request.format === undefined ? {} : { format: request.format })
        : request.log;
    const options = sessionOptionsForLog(log, {
      ...(request.model === undefined ? {} : { model: request.model }),
      ...(request.contextWindow === undefined ? {} : { contextWindow: request.contextWindow }),
    });
    let state = createSessionState(
      { ...options, ...(request.id === undefined ? {} : { id: request.id }) },
      {
        now: () => Date.parse(log.calls[0]?.timestamp ?? '1970-01-01T00:00:00Z'),
        ...(this.#config ? { config: this.#config } : {}),
        ...(this.#generateId ? { generateId: this.#generateId } : {}),
      },
    );
    let timeline: Timeline = new ColumnTimeline();
    state = replayIntoState(
      state,
      log,
      (update, index, compaction) => {
        timeline = timeline.record(
          pointOf(update, index),
          update.at,
          markersOf(compaction ? [compaction, ...update.events] : update.events, index),
        );
      },
      undefined,
      {
        follow: request.model === undefined,
        ...(this.#config ? { config: this.#config } : {}),
      },
    );
    const record: SessionRecord = { state, timeline, touchedAt: this.#now() };
    const inserted = await this.#insert(record);
    return sessionView(inserted.state, timeline);
  }

  /**
   * Tells a session what a surface learned after creating it (the proxy from a request, `watch` from a log): its
   * working directory, project and first request. Each field is set once and never replaced; a context with nothing
   * new writes nothing.
   * @throws BarometerValidationError: no such session, a field out of bounds
   */
  async describe(id: string, context: SessionContext): Promise<SessionSummary> {
    let changed = false;
    const record = await this.store.update(id, (current) => {
      const state = describeSession(current.state, context);
      changed = state !== current.state;
      return changed ? { ...current, state } : current;
    });
    if (!record) throw notFound(id);
    if (changed)
      this.#emit({ type: 'changed', id, state: record.state, points: [], markers: [], events: [] });
    return sessionSummary(record.state);
  }

  /**
   * A session's sub-agents (the sessions created with it as `parentId`, and theirs) and its totals with them.
   * @throws BarometerValidationError when there is no such session
   */
  async subAgents(id: string): Promise<SubAgentsAnswer> {
    const record = await this.store.get(id);
    if (!record) throw notFound(id);
    return collectSubAgents(record.state, async (child) => (await this.store.get(child))?.state);
  }

  /** Adds a new session to its parent's sub-agents, or keeps it until the parent is created here. */
  async #linkToParent(parentId: string, childId: string): Promise<void> {
    let linked = false;
    const parent = await this.store.update(parentId, (current) => {
      const state = withSubAgent(current.state, childId);
      linked = state !== current.state;
      return linked ? { ...current, state } : current;
    });
    if (parent && linked) {
      this.#emit({ type: 'changed', id: parentId, state: parent.state, points: [], markers: [], events: [] });
    } else if (!parent) {
      const waiting = this.#waitingChildren.get(parentId) ?? [];
      if (!waiting.includes(childId)) waiting.push(childId);
      this.#waitingChildren.set(parentId, waiting);
      if (this.#waitingChildren.size > 10_000)
        this.#waitingChildren.delete(this.#waitingChildren.keys().next().value as string);
    }
  }

  /** @throws BarometerValidationError when there is no such session (BR_ERR_SESSION_NOT_FOUND) */
  async view(id: string): Promise<SessionView> {
    const record = await this.store.get(id);
    if (!record) throw notFound(id);
    return sessionView(record.state, record.timeline);
  }

  /** The receipts of an acting proxy's requests of a session, added up; null when it has none (or no such session). */
  async receipt(id: string): Promise<Receipt | null> {
    const record = await this.store.get(id);
    return record ? receiptOfSession(record.state.receipts) : null;
  }

  /** Whether a session exists. */
  async has(id: string): Promise<boolean> {
    return (await this.store.get(id)) !== undefined;
  }

  /** Every session's summary, most recently updated first. */
  async list(): Promise<SessionSummary[]> {
    const summaries: SessionSummary[] = [];
    for await (const page of this.summaries()) summaries.push(...page);
    return summaries.sort((a, b) => (b.updatedAt ?? b.createdAt).localeCompare(a.updatedAt ?? a.createdAt));
  }

  /**
   * One page of the sessions' summaries, in id order: up to `limit` after the session `after` (null: the first),
   * and `nextCursor`, the id to pass as `after` for the next page (null on the last). A page costs its own
   * sessions, however many there are (issue 29: one list of 100,000 took 159 MB and stalled the service 2.5 s).
   */
  async listPage(
    after: string | null,
    limit: number,
  ): Promise<{ sessions: SessionSummary[]; nextCursor: string | null }> {
    // A summary shows no timeline: the store need not read the sessions' points.
    const page = await this.store.page(after, limit, { lists: false });
    return { sessions: page.values.map((record) => sessionSummary(record.state)), nextCursor: page.next };
  }

  /**
   * Every session's summary, a page at a time, the event loop let run between pages: what a scrape of every
   * session (metrics) reads without stalling the requests of 100,000 sessions.
   */
  async *summaries(pageSize = 1000): AsyncGenerator<SessionSummary[]> {
    let after: string | null = null;
    do {
      const page: { sessions: SessionSummary[]; nextCursor: string | null } = await this.listPage(
        after,
        pageSize,
      );
      yield page.sessions;
      after = page.nextCursor;
      if (after !== null) await new Promise((resolve) => setImmediate(resolve));
    } while (after !== null);
  }

  /** @throws BarometerValidationError when there is no such session */
  async delete(id: string): Promise<void> {
    this.#pools.forget(id);
    if (!(await this.store.delete(id))) throw notFound(id);
    this.#emit({ type: 'deleted', id, reason: 'deleted' });
  }

  /**
   * Deletes the sessions idle longer than the TTL; answers their ids. A store that keeps an index of the values'
   * times (the embedded database) names them, a hundred at a time with the event loop let run between; another
   * (Redis) is read whole.
   */
  async sweep(): Promise<string[]> {
    if (this.#ttlMs <= 0) return [];
    const cutoff = this.#now() - this.#ttlMs;
    const expired: string[] = [];
    const expire = async (id: string) => {
      this.#pools.forget(id);
      if (!(await this.store.delete(id))) return;
      expired.push(id);
      this.#emit({ type: 'deleted', id, reason: 'expired' });
    };
    const idle = this.store.idle?.bind(this.store);
    if (!idle) {
      for (const record of await this.store.values())
        if (record.touchedAt < cutoff) await expire(record.state.id);
      return expired;
    }
    for (let ids = await idle(cutoff, SWEEP_BATCH); ids.length > 0; ids = await idle(cutoff, SWEEP_BATCH)) {
      for (const id of ids) await expire(id);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return expired;
  }

  /** Subscribes to every session's changes; returns the unsubscribe function. */
  subscribe(listener: (event: MonitorEvent) => void, options: SubscribeOptions = {}): () => void {
    this.#listeners.add(listener);
    if (options.remote) this.#remoteListeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
      this.#remoteListeners.delete(listener);
    };
  }

  /** Writes out what the store has pending. The bus and the store's connection are their owners' to close. */
  async close(): Promise<void> {
    this.#listeners.clear();
    this.#remoteListeners.clear();
    this.#stopBus?.();
    await this.store.close();
  }

  /** Stores a new session (with the sub-agents that waited for it) and links it to its parent; answers the record. */
  async #insert(given: SessionRecord): Promise<SessionRecord> {
    const id = given.state.id;
    const waiting = this.#waitingChildren.get(id);
    const record = waiting ? { ...given, state: waiting.reduce(withSubAgent, given.state) } : given;
    const outcome = await this.store.create(id, record);
    if (outcome === 'exists') {
      throw new BarometerValidationError(
        [{ field: 'id', value: id, message: 'a session with this id already exists' }],
        'session',
        'BR_ERR_SESSION_EXISTS',
      );
    }
    if (outcome === 'full') {
      const limit = this.store.maxEntries === undefined ? '' : ` of ${this.store.maxEntries}`;
      throw new BarometerValidationError(
        [
          {
            field: 'id',
            value: id,
            message: `the store holds its maximum${limit} sessions: delete one, wait for idle ones to expire, or raise --max-sessions`,
          },
        ],
        'session',
        'BR_ERR_SESSION_LIMIT',
      );
    }
    this.#waitingChildren.delete(id);
    this.#emit({ type: 'created', id, state: record.state });
    const parentId = record.state.options.parentId;
    if (parentId !== undefined && parentId !== id) await this.#linkToParent(parentId, id);
    return record;
  }

  /** The account's windows with a session's latest figures (the newest figure of each window wins). */
  #noteWindows(windows: readonly WindowTrack[]): void {
    const byId = new Map(this.#accountWindows.map((track) => [track.id, track]));
    for (const track of windows) {
      const known = byId.get(track.id);
      if (known === undefined || known.at <= track.at) byId.set(track.id, track);
    }
    this.#accountWindows = [...byId.values()];
  }

  /** The subscription windows as the latest answer of any session left them, each with its forecast at `at`. */
  accountWindows(): readonly WindowTrack[] {
    return this.#accountWindows;
  }

  #emit(event: MonitorEvent): void {
    for (const listener of this.#listeners) listener(event);
    if (!this.#bus || event.type === 'compacted') return;
    // The other instances' streams need the change, not what only this instance's metrics read.
    if (event.type === 'changed') {
      const { usage: _usage, costUsd: _cost, ...shared } = event;
      this.#bus.publish(shared);
    } else this.#bus.publish(event);
  }
}
