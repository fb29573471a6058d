import { setImmediate } from 'node:timers/promises';
import type { ArchiveSink } from '../compaction/archive-sink.js';
import { EvictionPolicy, initialEvictionState } from '../compaction/eviction-policy.js';
import { evictionTombstone } from '../compaction/eviction-tombstone.js';
import { type HistoryItem, itemText } from '../compaction/history-item.js';
import { BarometerError } from '../errors/barometer-error.js';
import { canonicalModelId, normalizeModelId } from '../models/model-id.js';
import type { WindowLever } from '../quota/windows/window-lever-names.js';
import { decideWindowLevers } from '../quota/windows/window-levers.js';
import type { ProxyPauseStage } from '../session/proxy-status.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { normalizeUsage } from '../usage/normalize-usage.js';
import type { HeaderBag } from '../usage/rate-limit-headers.js';
import { cacheLifetimeMs } from '../whatif/cached-call-tokens.js';
import type { CacheRequests } from './cache-request-of.js';
import {
  isActing,
  type ProxyStanding,
  pauseSession,
  proxyStateOf,
  resumeSession,
  standingOf,
} from './proxy-acting.js';
import { ProxyReceipts } from './proxy-receipts.js';
import {
  type CarriedEdits,
  type LastAnswer,
  newProxySession,
  type PreparedRequest,
  type ProxySession,
  type ReadRequest,
} from './proxy-session.js';
import { type KeptProxySessions, ProxySessionRows } from './proxy-session-rows.js';
import { reportedBy } from './requested-output.js';
import { type SessionSource, threadKey, type WireFormat } from './session-key.js';
import { applyEdits, contentFingerprint, type EditedBlock, editedBlocks, historyOf } from './wire-history.js';
import { locateEdits } from './wire-splice.js';

export type { ProxyStanding } from './proxy-acting.js';
export type { PreparedRequest, ProxyPause, ProxySession } from './proxy-session.js';
export type { KeptProxySessions } from './proxy-session-rows.js';

type Json = Record<string, unknown>;

/** Where a proxy step failed: each is counted in /metrics, and the request went on unchanged. */
export type ProxyStage = 'session' | 'edit' | 'analyze' | 'record' | 'persist' | 'receipt';

export interface ProxySessionsOptions {
  monitor: SessionMonitor;
  archive: ArchiveSink;
  now?: () => number;
  counter?: TokenCounter;
  /** Called with every internal failure; the request it concerned went on unchanged. */
  onFailure: (stage: ProxyStage, error: unknown) => void;
  /** A batch was evicted: how many items, and the archive. */
  onEviction?: (sessionId: string, items: number, archive: string) => void;
  /**
   * Where each session's edits are kept across restarts, one JSON text per session id (normally a table of the
   * data dir's database); none: in memory only.
   */
  kept?: KeptProxySessions;
  /** The proxy stopped acting on a session: recording it failed at `stage` (each failure is also an onFailure). */
  onPause?: (stage: ProxyPauseStage) => void;
  /** The window policy's levers on (the proxy option `windowPolicy`). @default [] */
  windowPolicy?: readonly WindowLever[];
}

/** The most sub-agent conversations a session keeps a window decision for; later ones are never lowered. */
export const MAX_WINDOW_CONVERSATIONS = 10_000;

const AGENT_OF: Partial<Record<SessionSource, 'claude-code' | 'codex'>> = {
  'claude-code-header': 'claude-code',
  'claude-code-metadata': 'claude-code',
  'codex-turn-metadata': 'codex',
  'prompt-cache-key': 'codex',
};

/**
 * The proxy's memory of its sessions and the work it does for them: the monitor's session (created on the first
 * request), the usage of every answer, and, in act mode, the eviction policy run on each request's history once its
 * answer is recorded, whose batches become edits that every later request of the session carries.
 *
 * It never acts on what it cannot record: while creating a session or recording an answer fails, the session is
 * paused (its requests get no new edits, and no analysis runs), until a create or a record succeeds again. The edits
 * made before the pause stay in its requests: the provider cached the prefix with them, and removing them would
 * rewrite that prefix and bring back what the model was told is archived; they are the ones the session already
 * shows (each eviction was recorded when it was made).
 */
export class ProxySessions {
  readonly #sessions = new Map<string, ProxySession>();
  readonly #monitor: SessionMonitor;
  readonly #archive: ArchiveSink;
  readonly #now: () => number;
  readonly #counter: TokenCounter;
  readonly #policy: EvictionPolicy;
  readonly #options: ProxySessionsOptions;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #rows: ProxySessionRows;
  readonly #receipts: ProxyReceipts;
  readonly #levers: readonly WindowLever[];

  constructor(options: ProxySessionsOptions) {
    this.#options = options;
    this.#levers = options.windowPolicy ?? [];
    this.#monitor = options.monitor;
    this.#archive = options.archive;
    this.#now = options.now ?? Date.now;
    this.#counter = options.counter ?? createTokenCounter();
    this.#policy = new EvictionPolicy({}, this.#counter);
    this.#rows = new ProxySessionRows(options.kept, (error) => options.onFailure('persist', error));
    const onFailure = (error: unknown) => options.onFailure('receipt', error);
    this.#receipts = new ProxyReceipts({
      monitor: this.#monitor,
      counter: this.#counter,
      now: this.#now,
      onFailure,
    });
  }

  /** The session's entry, made on first use. */
  session(id: string): ProxySession {
    let entry = this.#sessions.get(id);
    if (!entry) {
      entry = newProxySession(id);
      entry.pending = this.#rows.restore(entry);
      this.#sessions.set(id, entry);
    }
    return entry;
  }

  /** Whether the proxy acts on the session now: it is not observed, and recording it works. */
  /**
   * The block the proxy's own cache breakpoint goes on in the session's next request (Anthropic; issue 38): the last
   * tombstone of the latest batch once a request holding that batch was answered, and until then the block of the
   * previous request's breakpoint, where the provider holds an entry: a batch then rewrites only what follows the
   * batch before it. Null before the first batch, or when the previous request carried none.
   */
  breakpoint(entry: ProxySession, cold = false): string | null {
    if (entry.batchEnd === null) return null;
    const carried = entry.carried;
    // A cold cache holds no entry to read: the breakpoint goes on the latest batch's end at once.
    if (cold || (carried && carried.version === entry.version)) return entry.batchEnd;
    return carried?.breakpoint ?? null;
  }

  acting(entry: ProxySession): boolean {
    return isActing(entry);
  }

  /**
   * Marks the session observed for good (a request came through `/observe`, or the proxy observes): its requests go
   * upstream as sent from now on, after a restart too.
   */
  observe(entry: ProxySession): void {
    if (entry.observed) return;
    entry.observed = true;
    this.#write(entry, () => this.#rows.save(entry));
  }

  /** How many sessions seen since the start the proxy acts on, observes, or passes through unedited. */
  standing(): ProxyStanding {
    return standingOf(this.#sessions.values());
  }

  /** Stops acting on the session: recording it failed. */
  #pause(entry: ProxySession, stage: ProxyPauseStage, error: unknown): void {
    if (pauseSession(entry, stage, error, this.#now())) this.#options.onPause?.(stage);
  }

  /** Writes the proxy's standing into the monitor's session when it changed (its answers show it as `proxy`). */
  async #show(entry: ProxySession): Promise<void> {
    const status = proxyStateOf(entry, this.#levers);
    const text = JSON.stringify(status);
    if (text === entry.shown) return;
    try {
      await this.#monitor.setProxyStatus(entry.id, status);
      entry.shown = text;
    } catch {
      // The failure that paused the session is counted already; the status is written at its next record.
    }
  }

  /**
   * Makes sure the monitor has the session (created with the request's model and what it says of its max output); false when it could not, and then
   * the session is paused until a later request creates it.
   */
  ensure(entry: ProxySession, model: string, source: SessionSource, body?: Json): Promise<boolean> {
    entry.ready ??= (async () => {
      try {
        if (!(await this.#monitor.has(entry.id))) {
          const agent = AGENT_OF[source];
          await this.#monitor.create({
            id: entry.id,
            model,
            ...(agent ? { agent } : {}),
            ...reportedBy(body),
          });
        }
      } catch (error) {
        // A session created meanwhile (by a concurrent request, a hook or watch) is as good.
        if (!(await this.#monitor.has(entry.id).catch(() => false))) {
          this.#options.onFailure('session', error);
          this.#pause(entry, 'session', error);
          entry.ready = null;
          return false;
        }
      }
      if (entry.pause?.stage === 'session') resumeSession(entry, this.#now());
      return true;
    })();
    return entry.ready;
  }

  /** How long a request should be held: the rest of a `wait` verdict's waitSeconds, at most `maxSeconds`. */
  holdMs(entry: ProxySession, maxSeconds: number): number {
    const verdict = entry.verdict;
    if (verdict?.action !== 'wait' || verdict.waitSeconds === null) return 0;
    const left = verdict.waitSeconds * 1000 - (this.#now() - verdict.at);
    return Math.max(0, Math.min(left, maxSeconds * 1000));
  }

  /**
   * The window policy on a request of a sub-agent's conversation (`agent`: its id; undefined for the main
   * conversation, which is never acted on): whether the conversation is lowered (decided at its first request, kept
   * for all of them and across restarts) and how long to hold the request. Nothing on an observed session; no new
   * decision, no hold while the session is paused.
   */
  windowLevers(
    entry: ProxySession,
    agent: string | undefined,
    maxHoldSeconds: number,
  ): { lowered: boolean; holdMs: number } {
    // No lever on: nothing decided, nothing kept (the session's rows stay as they were without the policy).
    if (this.#levers.length === 0 || agent === undefined || entry.observed)
      return { lowered: false, holdMs: 0 };
    const known = entry.conversations.get(agent);
    const full = known === undefined && entry.conversations.size >= MAX_WINDOW_CONVERSATIONS;
    const decision = decideWindowLevers({
      levers: this.#levers,
      subAgent: true,
      conversation: full ? { lowered: false } : known,
      windowWait: entry.verdict?.windowWait ?? null,
      now: this.#now(),
      maxHoldSeconds,
      budgetTokens: null,
      mayDecide: isActing(entry),
    });
    const lowered = decision.conversation?.lowered === true;
    if (known === undefined && !full) {
      entry.conversations.set(agent, { lowered });
      if (lowered) entry.windowPolicy.conversationsLowered++;
      this.#write(entry, () => this.#rows.save(entry));
    }
    return { lowered, holdMs: decision.holdMs };
  }

  /**
   * Whether the conversation's next request finds the provider's cache cold by the pause alone (its latest answer
   * older than the cache surely lives) while the policy evicts at a cold arrival (`evictOnColdArrival`) and the proxy
   * acts on the session: then the policy reads the request before it goes upstream (`analyzeOnArrival`), and the
   * request carries the batch decided on its own history, its rewrite paid by a request that writes its whole prompt
   * anyway. Another model is seen only once the request is read (after its answer, as `evictWhenCold`).
   */
  coldOnArrival(entry: ProxySession, conversation: string): boolean {
    if (!this.#policy.options.evictOnColdArrival || !isActing(entry)) return false;
    const last = entry.lastAnswers.get(conversation);
    return last !== undefined && this.#now() - last.at > last.lifetimeMs;
  }

  /**
   * The policy's analysis of a request that found the cache cold, before it goes upstream (in the session's chain of
   * decisions): a batch is archived and its tombstones join the edits, for this request on. `body` is read and
   * edited here: pass a copy of the caller's.
   */
  analyzeOnArrival(
    entry: ProxySession,
    format: WireFormat,
    raw: Buffer,
    body: Json,
    conversation: string,
  ): Promise<void> {
    const analyzed = entry.pending.then(() =>
      this.#analyzeRequest(entry, format, raw, body, entry.lastAnswers.get(conversation)),
    );
    entry.pending = analyzed;
    return analyzed;
  }

  /**
   * Runs the eviction policy on a request's history (edits already applied) after it went upstream; a batch is
   * archived first, and only then do its tombstones join the session's edits, for the next request on. Chained:
   * one analysis per session at a time, in request order. (`record` runs it itself once the answer is recorded.)
   */
  analyze(entry: ProxySession, format: WireFormat, raw: Buffer, body: Json): void {
    entry.pending = entry.pending.then(() =>
      this.#analyzeRequest(entry, format, raw, body, entry.lastAnswers.get('')),
    );
  }

  /**
   * Reads a request the proxy acts on while it is with the provider (`body`: `raw` parsed, which this edits): describes
   * it for its receipt, keeps where its edited blocks are (the next request is edited unparsed) and writes into it the
   * session's edits it went out with. Its record then needs none of this: the session's next request waits for the
   * answer's usage and the policy, not for reading a request again. Never throws (a failure is reported; the record
   * then reads the request itself).
   */
  async read(
    entry: ProxySession,
    format: WireFormat,
    raw: Buffer,
    body: Json,
    carried: CarriedEdits | undefined,
  ): Promise<ReadRequest | undefined> {
    try {
      const version = entry.version;
      const blocks = entry.observed ? [] : editedBlocks(format, body, entry.edits);
      const requests = this.#receipts.describe(format, body, blocks, carried);
      await setImmediate();
      // New edits meanwhile: the record writes them into the request itself (version -1: none written here).
      if (entry.version !== version) return { format, raw, body, version: -1, requests };
      this.#copy(entry, format, raw, body, blocks);
      for (const { block, edited } of blocks) Object.assign(block, edited);
      return { format, raw, body, version, requests };
    } catch (error) {
      this.#options.onFailure('analyze', error);
      return undefined;
    }
  }

  /**
   * `last`: the answer before this request's (a pause since then longer than the cache lives finds it cold). `read`:
   * the edit version already written into `body` ({@link read}), if it was; -1 or another version: `raw` is parsed
   * again and the session's edits written in here.
   */
  async #analyzeRequest(
    entry: ProxySession,
    format: WireFormat,
    raw: Buffer,
    request: Json,
    last: LastAnswer | undefined,
    read?: number,
  ): Promise<void> {
    try {
      const version = entry.version;
      let body = request;
      if (read !== version) {
        if (read !== undefined) body = JSON.parse(raw.toString('utf8')) as Json;
        this.#copy(entry, format, raw, body);
        applyEdits(format, body, entry.edits);
        await setImmediate();
      }
      await this.#analyze(entry, format, body, last);
      // A new batch: where its blocks are in this request, for the next one (`body` now holds tombstones).
      if (entry.version !== version) {
        await setImmediate();
        this.#copy(entry, format, raw, JSON.parse(raw.toString('utf8')) as Json);
      }
      this.#write(entry, () => this.#rows.save(entry));
    } catch (error) {
      this.#options.onFailure('analyze', error);
    }
  }

  /**
   * Queues a write in the session's chain of writes (ProxySession.writes): in order, never awaited by a request.
   * Resolves once it is done; never rejects (each write reports its own failure).
   */
  #write(entry: ProxySession, write: () => Promise<void>): Promise<void> {
    const written = entry.writes
      .then(write)
      .catch((error: unknown) => this.#options.onFailure('persist', error));
    entry.writes = written;
    this.#inFlight.add(written);
    void written.finally(() => this.#inFlight.delete(written));
    return written;
  }

  /** Keeps the request and where its edited blocks are, so that the session's next request is edited unparsed. */
  #copy(entry: ProxySession, format: WireFormat, raw: Buffer, body: Json, blocks?: EditedBlock[]): void {
    if (entry.edits.size === 0) return;
    const copy = locateEdits(format, raw, body, entry.edits, entry.version, blocks);
    const others = entry.copies.filter((other) => other.version === entry.version && other.bytes !== raw);
    entry.copies = copy ? [copy, ...others.slice(0, 1)] : others.slice(0, 1);
  }

  #sizeOf(entry: ProxySession) {
    return (item: HistoryItem): number => {
      if (item.kind === 'opaque') return 0;
      const text = itemText(item);
      const key = `${item.id}:${text.length}`;
      let size = entry.sizes.get(key);
      if (size === undefined) {
        size = this.#counter.count(text);
        entry.sizes.set(key, size);
      }
      return size;
    };
  }

  /**
   * Whether this request found the provider's cache cold (lever (d) of docs/decisions/035, as the what-if judges it):
   * a pause since the last answer longer than the cache's lifetime, or another model. Then a pending batch goes
   * whatever it frees: its rewrite costs nothing the request did not pay already. The warm-cache payback wait is not
   * applied here (the proxy passes no `callsSoFar`), so a batch at a warm moment goes as before.
   */
  #cacheCold(last: LastAnswer | undefined, body: Json): boolean {
    if (!last) return false;
    if (this.#now() - last.at > last.lifetimeMs) return true;
    const model = typeof body.model === 'string' ? body.model : undefined;
    const family = (id: string) => canonicalModelId(normalizeModelId(id));
    return model !== undefined && last.model !== undefined && family(model) !== family(last.model);
  }

  async #analyze(
    entry: ProxySession,
    format: WireFormat,
    body: Json,
    last: LastAnswer | undefined,
  ): Promise<void> {
    const thread = threadKey(format, body);
    const history = historyOf(format, body, entry.edits);
    const sizeOf = this.#sizeOf(entry);
    const decision = this.#policy.decide(history, {
      state: entry.threads.get(thread) ?? initialEvictionState(),
      sizeOf,
      cacheCold: this.#cacheCold(last, body),
    });
    if (!decision.evict) {
      entry.threads.set(thread, decision.state);
      return;
    }
    // Named by the session's count, not the conversation's: Claude Code's sub-agents share their parent's session
    // id, and each one's policy state counts from 1, so `subtask-1` of a sub-agent appended to its parent's archive.
    const batch = { ...decision.evict, taskId: `subtask-${batchesOf(entry) + 1}` };
    const applied = await this.#policy.apply(
      history,
      { ...decision, evict: batch, recap: null },
      {
        archive: this.#archive,
        sessionId: entry.id,
      },
    );
    const calls = new Map<string, HistoryItem>();
    for (const item of history) if (item.kind === 'tool-call') calls.set(item.callId, item);
    const boundary = decision.boundary
      ? `${decision.boundary.kind}: ${decision.boundary.detail}`
      : 'sub-task end';
    let before = 0;
    let freed = 0;
    for (const item of history) before += sizeOf(item);
    for (const step of batch.steps) {
      const item = history[step.position];
      if (!applied.archive || (item?.kind !== 'tool-call' && item?.kind !== 'tool-result')) continue;
      const tokens = this.#counter.count(step.original);
      const tombstone = evictionTombstone({
        kind: item.kind,
        call: calls.get(item.callId),
        tokens,
        taskId: batch.taskId,
        boundary: decision.boundary?.kind ?? 'sub-task end',
        itemId: step.itemId,
        archive: applied.archive,
      });
      // Net of the tombstone that takes the original's place: what a later request really no longer carries.
      freed += Math.max(0, tokens - this.#counter.count(tombstone));
      const edit = entry.edits.get(item.callId) ?? {};
      // With the original's fingerprint: a later call that reuses the id (`call_0`) keeps its own content.
      if (item.kind === 'tool-result')
        Object.assign(edit, { result: tombstone, resultOf: contentFingerprint(item.content) });
      else Object.assign(edit, { input: tombstone, inputOf: contentFingerprint(item.input) });
      entry.edits.set(item.callId, edit);
      entry.version++;
      entry.batchEnd = `${item.callId}:${item.kind === 'tool-result' ? 'result' : 'input'}`;
    }
    entry.threads.set(thread, applied.state);
    if (applied.archive) {
      this.#options.onEviction?.(entry.id, batch.steps.length, applied.archive);
      // The session's timeline shows the eviction, and the loop guards see its size (written after this answer's
      // usage, in the chain of writes).
      const compaction = {
        trigger: 'barometer-proxy',
        before,
        after: Math.max(0, before - freed),
        evicted: {
          items: batch.steps.length,
          tokensFreed: freed,
          subTask: batch.taskId,
          boundary: boundary.slice(0, 300),
          archive: { sessionId: entry.id, taskId: batch.taskId },
        },
      } as const;
      this.#write(entry, async () => {
        try {
          if (await this.#monitor.has(entry.id)) await this.#monitor.recordCompaction(entry.id, compaction);
        } catch (error) {
          this.#options.onFailure('analyze', error);
        }
      });
    }
  }

  /**
   * Records an answer: a success's usage (streamed or not) with its rate-limit headers; a 429's headers and
   * retry-after as what the quota said. Other errors are the agent's to see; nothing is recorded of them. Then, when
   * the proxy acts on the request and the session, the eviction policy reads it. In the session's chain of
   * decisions: its next request waits for this answer's usage (its verdict) and its request's analysis, so that a
   * hold, a pause or new edits apply to it; the other writes (status, receipt, eviction records, row) go in the chain
   * of writes, which no request waits for. Resolves once both are done.
   */
  record(
    entry: ProxySession,
    format: WireFormat,
    status: number,
    headers: HeaderBag,
    text: string,
    prepared: Promise<PreparedRequest>,
  ): Promise<void> {
    let written: Promise<void> = Promise.resolve();
    const decided = entry.pending
      .then(async () => {
        ({ written } = await this.#record(entry, format, status, headers, text, prepared));
      })
      .catch((error: unknown) => this.#options.onFailure('record', error));
    entry.pending = decided;
    const recorded = decided.then(() => written);
    this.#inFlight.add(recorded);
    void recorded.finally(() => this.#inFlight.delete(recorded));
    return recorded;
  }

  /** Resolves once every answer is recorded and every analysis is done (and saved): the service's close waits. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
    await Promise.all([...this.#sessions.values()].flatMap((entry) => [entry.pending, entry.writes]));
  }

  /**
   * The decision side of a record, what the session's next request depends on: the answer's usage posted (its
   * verdict may hold that request; a failed post pauses the session), the cache's last answer, the proxy breakpoint
   * the provider now holds, the receipt's modelled caches, the policy's analysis. Answers the promise of the writes
   * it queued (the session's status, the receipt).
   */
  async #record(
    entry: ProxySession,
    format: WireFormat,
    status: number,
    headers: HeaderBag,
    text: string,
    prepared: Promise<PreparedRequest>,
  ): Promise<{ written: Promise<void> }> {
    const { created, request, carried, subAgent, analyzedOnArrival } = await prepared;
    if (!created) return { written: Promise.resolve() };
    const success = status >= 200 && status < 300;
    const conversation = subAgent ?? '';
    // The conversation's answer before this one: a pause since then longer than the cache lives found this
    // request's cache cold (unless the request carried its batch already: then its answer warmed the cache).
    const before = entry.lastAnswers.get(conversation);
    const usage = success ? normalizeUsage(format, text) : undefined;
    if (usage?.available) entry.lastAnswers.set(conversation, lastAnswerOf(format, usage, this.#now()));
    const last = analyzedOnArrival ? entry.lastAnswers.get(conversation) : before;
    // What the window policy did to this request is in the session before its verdict (whose reason says so).
    if (this.#levers.length > 0) await this.#show(entry);
    const recorded = await this.#post(entry, format, status, headers, text, subAgent);
    if (recorded) {
      resumeSession(entry, this.#now());
      // The provider now holds an entry at the request's proxy breakpoint: the next batch rewrites only after it.
      if (carried?.sawEnd) entry.carried = { version: carried.version, breakpoint: carried.breakpoint };
    }
    const receipt =
      recorded && request && success
        ? this.#receipts.measure(entry, request.format, this.#described(entry, request, carried), text)
        : null;
    const written = this.#write(entry, async () => {
      await this.#show(entry);
      if (receipt) await this.#receipts.save(entry, receipt);
    });
    // Only what the session records is acted on: no analysis of a request whose answer could not be recorded.
    if (recorded && request && this.acting(entry))
      await this.#analyzeRequest(
        entry,
        request.format,
        request.raw,
        request.body,
        last,
        readVersion(request),
      );
    return { written };
  }

  /** The request in its cache model's terms: read already ({@link read}), or now, before the policy edits it. */
  #described(
    entry: ProxySession,
    request: NonNullable<PreparedRequest['request']>,
    carried: CarriedEdits | undefined,
  ): CacheRequests | null {
    if ('requests' in request) return request.requests;
    const blocks = entry.observed ? [] : editedBlocks(request.format, request.body, entry.edits);
    return this.#receipts.describe(request.format, request.body, blocks, carried);
  }

  /** Posts an answer to the monitor; false when that failed (the session is then paused). */
  async #post(
    entry: ProxySession,
    format: WireFormat,
    status: number,
    headers: HeaderBag,
    text: string,
    subAgent?: string,
  ): Promise<boolean> {
    if (status !== 429 && (status < 200 || status >= 300)) return true;
    try {
      // A 429 is no generation: what its headers and retry-after say goes to the quotas alone.
      const verdict =
        status === 429
          ? (await this.#monitor.observeQuota(entry.id, { headers })).verdict
          : (await this.#postUsage(entry, format, text, headers, subAgent)).verdict;
      // null: a session that has seen no call yet has no verdict to hold a request by.
      if (verdict)
        entry.verdict = {
          action: verdict.action,
          waitSeconds: verdict.waitSeconds,
          at: this.#now(),
          windowWait: verdict.windowWait
            ? { seconds: verdict.windowWait.seconds, until: Date.parse(verdict.windowWait.until) }
            : null,
        };
      return true;
    } catch (error) {
      this.#options.onFailure('record', error);
      // Deleted or expired meanwhile: the session's next request creates it again.
      if (error instanceof BarometerError && error.code === 'BR_ERR_SESSION_NOT_FOUND') entry.ready = null;
      this.#pause(entry, 'record', error);
      return false;
    }
  }

  /** Posts an answer's usage to the monitor. */
  #postUsage(entry: ProxySession, format: WireFormat, text: string, headers: HeaderBag, subAgent?: string) {
    return this.#monitor.postUsage(entry.id, {
      usage: normalizeUsage(format, text),
      headers,
      ...(subAgent === undefined ? {} : { subAgent }),
    });
  }
}

/** When an answer with usage came, its model, and how long the provider's cache surely outlives it. */
function lastAnswerOf(
  format: WireFormat,
  usage: Extract<ReturnType<typeof normalizeUsage>, { available: true }>,
  at: number,
): LastAnswer {
  return {
    at,
    model: usage.model,
    lifetimeMs: cacheLifetimeMs(format === 'anthropic' ? 'claude-code' : 'openai', {
      cacheWrite1hTokens: usage.cachedWrite1hTokens ?? 0,
    }),
  };
}

/** The edit version a request read while it was upstream holds (undefined: not read so). */
function readVersion(request: NonNullable<PreparedRequest['request']>): number | undefined {
  return 'version' in request ? request.version : undefined;
}

/** The batches evicted so far in every conversation of the session. */
function batchesOf(entry: ProxySession): number {
  let batches = 0;
  for (const state of entry.threads.values()) batches += state.batches;
  return batches;
}
