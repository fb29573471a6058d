import type { AnthropicCacheTtl } from '../cache/anthropic-cache-rules.js';
import type { PromptCacheTokens } from '../cache/prompt-cache-tokens.js';
import { archiveLocation } from '../compaction/archive-sink.js';
import {
  type EvictionDecision,
  type EvictionPolicyState,
  initialEvictionState,
} from '../compaction/eviction-policy.js';
import { evictionTombstone } from '../compaction/eviction-tombstone.js';
import { type HistoryItem, itemText } from '../compaction/history-item.js';
import { cachedCallTokens, cacheLifetimeMs } from './cached-call-tokens.js';
import {
  type Calibration,
  type CallFeatures,
  calibrate,
  calibratedTokens,
  callFeatures,
  predictedPrompt,
  type SegmentCalibration,
  segmentOf,
} from './calibrate.js';
import { callCost, whatIfCallCost } from './call-cost.js';
import { type ItemSize, itemSize } from './item-size.js';
import type { LogCall, LogCallUsage, LogHistory } from './log-history.js';
import type { SimulateWhatIfOptions } from './simulate-what-if-options.js';
import { type ArchivedRecord, verifyArchive } from './verify-archive.js';
import { cacheProviderOf, roleOf, type WhatIfBlock, WhatIfCacheStream } from './what-if-cache.js';
import type { WhatIfCall, WhatIfEviction, WhatIfReport, WhatIfTotals } from './what-if-report.js';
import { WhatIfRereads } from './what-if-rereads.js';

export { CACHE_LIFETIME_MS } from './cached-call-tokens.js';
export type { SimulateWhatIfOptions } from './simulate-what-if-options.js';
export type { WhatIfCall, WhatIfEviction, WhatIfReport, WhatIfTotals } from './what-if-report.js';
export { ARRIVALS_TASK_ID, REREAD_CALL_COMPLETION_TOKENS, trimNotice } from './what-if-rereads.js';

/**
 * Replays a recorded session as barometer's policy and its proxy would have managed it: the same calls with the same
 * outputs, the history evicted at the policy's boundaries (archived for real through `archive`, each evicted item
 * replaced by the proxy's tombstone text), each call re-sized with the session's calibration and priced by the
 * provider's prompt cache model (`src/cache/`): the request the agent sent and the one barometer would have sent each
 * go through the model, with the agent's breakpoints and the proxy's, and the what-if call is the recorded call plus
 * the difference (`cachedCallTokens`). A batch the policy decides on call N's history changes the history from call
 * N + 1 on, as the proxy applies it.
 */
export function simulateWhatIf(log: LogHistory, options: SimulateWhatIfOptions): Promise<WhatIfReport> {
  return new WhatIfSimulation(log, options).run();
}

/** Tokens of a call's figures and its cost, added to a side's totals. */
function addCall(totals: WhatIfTotals, figures: LogCallUsage, cost: number | null): void {
  totals.promptTokens += figures.promptTokens;
  totals.peakPromptTokens = Math.max(totals.peakPromptTokens ?? 0, figures.promptTokens);
  if (cost !== null) totals.costUsd = (totals.costUsd ?? 0) + cost;
}

const emptyTotals = (): WhatIfTotals => ({
  promptTokens: 0,
  costUsd: null,
  peakPromptTokens: null,
  compactions: 0,
});

/** One what-if run: each method one step of a call (enter its stretch, add its items, decide, price, apply). */
class WhatIfSimulation {
  readonly #log: LogHistory;
  readonly #options: SimulateWhatIfOptions;
  readonly #sizes: ItemSize[];
  readonly #features: CallFeatures[];
  readonly #calibration: Calibration;
  /** The fit of the current call's stretch (between compactions and model switches) sizes every item it sends. */
  #fit: SegmentCalibration | Calibration;
  #whatIfBase: number;
  /** The what-if history: items, their provider tokens, and the logged item each came from (-1: none). */
  history: HistoryItem[] = [];
  tokens: number[] = [];
  sources: number[] = [];
  total = 0;
  readonly #local = new WeakMap<HistoryItem, ItemSize>();
  readonly sourceByItem = new WeakMap<HistoryItem, number>();
  /** Block identities: one per item object (an edited item is a new object, so a new identity). */
  readonly #identity = new WeakMap<HistoryItem, string>();
  #nextIdentity = 0;
  /** The recorded history of the current segment: the unedited stream's requests, and its drift. */
  #realHistory: HistoryItem[] = [];
  #realSegment = 0;
  #realState: EvictionPolicyState = initialEvictionState();
  #policyState = initialEvictionState();
  #next = 0;
  #previousResidual = 0;
  /** The position of the last tombstone of the latest batch: the proxy's own breakpoint (Anthropic). */
  #proxyBreakpoint: number | null = null;
  /**
   * The latest batch's last tombstone, the proxy's breakpoint from the request after the one that carried the batch
   * first: that first request keeps the previous batch's breakpoint, where the provider holds an entry, as the proxy
   * does (`ProxySessions.breakpoint`).
   */
  #nextBreakpoint: number | null = null;
  readonly #ttl: AnthropicCacheTtl;
  readonly #unedited: WhatIfCacheStream;
  readonly #whatIf: WhatIfCacheStream;
  readonly records: ArchivedRecord[] = [];
  readonly #evictions: WhatIfEviction[] = [];
  readonly #calls: WhatIfCall[] = [];
  archivedBytes = 0;
  #recaps = 0;
  #manualCompactions = 0;
  readonly #real = emptyTotals();
  readonly #policyTotals = emptyTotals();
  #unpricedCalls = 0;
  #aboveCompactionPoint = 0;
  readonly rereads: WhatIfRereads;

  constructor(log: LogHistory, options: SimulateWhatIfOptions) {
    this.#log = log;
    this.#options = options;
    this.#sizes = log.items.map((entry) => itemSize(entry, options.counter));
    this.#features = callFeatures(log, this.#sizes);
    this.#calibration = calibrate(log, this.#features);
    this.#fit = this.#calibration.segments[0] ?? this.#calibration;
    this.#whatIfBase = this.#fit.baseTokens;
    // The agent's breakpoints take the lifetime its calls wrote most of (Claude Code writes 5-minute entries unless
    // the account has the 1-hour one).
    let oneHour = 0;
    let fiveMinutes = 0;
    for (const call of log.calls) {
      oneHour += call.usage?.cacheWrite1hTokens ?? 0;
      fiveMinutes += call.usage?.cacheWrite5mTokens ?? 0;
    }
    this.#ttl = oneHour > fiveMinutes ? '1h' : '5m';
    const provider = cacheProviderOf(options.source, log.calls[0]?.model);
    this.#unedited = new WhatIfCacheStream(provider, this.#ttl);
    this.#whatIf = new WhatIfCacheStream(provider, this.#ttl);
    this.rereads = new WhatIfRereads(this, options, log, this.#sizes);
  }

  get trimAbove(): number {
    return this.#options.policy.options.trimResultsAboveTokens;
  }

  localOf(item: HistoryItem): ItemSize {
    let local = this.#local.get(item);
    if (!local) {
      local = {
        tokens: item.kind === 'opaque' ? 0 : this.#options.counter.count(itemText(item)),
        sizeClass: item.kind === 'tool-call' || item.kind === 'tool-result' ? 'tool' : 'text',
      };
      this.#local.set(item, local);
    }
    return local;
  }

  setLocal(item: HistoryItem, local: ItemSize): void {
    this.#local.set(item, local);
  }

  sizeOf = (item: HistoryItem): number => {
    const local = this.localOf(item);
    return calibratedTokens(this.#fit, local.sizeClass, local.tokens);
  };

  push(item: HistoryItem, local: ItemSize, source: number): void {
    this.#local.set(item, local);
    this.sourceByItem.set(item, source);
    const size = this.sizeOf(item);
    this.history.push(item);
    this.tokens.push(size);
    this.sources.push(source);
    this.total += size;
  }

  #resize(): void {
    this.tokens = this.history.map((item) => this.sizeOf(item));
    this.total = this.tokens.reduce((sum, value) => sum + value, 0);
  }

  async run(): Promise<WhatIfReport> {
    for (let callIndex = 0; callIndex < this.#log.calls.length; callIndex++) {
      const call = this.#log.calls[callIndex] as LogCall;
      this.#enterStretch(call);
      await this.#addItems(call);
      const cold = this.#cacheCold(call, callIndex);
      const onArrival = cold && this.#options.policy.options.evictOnColdArrival;
      if (onArrival) await this.#evictOnArrival(call);
      // After a batch on arrival, the next batch lands on the request after this one, which finds the cache warm.
      const decision = this.#decide(call, cold && !onArrival);
      const realDrift = this.#realDrift(call);
      this.#price(call, callIndex, decision, realDrift);
      if (this.#nextBreakpoint !== null) {
        this.#proxyBreakpoint = this.#nextBreakpoint;
        this.#nextBreakpoint = null;
      }
      // The batch goes in the request after the one that showed its boundary, as the proxy applies it.
      await this.#apply(call, decision);
    }
    return this.#report();
  }

  /** A new stretch (a compaction, a model switch): its own fit sizes the whole history. */
  #enterStretch(call: LogCall): void {
    const callFit = segmentOf(this.#calibration, call.index) ?? this.#calibration;
    if (callFit === this.#fit) return;
    // After the agent's own compaction, what it re-sends unlogged (its base grows) is not in the what-if, which never
    // compacted.
    const start = 'start' in callFit ? callFit.start : 'start';
    this.#whatIfBase = start === 'compaction' ? this.#whatIfBase : callFit.baseTokens;
    this.#fit = callFit;
    this.#resize();
  }

  /** The items logged before the call, into both histories (the what-if one trims them at arrival when asked). */
  async #addItems(call: LogCall): Promise<void> {
    const log = this.#log;
    for (; this.#next < call.itemsBefore && this.#next < log.items.length; this.#next++) {
      const entry = log.items[this.#next]!;
      if (entry.segment !== this.#realSegment) this.#enterSegment(entry.segment);
      this.#realHistory.push(entry.item);
      this.#local.set(entry.item, this.#sizes[this.#next]!);
      // The agent's own compaction never happens in the what-if: what it carried over is not there.
      if (entry.carried && log.segmentStarts[entry.segment - 1]?.trigger !== 'manual') continue;
      const trimmed = this.trimAbove > 0 ? await this.rereads.trimAtArrival(entry, this.#next) : undefined;
      if (trimmed) this.push(trimmed.item, trimmed.local, this.#next);
      else this.push(entry.item, this.#sizes[this.#next]!, this.#next);
      this.rereads.track(this.history.length - 1);
    }
  }

  #enterSegment(segment: number): void {
    this.#realSegment = segment;
    this.#realHistory = [];
    this.#realState = initialEvictionState();
    if (this.#log.segmentStarts[segment - 1]?.trigger !== 'manual') return;
    // The user asked for this compaction: barometer's agent compacts at the same call, and its history is the
    // recorded summary from here on, as the agent's was.
    this.#manualCompactions++;
    this.history = [];
    this.sources = [];
    this.#resize();
    this.rereads.clear();
    this.#policyState = initialEvictionState();
    this.#proxyBreakpoint = null;
    this.#nextBreakpoint = null;
  }

  /**
   * Whether the call finds the provider's cache cold: a pause since the call before longer than the cache surely lives
   * (Anthropic's lifetime, OpenAI's hour), or another model (a cache is per model).
   */
  #cacheCold(call: LogCall, callIndex: number): boolean {
    const previousCall = this.#log.calls[callIndex - 1];
    return (
      previousCall !== undefined &&
      (previousCall.model !== call.model ||
        Date.parse(call.timestamp) - Date.parse(previousCall.timestamp) >
          cacheLifetimeMs(this.#options.source, previousCall.usage))
    );
  }

  /**
   * `evictOnColdArrival`: a call that finds the cache cold carries the batch decided on its own history (the caller
   * decides before sending it), so the batch's rewrite falls on a request that writes its whole prompt anyway. The
   * provider holds no entry to read: the proxy's breakpoint goes on the batch's last tombstone at once.
   */
  async #evictOnArrival(call: LogCall): Promise<void> {
    const decision = this.#decide(call, true);
    if (!decision.evict) return;
    await this.#apply(call, decision, call.index);
    if (this.#nextBreakpoint !== null) {
      this.#proxyBreakpoint = this.#nextBreakpoint;
      this.#nextBreakpoint = null;
    }
  }

  /** The policy sees what the proxy would: the history as sent, the log's signals, the last known residual. */
  #decide(call: LogCall, cacheCold: boolean): EvictionDecision {
    const { policy, compactionPoint } = this.#options;
    // The policy as the proxy runs it (proxy-sessions.ts): no warm-cache payback wait (the proxy gives no
    // `callsSoFar`), so the what-if gives none either; a cold cache (a pause longer than its lifetime, another
    // model) lets a pending batch go, as the proxy's `#cacheCold` means to (on the proxy's route path it reads the
    // answer just recorded: docs/rules.md, "Where the saving is lost", item 0).
    const decision = policy.decide(this.history, {
      state: this.#policyState,
      signals: call.signals,
      promptTokens: this.#whatIfBase + this.total + this.#previousResidual,
      cacheCold,
      ...(compactionPoint === null ? {} : { contextWindow: compactionPoint }),
      sizeOf: this.sizeOf,
    });
    this.#policyState = decision.state;
    return this.#options.recap === true ? decision : { ...decision, recap: null };
  }

  /** The recorded history's drift, as the same policy measures it (nothing evicted there). */
  #realDrift(call: LogCall): number {
    const policy = this.#options.policy;
    this.#realState = policy.decide(this.#realHistory, {
      state: this.#realState,
      signals: call.signals,
      sizeOf: this.sizeOf,
    }).state;
    return policy.drift(this.#realHistory, {
      state: this.#realState,
      ...(call.usage ? { promptTokens: call.usage.promptTokens } : {}),
      sizeOf: this.sizeOf,
    });
  }

  #identityOf(item: HistoryItem): string {
    let id = this.#identity.get(item);
    if (id === undefined) {
      id = `b${this.#nextIdentity++}`;
      this.#identity.set(item, id);
    }
    return id;
  }

  #blocks(items: readonly HistoryItem[], sizes: readonly number[]): WhatIfBlock[] {
    return items.map((item, position) => ({
      id: this.#identityOf(item),
      tokens: Math.max(0, Math.round(sizes[position] ?? 0)),
      cacheable: item.kind !== 'opaque',
      role: roleOf(item),
    }));
  }

  /** The request the agent sent, through the unedited stream's cache. */
  #sendUnedited(call: LogCall, time: number): PromptCacheTokens {
    const items = this.#realHistory;
    return this.#unedited.send(
      {
        model: call.model ?? '',
        baseTokens: Math.max(0, Math.round(this.#fit.baseTokens)),
        blocks: this.#blocks(
          items,
          items.map((item) => this.sizeOf(item)),
        ),
        proxyBreakpoint: null,
      },
      time,
    );
  }

  /** The request barometer would have sent now (the what-if history), through the what-if stream's cache. */
  sendWhatIf(call: LogCall, time: number): PromptCacheTokens {
    return this.#whatIf.send(
      {
        model: call.model ?? '',
        baseTokens: Math.max(0, Math.round(this.#whatIfBase)),
        blocks: this.#blocks(this.history, this.tokens),
        proxyBreakpoint: this.#proxyBreakpoint,
      },
      time,
    );
  }

  /** Prices one extra call (the re-reads) of the what-if before the recorded call, with its output tokens. */
  priceExtra(call: LogCall, unedited: PromptCacheTokens, time: number, completionTokens: number): void {
    const usage = call.usage as LogCallUsage;
    const figures = cachedCallTokens({
      usage,
      unedited,
      whatIf: this.sendWhatIf(call, time),
      extra: { completionTokens, reasoningTokens: 0 },
    });
    const price = this.#options.priceOf(call.model);
    addCall(this.#policyTotals, figures, price ? whatIfCallCost(figures, price, this.#options.source) : null);
  }

  /** The call priced both ways: recorded, and as barometer would have sent it (re-reads first). */
  #price(call: LogCall, callIndex: number, decision: EvictionDecision, realDrift: number): void {
    const usage = call.usage;
    if (!usage) {
      this.#calls.push({
        index: call.index,
        reconstructedPromptTokens: null,
        whatIfPromptTokens: null,
        whatIfCacheReadTokens: null,
        whatIfCacheWriteTokens: null,
        whatIfCostUsd: null,
        realCostUsd: null,
        driftPercent: round1(realDrift),
        whatIfDriftPercent: round1(decision.driftPercent),
        rereads: 0,
      });
      return;
    }
    const time = Date.parse(call.timestamp);
    const predicted = predictedPrompt(this.#calibration, this.#features[callIndex]!, call.index);
    const unedited = this.#sendUnedited(call, time);
    const outputEnd = this.#log.calls[callIndex + 1]?.itemsBefore ?? this.#log.items.length;
    const callRereads = this.rereads.readBack(call, outputEnd, unedited, time);
    const figures = cachedCallTokens({ usage, unedited, whatIf: this.sendWhatIf(call, time), extra: null });
    this.#previousResidual = usage.promptTokens - predicted;
    const price = this.#options.priceOf(call.model);
    const realCost = price ? callCost(usage, price, this.#options.source) : null;
    const whatIfCost = price ? whatIfCallCost(figures, price, this.#options.source) : null;
    if (!price) this.#unpricedCalls++;
    addCall(this.#real, usage, realCost);
    addCall(this.#policyTotals, figures, whatIfCost);
    const point = this.#options.compactionPoint;
    if (point !== null && figures.promptTokens > point) this.#aboveCompactionPoint++;
    this.#calls.push({
      index: call.index,
      reconstructedPromptTokens: Math.round(predicted),
      whatIfPromptTokens: figures.promptTokens,
      whatIfCacheReadTokens: figures.cacheReadTokens,
      whatIfCacheWriteTokens: figures.cacheWrite5mTokens + figures.cacheWrite1hTokens,
      whatIfCostUsd: whatIfCost,
      realCostUsd: realCost,
      driftPercent: round1(realDrift),
      whatIfDriftPercent: round1(decision.driftPercent),
      rereads: callRereads,
    });
  }

  /**
   * Applies a decision: the batch archived, its items replaced by tombstones, from the call `carriedBy` on (the next
   * one, as the proxy applies a batch decided on a request it forwarded).
   */
  async #apply(call: LogCall, decision: EvictionDecision, carriedBy = call.index + 1): Promise<void> {
    if (!decision.evict && !decision.recap) return;
    const { policy, counter } = this.#options;
    const applied = await policy.apply(this.history, decision, {
      archive: this.#options.archive,
      sessionId: this.#options.sessionId,
      counter,
    });
    this.#policyState = applied.state;
    if (decision.evict && applied.archive)
      this.#tombstone(carriedBy, decision, applied.history, applied.archive);
    if (applied.recap?.ok) this.#recap(applied.history, applied.recap.archives[0]);
    else this.history = applied.history;
  }

  #tombstone(carriedBy: number, decision: EvictionDecision, next: HistoryItem[], archive: string): void {
    const batch = decision.evict!;
    const { counter } = this.#options;
    const calls = new Map<string, HistoryItem>();
    for (const item of this.history) if (item.kind === 'tool-call') calls.set(item.callId, item);
    const shown = this.#options.tombstonePath?.(batch.taskId) ?? archive;
    let freed = 0;
    let bytes = 0;
    for (const step of batch.steps) {
      const archived = next[step.position] as HistoryItem;
      const original = this.history[step.position] as HistoryItem;
      if (archived.kind !== 'tool-call' && archived.kind !== 'tool-result') continue;
      // The proxy's text, sized exactly: the one tombstone of both.
      const text = evictionTombstone({
        kind: archived.kind,
        call: calls.get(archived.callId),
        tokens: counter.count(step.original),
        taskId: batch.taskId,
        boundary: decision.boundary?.kind ?? 'sub-task end',
        itemId: step.itemId,
        archive: shown,
      });
      const item = tombstoned(archived, text);
      next[step.position] = item;
      const before = this.tokens[step.position] ?? 0;
      this.#local.set(item, { tokens: counter.count(itemText(item)), sizeClass: 'tool' });
      const after = this.sizeOf(item);
      this.tokens[step.position] = after;
      const source = this.sources[step.position] ?? -1;
      this.sourceByItem.set(item, source);
      this.total += after - before;
      freed += before - after;
      bytes += Buffer.byteLength(step.original, 'utf8');
      this.rereads.evicted(original, item, source, step.field, archiveLocation(shown, step.itemId));
    }
    this.history = next;
    this.archivedBytes += bytes;
    // As the proxy places its own breakpoint (outgoing-request.ts, proxy-breakpoint.ts); off, the what-if prices a
    // proxy without one.
    if (this.#options.proxyBreakpoint !== false)
      this.#nextBreakpoint = batch.steps.at(-1)?.position ?? this.#nextBreakpoint;
    this.#evictions.push({
      beforeCallIndex: carriedBy,
      taskId: batch.taskId,
      boundary: decision.boundary?.kind ?? 'earlier boundary',
      detail: decision.boundary?.detail ?? '',
      items: batch.steps.length,
      bytes,
      tokensFreed: Math.round(freed),
      archive,
    });
  }

  /** The what-if's own recap: what it replaced is archived; the cache holds nothing of the new history. */
  #recap(next: HistoryItem[], recapPath: string | undefined): void {
    this.#recaps++;
    const replaced = new Set(this.history);
    for (const item of next) replaced.delete(item);
    for (const item of replaced) {
      const source = this.sourceByItem.get(item) ?? -1;
      if (source >= 0 && recapPath)
        this.records.push({ location: archiveLocation(recapPath, item.id), source, field: 'item' });
    }
    this.history = next;
    this.sources = next.map((item) => this.sourceByItem.get(item) ?? -1);
    this.#resize();
    this.#proxyBreakpoint = null;
    this.#nextBreakpoint = null;
    this.rereads.clear();
    for (let position = 0; position < next.length; position++) this.rereads.track(position);
  }

  async #report(): Promise<WhatIfReport> {
    const log = this.#log;
    this.#real.compactions = new Set(log.calls.map((call) => call.segment)).size - 1;
    // The user's own compactions, which the what-if makes too; its recaps are its own, counted apart.
    this.#policyTotals.compactions = this.#manualCompactions;
    const { verified, failures } = await verifyArchive(log, this.records, this.#options.reader);
    const percent = (saved: number, of: number) => (of > 0 ? Math.round((saved / of) * 1000) / 10 : 0);
    const real = this.#real;
    const policy = this.#policyTotals;
    return {
      real,
      policy: {
        ...policy,
        evictions: this.#evictions.length,
        recaps: this.#recaps,
        trimmedAtArrival: this.rereads.trims,
        archivedItems: this.records.length,
        archivedBytes: this.archivedBytes,
        rereads: this.rereads.count,
        quotedRereads: this.rereads.quoted,
        rereadTokens: this.rereads.tokens,
        callsAboveCompactionPoint: this.#aboveCompactionPoint,
      },
      savedPercent: percent(real.promptTokens - policy.promptTokens, real.promptTokens),
      costSavedPercent:
        real.costUsd !== null && policy.costUsd !== null
          ? percent(real.costUsd - policy.costUsd, real.costUsd)
          : null,
      archiveVerified: failures.length === 0 && verified === this.records.length,
      archiveFailures: failures.slice(0, 10),
      compactionPoint: this.#options.compactionPoint,
      calibration: this.#calibration,
      evictions: this.#evictions,
      calls: this.#calls,
      unpricedCalls: this.#unpricedCalls,
    };
  }
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** An evicted item as it reads with the proxy's tombstone text (its archive address kept). */
function tombstoned(item: HistoryItem, tombstone: string): HistoryItem {
  if (item.kind === 'tool-result') return { ...item, content: tombstone };
  if (item.kind === 'tool-call') return { ...item, input: { evicted: tombstone } };
  return item;
}

export type { WhatIfSimulation };
