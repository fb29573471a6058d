import type { PromptCacheTokens } from '../cache/prompt-cache-tokens.js';
import {
  type EvictionDecision,
  type EvictionPolicyState,
  initialEvictionState,
} from '../compaction/eviction-policy.js';
import type { HistoryItem } from '../compaction/history-item.js';
import { buildWhatIfReport } from './build-what-if-report.js';
import { cachedCallTokens, cacheLifetimeMs } from './cached-call-tokens.js';
import {
  type Calibration,
  type CallFeatures,
  calibrate,
  callFeatures,
  predictedPrompt,
  type SegmentCalibration,
  segmentOf,
} from './calibrate.js';
import { type ItemSize, itemSize } from './item-size.js';
import type { LogCall, LogCallUsage, LogHistory } from './log-history.js';
import { recapRecords } from './recap-records.js';
import type { SimulateWhatIfOptions } from './simulate-what-if-options.js';
import { tombstoneBatch } from './tombstone-batch.js';
import { type ArchivedRecord, verifyArchive } from './verify-archive.js';
import { cacheProviderOf } from './what-if-cache.js';
import { WhatIfHistory } from './what-if-history.js';
import { WhatIfLedger } from './what-if-ledger.js';
import type { WhatIfEviction, WhatIfReport } from './what-if-report.js';
import { agentCacheTtl, WhatIfRequests } from './what-if-requests.js';
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

/**
 * One what-if run: each method one step of a call (enter its stretch, add its items, decide, price, apply). The
 * history, the two request streams, the accounts, the batches and the re-reads are each their own unit; this class
 * walks the log's calls through them in the proxy's order.
 */
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
  readonly #history: WhatIfHistory;
  /** The recorded history of the current segment: the unedited stream's requests, and its drift. */
  #realHistory: HistoryItem[] = [];
  #realSegment = 0;
  #realState: EvictionPolicyState = initialEvictionState();
  #policyState = initialEvictionState();
  #next = 0;
  #previousResidual = 0;
  readonly #requests: WhatIfRequests;
  readonly #ledger: WhatIfLedger;
  readonly records: ArchivedRecord[] = [];
  readonly #evictions: WhatIfEviction[] = [];
  archivedBytes = 0;
  #recaps = 0;
  #manualCompactions = 0;
  readonly rereads: WhatIfRereads;

  constructor(log: LogHistory, options: SimulateWhatIfOptions) {
    this.#log = log;
    this.#options = options;
    this.#sizes = log.items.map((entry) => itemSize(entry, options.counter));
    this.#features = callFeatures(log, this.#sizes);
    this.#calibration = calibrate(log, this.#features);
    this.#fit = this.#calibration.segments[0] ?? this.#calibration;
    this.#whatIfBase = this.#fit.baseTokens;
    this.#history = new WhatIfHistory(options.counter, this.#fit);
    const provider = cacheProviderOf(options.source, log.calls[0]?.model);
    this.#requests = new WhatIfRequests(provider, agentCacheTtl(log.calls));
    this.#ledger = new WhatIfLedger(options);
    this.rereads = new WhatIfRereads(this, options, log, this.#sizes);
  }

  // What the re-reads read and change of the history (`WhatIfRereadHost`).
  get history(): HistoryItem[] {
    return this.#history.items;
  }

  get tokens(): number[] {
    return this.#history.tokens;
  }

  get sources(): number[] {
    return this.#history.sources;
  }

  get trimAbove(): number {
    return this.#options.policy.options.trimResultsAboveTokens;
  }

  localOf(item: HistoryItem): ItemSize {
    return this.#history.localOf(item);
  }

  push(item: HistoryItem, local: ItemSize, source: number): void {
    this.#history.push(item, local, source);
  }

  async run(): Promise<WhatIfReport> {
    for (let callIndex = 0; callIndex < this.#log.calls.length; callIndex++) {
      const call = this.#log.calls[callIndex] as LogCall;
      this.#enterStretch(call);
      await this.#addItems(call);
      const cold = this.#cacheCold(call, callIndex);
      // A switch of model is seen once the request is read, after its answer, as the proxy sees it.
      const onArrival = cold.pause && this.#options.policy.options.evictOnColdArrival;
      if (onArrival) await this.#evictOnArrival(call);
      // After a batch on arrival, this call's answer warms the cache: a later batch lands on the request after it.
      const decision = this.#decide(call, (cold.pause || cold.model) && !onArrival);
      const realDrift = this.#realDrift(call);
      this.#price(call, callIndex, decision, realDrift);
      this.#requests.advanceBreakpoint();
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
    this.#history.refit(callFit);
  }

  /** The items logged before the call, into both histories (the what-if one trims them at arrival when asked). */
  async #addItems(call: LogCall): Promise<void> {
    const log = this.#log;
    for (; this.#next < call.itemsBefore && this.#next < log.items.length; this.#next++) {
      const entry = log.items[this.#next]!;
      if (entry.segment !== this.#realSegment) this.#enterSegment(entry.segment);
      this.#realHistory.push(entry.item);
      this.#history.setLocal(entry.item, this.#sizes[this.#next]!);
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
    this.#history.clear();
    this.rereads.clear();
    this.#policyState = initialEvictionState();
    this.#requests.dropBreakpoints();
  }

  /**
   * How the call finds the provider's cache: cold by the pause (since the call before, longer than the cache surely
   * lives: Anthropic's lifetime, OpenAI's hour), or cold by another model (a cache is per model).
   */
  #cacheCold(call: LogCall, callIndex: number): { pause: boolean; model: boolean } {
    const previousCall = this.#log.calls[callIndex - 1];
    if (previousCall === undefined) return { pause: false, model: false };
    return {
      pause:
        Date.parse(call.timestamp) - Date.parse(previousCall.timestamp) >
        cacheLifetimeMs(this.#options.source, previousCall.usage),
      model: previousCall.model !== call.model,
    };
  }

  /**
   * `evictOnColdArrival`: a call that finds the cache cold by the pause carries the batch decided on its own history
   * (the proxy reads such a request before it goes upstream: ProxySessions.coldOnArrival), so the batch's rewrite falls
   * on a request that writes its whole prompt anyway. The provider holds no entry to read: the proxy's breakpoint goes
   * on the batch's last tombstone at once.
   */
  async #evictOnArrival(call: LogCall): Promise<void> {
    const decision = this.#decide(call, true);
    if (!decision.evict) return;
    await this.#apply(call, decision, call.index);
    this.#requests.advanceBreakpoint();
  }

  /** The policy sees what the proxy would: the history as sent, the log's signals, the last known residual. */
  #decide(call: LogCall, cacheCold: boolean): EvictionDecision {
    const { policy, compactionPoint } = this.#options;
    // The policy as the proxy runs it (proxy-sessions.ts): no warm-cache payback wait (the proxy gives no
    // `callsSoFar`), so the what-if gives none either; a cold cache (a pause longer than its lifetime, another
    // model) lets a pending batch go in both.
    const decision = policy.decide(this.history, {
      state: this.#policyState,
      signals: call.signals,
      promptTokens: this.#whatIfBase + this.#history.total + this.#previousResidual,
      cacheCold,
      ...(compactionPoint === null ? {} : { contextWindow: compactionPoint }),
      sizeOf: this.#history.sizeOf,
    });
    this.#policyState = decision.state;
    return this.#options.recap === true ? decision : { ...decision, recap: null };
  }

  /** The recorded history's drift, as the same policy measures it (nothing evicted there). */
  #realDrift(call: LogCall): number {
    const policy = this.#options.policy;
    const sizeOf = this.#history.sizeOf;
    this.#realState = policy.decide(this.#realHistory, {
      state: this.#realState,
      signals: call.signals,
      sizeOf,
    }).state;
    return policy.drift(this.#realHistory, {
      state: this.#realState,
      ...(call.usage ? { promptTokens: call.usage.promptTokens } : {}),
      sizeOf,
    });
  }

  /** The request the agent sent, through the unedited stream's cache. */
  #sendUnedited(call: LogCall, time: number): PromptCacheTokens {
    const items = this.#realHistory;
    return this.#requests.sendUnedited(
      {
        model: call.model,
        baseTokens: this.#fit.baseTokens,
        items,
        sizes: items.map((item) => this.#history.sizeOf(item)),
      },
      time,
    );
  }

  /** The request barometer would have sent now (the what-if history), through the what-if stream's cache. */
  #sendWhatIf(call: LogCall, time: number): PromptCacheTokens {
    return this.#requests.sendWhatIf(
      { model: call.model, baseTokens: this.#whatIfBase, items: this.history, sizes: this.tokens },
      time,
    );
  }

  /** Prices one extra call (the re-reads) of the what-if before the recorded call, with its output tokens. */
  priceExtra(call: LogCall, unedited: PromptCacheTokens, time: number, completionTokens: number): void {
    const usage = call.usage as LogCallUsage;
    const figures = cachedCallTokens({
      usage,
      unedited,
      whatIf: this.#sendWhatIf(call, time),
      extra: { completionTokens, reasoningTokens: 0 },
    });
    this.#ledger.extra(call.model, figures);
  }

  /** The call priced both ways: recorded, and as barometer would have sent it (re-reads first). */
  #price(call: LogCall, callIndex: number, decision: EvictionDecision, realDrift: number): void {
    const usage = call.usage;
    if (!usage) {
      this.#ledger.unmeasured(call.index, realDrift, decision.driftPercent);
      return;
    }
    const time = Date.parse(call.timestamp);
    const predicted = predictedPrompt(this.#calibration, this.#features[callIndex]!, call.index);
    const unedited = this.#sendUnedited(call, time);
    const outputEnd = this.#log.calls[callIndex + 1]?.itemsBefore ?? this.#log.items.length;
    const rereads = this.rereads.readBack(call, outputEnd, unedited, time);
    const whatIf = cachedCallTokens({ usage, unedited, whatIf: this.#sendWhatIf(call, time), extra: null });
    this.#previousResidual = usage.promptTokens - predicted;
    this.#ledger.measured({
      call,
      usage,
      whatIf,
      predictedPromptTokens: predicted,
      driftPercent: realDrift,
      whatIfDriftPercent: decision.driftPercent,
      rereads,
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
      this.#tombstone(carriedBy, { ...decision, evict: decision.evict }, applied);
    if (applied.recap?.ok) this.#recap(applied.history, applied.recap.archives[0]);
    else this.#history.replaceItems(applied.history);
  }

  #tombstone(
    carriedBy: number,
    decision: Parameters<typeof tombstoneBatch>[0]['decision'],
    applied: { history: HistoryItem[]; archive: string | null },
  ): void {
    const { eviction, bytes, lastPosition } = tombstoneBatch({
      history: this.#history,
      decision,
      applied: applied.history,
      archive: applied.archive as string,
      carriedBy,
      counter: this.#options.counter,
      ...(this.#options.tombstonePath ? { tombstonePath: this.#options.tombstonePath } : {}),
      onEvicted: (original, item, source, field, shown) =>
        this.rereads.evicted(original, item, source, field, shown),
    });
    this.archivedBytes += bytes;
    // As the proxy places its own breakpoint (outgoing-request.ts, proxy-breakpoint.ts); off, the what-if prices a
    // proxy without one.
    if (this.#options.proxyBreakpoint !== false && lastPosition !== undefined)
      this.#requests.placeBreakpoint(lastPosition);
    this.#evictions.push(eviction);
  }

  /** The what-if's own recap: what it replaced is archived; the cache holds nothing of the new history. */
  #recap(next: HistoryItem[], recapPath: string | undefined): void {
    this.#recaps++;
    this.records.push(...recapRecords(this.history, next, (item) => this.#history.sourceOf(item), recapPath));
    this.#history.adopt(next);
    this.#requests.dropBreakpoints();
    this.rereads.clear();
    for (let position = 0; position < next.length; position++) this.rereads.track(position);
  }

  async #report(): Promise<WhatIfReport> {
    const log = this.#log;
    const { verified, failures } = await verifyArchive(log, this.records, this.#options.reader);
    return buildWhatIfReport({
      ledger: this.#ledger,
      recordedCompactions: new Set(log.calls.map((call) => call.segment)).size - 1,
      manualCompactions: this.#manualCompactions,
      evictions: this.#evictions,
      recaps: this.#recaps,
      rereads: this.rereads,
      archivedItems: this.records.length,
      archivedBytes: this.archivedBytes,
      verified,
      failures,
      compactionPoint: this.#options.compactionPoint,
      calibration: this.#calibration,
    });
  }
}

export type { WhatIfSimulation };
