import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import * as z from 'zod';
import type { ArchiveSink } from '../compaction/archive-sink.js';
import {
  EvictionPolicy,
  type EvictionPolicyState,
  initialEvictionState,
} from '../compaction/eviction-policy.js';
import { type HistoryItem, itemText } from '../compaction/history-item.js';
import { pathOf } from '../compaction/plan-batch.js';
import { commandOf } from '../compaction/sub-task-boundary.js';
import { canonicalModelId, normalizeModelId } from '../models/model-id.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { normalizeUsage } from '../usage/normalize-usage.js';
import type { HeaderBag } from '../usage/rate-limit-headers.js';
import { cacheLifetimeMs } from '../whatif/cached-call-tokens.js';
import { reportedBy } from './requested-output.js';
import { type SessionSource, threadKey, type WireFormat } from './session-key.js';
import { applyEdits, type EditBook, historyOf } from './wire-history.js';
import { locateEdits, type WireCopy } from './wire-splice.js';

type Json = Record<string, unknown>;

/** Where a proxy step failed: each is counted in /metrics, and the request went on unchanged. */
export type ProxyStage = 'session' | 'edit' | 'analyze' | 'record' | 'persist';

/**
 * A session's edits and policy states as kept in `<data dir>/proxy/<session>.json`: after a restart the session's
 * next request carries the same tombstones (the cache stays warm), and the policy goes on where it was.
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
});

/** What the proxy keeps of one session, in memory: its edits (re-applied to every request) and policy states. */
export interface ProxySession {
  id: string;
  /** Every edit made so far, by call id: the same tombstones go into every later request. */
  edits: EditBook;
  /** Bumped whenever `edits` changes. */
  version: number;
  /** The latest requests (at most two: a conversation and a sub-agent's) with where their edited blocks are. */
  copies: WireCopy[];
  /** The policy's state per conversation of the session (Claude Code's sub-agents share its session id). */
  threads: Map<string, EvictionPolicyState>;
  /** The analysis of the latest request: the next request of the session waits for it before it is edited. */
  pending: Promise<void>;
  /** The monitor's session exists (created by the proxy, or found). */
  ready: Promise<boolean> | null;
  /** The latest verdict the monitor answered, and when. */
  verdict: { action: string; waitSeconds: number | null; at: number } | null;
  /**
   * The latest answer with usage: when it came, its model, and how long the provider's cache surely outlives it
   * (`cacheLifetimeMs`): a request after a longer pause, or of another model, finds the cache cold.
   */
  lastAnswer?: { at: number; model: string | undefined; lifetimeMs: number };
  /** Token counts of items already seen, by item id and length. */
  sizes: Map<string, number>;
  /** What was last written to (or read from) the session's file. */
  saved: string;
}

export interface ProxySessionsOptions {
  monitor: SessionMonitor;
  archive: ArchiveSink;
  now?: () => number;
  counter?: TokenCounter;
  /** Called with every internal failure; the request it concerned went on unchanged. */
  onFailure: (stage: ProxyStage, error: unknown) => void;
  /** A batch was evicted: how many items, and the archive. */
  onEviction?: (sessionId: string, items: number, archive: string) => void;
  /** Where each session's edits are kept across restarts (normally `<data dir>/proxy`); none: in memory only. */
  directory?: string;
}

const AGENT_OF: Partial<Record<SessionSource, 'claude-code' | 'codex'>> = {
  'claude-code-header': 'claude-code',
  'claude-code-metadata': 'claude-code',
  'codex-turn-metadata': 'codex',
  'prompt-cache-key': 'codex',
};

/** What an evicted item was, in a few words: the tool and the file or command it named. */
function describeItem(call: HistoryItem | undefined): string {
  if (call?.kind !== 'tool-call') return 'tool output';
  const target = pathOf(call) ?? commandOf(call);
  const short = target.length > 80 ? `${target.slice(0, 77)}...` : target;
  return short === '' || short === '{}' ? call.name : `${call.name} ${short}`;
}

/**
 * The proxy's memory of its sessions and the work it does for them: the monitor's session (created on the first
 * request), the usage of every answer, and, in act mode, the eviction policy run on each request's history after it
 * went upstream, whose batches become edits that every later request of the session carries.
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

  constructor(options: ProxySessionsOptions) {
    this.#options = options;
    this.#monitor = options.monitor;
    this.#archive = options.archive;
    this.#now = options.now ?? Date.now;
    this.#counter = options.counter ?? createTokenCounter();
    this.#policy = new EvictionPolicy({}, this.#counter);
  }

  /** The session's entry, made on first use. */
  session(id: string): ProxySession {
    let entry = this.#sessions.get(id);
    if (!entry) {
      entry = {
        id,
        edits: new Map(),
        version: 0,
        copies: [],
        threads: new Map(),
        pending: Promise.resolve(),
        ready: null,
        verdict: null,
        sizes: new Map(),
        saved: '',
      };
      entry.pending = this.#restore(entry);
      this.#sessions.set(id, entry);
    }
    return entry;
  }

  #file(entry: ProxySession): string | undefined {
    return this.#options.directory === undefined
      ? undefined
      : join(this.#options.directory, `${entry.id}.json`);
  }

  /** Reads back the session's edits and policy states kept by an earlier run, if any. */
  async #restore(entry: ProxySession): Promise<void> {
    const file = this.#file(entry);
    if (!file) return;
    try {
      const text = await readFile(file, 'utf8');
      const saved = SavedProxySessionSchema.parse(JSON.parse(text));
      for (const [callId, edit] of saved.edits) entry.edits.set(callId, edit);
      for (const [thread, state] of saved.threads) entry.threads.set(thread, state);
      entry.version++;
      entry.saved = text;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#options.onFailure('persist', error);
    }
  }

  /** Writes the session's edits and policy states when they changed (a temporary file, then renamed). */
  async #save(entry: ProxySession): Promise<void> {
    const file = this.#file(entry);
    if (!file) return;
    const text = JSON.stringify({ edits: [...entry.edits], threads: [...entry.threads] });
    if (text === entry.saved) return;
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(`${file}.tmp`, text);
      await rename(`${file}.tmp`, file);
      entry.saved = text;
    } catch (error) {
      this.#options.onFailure('persist', error);
    }
  }

  /** Makes sure the monitor has the session (the request's model and max output); false when it could not. */
  ensure(entry: ProxySession, model: string, source: SessionSource, body?: Json): Promise<boolean> {
    entry.ready ??= (async () => {
      try {
        if (await this.#monitor.has(entry.id)) return true;
        const agent = AGENT_OF[source];
        await this.#monitor.create({ id: entry.id, model, ...(agent ? { agent } : {}), ...reportedBy(body) });
        return true;
      } catch (error) {
        // A session created meanwhile (by a concurrent request, a hook or watch) is as good.
        if (await this.#monitor.has(entry.id).catch(() => false)) return true;
        this.#options.onFailure('session', error);
        entry.ready = null;
        return false;
      }
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
   * Runs the eviction policy on a request's history (edits already applied) after it went upstream; a batch is
   * archived first, and only then do its tombstones join the session's edits, for the next request on. Chained:
   * one analysis per session at a time, in request order.
   */
  analyze(entry: ProxySession, format: WireFormat, raw: Buffer, body: Json): void {
    entry.pending = entry.pending
      .then(async () => {
        const version = entry.version;
        this.#copy(entry, format, raw, body);
        applyEdits(format, body, entry.edits);
        await setImmediate();
        await this.#analyze(entry, format, body);
        // A new batch: where its blocks are in this request, for the next one (`body` now holds tombstones).
        if (entry.version !== version) {
          await setImmediate();
          this.#copy(entry, format, raw, JSON.parse(raw.toString('utf8')) as Json);
        }
        await this.#save(entry);
      })
      .catch((error: unknown) => this.#options.onFailure('analyze', error));
  }

  /** Keeps the request and where its edited blocks are, so that the session's next request is edited unparsed. */
  #copy(entry: ProxySession, format: WireFormat, raw: Buffer, body: Json): void {
    if (entry.edits.size === 0) return;
    const copy = locateEdits(format, raw, body, entry.edits, entry.version);
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
  #cacheCold(entry: ProxySession, body: Json): boolean {
    const last = entry.lastAnswer;
    if (!last) return false;
    if (this.#now() - last.at > last.lifetimeMs) return true;
    const model = typeof body.model === 'string' ? body.model : undefined;
    const family = (id: string) => canonicalModelId(normalizeModelId(id));
    return model !== undefined && last.model !== undefined && family(model) !== family(last.model);
  }

  async #analyze(entry: ProxySession, format: WireFormat, body: Json): Promise<void> {
    const thread = threadKey(format, body);
    const history = historyOf(format, body, entry.edits);
    const sizeOf = this.#sizeOf(entry);
    const decision = this.#policy.decide(history, {
      state: entry.threads.get(thread) ?? initialEvictionState(),
      sizeOf,
      cacheCold: this.#cacheCold(entry, body),
    });
    const batch = decision.evict;
    if (!batch) {
      entry.threads.set(thread, decision.state);
      return;
    }
    const applied = await this.#policy.apply(
      history,
      { ...decision, recap: null },
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
      freed += tokens;
      const what = `${item.kind === 'tool-result' ? 'result of' : 'input of'} ${describeItem(calls.get(item.callId))}`;
      const tombstone = `[barometer evicted this ${what} (${tokens} tokens) when sub-task ${batch.taskId} ended (${boundary}). The original is record "${step.itemId}" in ${applied.archive}: open that file with your Read tool if you need it.]`;
      const edit = entry.edits.get(item.callId) ?? {};
      if (item.kind === 'tool-result') edit.result = tombstone;
      else edit.input = tombstone;
      entry.edits.set(item.callId, edit);
      entry.version++;
    }
    entry.threads.set(thread, applied.state);
    if (applied.archive) {
      this.#options.onEviction?.(entry.id, batch.steps.length, applied.archive);
      // The session's timeline shows the eviction, and the loop guards see its size.
      if (await this.#monitor.has(entry.id))
        await this.#monitor.recordCompaction(entry.id, {
          trigger: 'barometer-proxy',
          before,
          after: Math.max(0, before - freed),
        });
    }
  }

  /**
   * Records an answer: a success's usage (streamed or not) with its rate-limit headers; a 429's headers and
   * retry-after as what the quota said. Other errors are the agent's to see; nothing is recorded of them.
   */
  record(
    entry: ProxySession,
    format: WireFormat,
    status: number,
    headers: HeaderBag,
    text: string,
    ready: Promise<boolean>,
  ): Promise<void> {
    const recorded = this.#record(entry, format, status, headers, text, ready);
    this.#inFlight.add(recorded);
    void recorded.finally(() => this.#inFlight.delete(recorded));
    return recorded;
  }

  /** Resolves once every answer is recorded and every analysis is done (and saved): the service's close waits. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
    await Promise.all([...this.#sessions.values()].map((entry) => entry.pending));
  }

  async #record(
    entry: ProxySession,
    format: WireFormat,
    status: number,
    headers: HeaderBag,
    text: string,
    ready: Promise<boolean>,
  ): Promise<void> {
    if (status !== 429 && (status < 200 || status >= 300)) return;
    if (!(await ready)) return;
    try {
      // A 429 is no generation: what its headers and retry-after say goes to the quotas alone.
      const verdict =
        status === 429
          ? (await this.#monitor.observeQuota(entry.id, { headers })).verdict
          : (await this.#postUsage(entry, format, text, headers)).verdict;
      // null: a session that has seen no call yet has no verdict to hold a request by.
      if (verdict)
        entry.verdict = { action: verdict.action, waitSeconds: verdict.waitSeconds, at: this.#now() };
    } catch (error) {
      this.#options.onFailure('record', error);
    }
  }

  /** Posts an answer's usage to the monitor, and remembers when it came for the cache's lifetime. */
  #postUsage(entry: ProxySession, format: WireFormat, text: string, headers: HeaderBag) {
    const usage = normalizeUsage(format, text);
    if (usage.available) {
      entry.lastAnswer = {
        at: this.#now(),
        model: usage.model,
        lifetimeMs: cacheLifetimeMs(format === 'anthropic' ? 'claude-code' : 'openai', {
          cacheWrite1hTokens: usage.cachedWrite1hTokens ?? 0,
        }),
      };
    }
    return this.#monitor.postUsage(entry.id, { usage, headers });
  }
}
