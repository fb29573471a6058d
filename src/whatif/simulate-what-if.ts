import { type ArchiveSink, archiveLocation, tombstoneText } from '../compaction/archive-sink.js';
import {
  type EvictionDecision,
  type EvictionPolicy,
  type EvictionPolicyState,
  initialEvictionState,
  pathOf,
} from '../compaction/eviction-policy.js';
import { type HistoryItem, itemText } from '../compaction/history-item.js';
import type { ModelPrice } from '../models/model-price.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { UsageSource } from '../usage/usage-record.js';
import { cachedCallTokens, cacheLifetimeMs, type PreviousCall } from './cached-call-tokens.js';
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
import { callCost } from './call-cost.js';
import { type ItemSize, itemSize, type SizeClass } from './item-size.js';
import type { LogCall, LogCallUsage, LogHistory } from './log-history.js';
import { type ArchivedRecord, type ArchiveReader, verifyArchive } from './verify-archive.js';
import type { WhatIfCall, WhatIfEviction, WhatIfReport, WhatIfTotals } from './what-if-report.js';

export { CACHE_LIFETIME_MS } from './cached-call-tokens.js';
export type { WhatIfCall, WhatIfEviction, WhatIfReport, WhatIfTotals } from './what-if-report.js';

/** Output tokens of the extra call an agent makes to read an evicted file again (one Read tool call). */
export const REREAD_CALL_COMPLETION_TOKENS = 60;

/** Tools whose call needs the file's current text in context (an exact `old_string`, a patch's context lines). */
const NEEDS_CONTENT = /^(?:edit|multiedit|notebookedit|str_replace_based_edit_tool)$/i;
const READS = /^read/i;
const WRITES = /^write/i;

export interface SimulateWhatIfOptions {
  policy: EvictionPolicy;
  archive: ArchiveSink;
  reader: ArchiveReader;
  /** The archive's session folder. */
  sessionId: string;
  counter: TokenCounter;
  /** The price of a call's model (null when unknown: its cost is not counted). */
  priceOf: (model: string | undefined) => ModelPrice | null | undefined;
  /** Where the agent compacts: its lowest recorded compaction, else its window; null when unknown. */
  compactionPoint: number | null;
  source: UsageSource;
  /**
   * The archive path a tombstone is sized with, by task (the tombstone put in the history names the real one). A
   * replay that archives to a temporary directory sizes tombstones as the default archive directory would write
   * them, so that its figures do not depend on a random directory name. @default the real path
   */
  tombstonePath?: (taskId: string) => string;
}

/**
 * Replays a recorded session as barometer's policy would have managed it: the same calls with the same outputs,
 * the history evicted at the policy's boundaries (archived for real through `archive`), the prompt of each call
 * re-sized with the session's calibration (its residual kept, so a call barometer would not have changed is the
 * recorded call exactly), and its cost re-priced with the provider's cache: the what-if reads from the cache what
 * its previous call sent up to the first item it changed since, in the proportion the recorded call read its
 * previous call's prompt; everything after the change is written (Anthropic) or sent uncached (OpenAI) again.
 */
export async function simulateWhatIf(log: LogHistory, options: SimulateWhatIfOptions): Promise<WhatIfReport> {
  const { counter, policy } = options;
  const sizes: ItemSize[] = log.items.map((entry) => itemSize(entry, counter));
  const features: CallFeatures[] = callFeatures(log, sizes);
  const calibration = calibrate(log, features);
  // The fit of the current call's stretch (between compactions and model switches) sizes every item it sends.
  let fit: SegmentCalibration | Calibration = calibration.segments[0] ?? calibration;
  const tokensOfClass = (sizeClass: SizeClass, tokens: number) => calibratedTokens(fit, sizeClass, tokens);

  // The what-if history: items, their provider tokens, and the logged item each came from (-1: none).
  let history: HistoryItem[] = [];
  let tokens: number[] = [];
  let sources: number[] = [];
  const localByItem = new WeakMap<HistoryItem, ItemSize>();
  const sourceByItem = new WeakMap<HistoryItem, number>();
  // A re-read's result holds a logged text: a read's result, or the text a logged write wrote.
  const rereadField = new WeakMap<HistoryItem, ArchivedRecord['field']>();
  let total = 0;
  const localOf = (item: HistoryItem): ItemSize => {
    let local = localByItem.get(item);
    if (!local) {
      local = {
        tokens: item.kind === 'opaque' ? 0 : counter.count(itemText(item)),
        sizeClass: item.kind === 'tool-call' || item.kind === 'tool-result' ? 'tool' : 'text',
      };
      localByItem.set(item, local);
    }
    return local;
  };
  const sizeOf = (item: HistoryItem) => {
    const local = localOf(item);
    return tokensOfClass(local.sizeClass, local.tokens);
  };
  const push = (item: HistoryItem, local: ItemSize, source: number) => {
    localByItem.set(item, local);
    sourceByItem.set(item, source);
    const size = sizeOf(item);
    history.push(item);
    tokens.push(size);
    sources.push(source);
    total += size;
  };
  const resize = () => {
    tokens = history.map((item) => sizeOf(item));
    total = tokens.reduce((sum, value) => sum + value, 0);
  };

  // The recorded history of the current segment, for the recorded drift.
  let realHistory: HistoryItem[] = [];
  let realSegment = 0;
  let realState: EvictionPolicyState = initialEvictionState();
  const realSizeOf = (item: HistoryItem) => sizeOf(item);

  // Per file: the what-if position of its latest full text (a read's result, a write's input).
  const latestContent = new Map<string, number>();
  const callPositions = new Map<string, number>();
  const track = (position: number) => {
    const item = history[position] as HistoryItem;
    if (item.kind === 'tool-call') {
      callPositions.set(item.callId, position);
      const path = pathOf(item);
      if (path && WRITES.test(item.name)) latestContent.set(path, position);
    } else if (item.kind === 'tool-result') {
      const call = history[callPositions.get(item.callId) ?? -1];
      const path = call?.kind === 'tool-call' && READS.test(call.name) ? pathOf(call) : undefined;
      if (path) latestContent.set(path, position);
    }
  };

  let policyState = initialEvictionState();
  let firstChange = Number.POSITIVE_INFINITY;
  let cache: PreviousCall | null = null;
  let previousResidual = 0;
  let next = 0;
  const records: ArchivedRecord[] = [];
  const evictions: WhatIfEviction[] = [];
  const calls: WhatIfCall[] = [];
  let archivedBytes = 0;
  let recaps = 0;
  let manualCompactions = 0;
  let trims = 0;
  const trimAbove = policy.options.trimResultsAboveTokens;
  // Notices of results trimmed at arrival: the file's text is not in the history (an edit reads it again first); a
  // notice the policy evicts later is archived as the notice, not as the log's text (that is archived already).
  const trimmedItems = new WeakSet<HistoryItem>();
  // Results trimmed at arrival whose middle the agent has not used yet: when its output quotes a mark of the
  // middle, barometer's agent would have read the whole from the archive first.
  let pendingTrims: Array<{ source: number; location: string; marks: string[] }> = [];
  /** A tool result over the budget enters as a notice: its head and tail, and where the whole is archived. */
  const trimAtArrival = async (item: HistoryItem, local: ItemSize, source: number) => {
    if (item.kind !== 'tool-result' || local.tokens <= trimAbove || item.archivedTo !== undefined)
      return undefined;
    // A file's text read whole is what an edit of it needs: it is never trimmed (keep what is being worked on).
    const caller = history[callPositions.get(item.callId) ?? -1];
    if (caller?.kind === 'tool-call' && READS.test(caller.name)) return undefined;
    const { path } = await options.archive.append(options.sessionId, ARRIVALS_TASK_ID, [
      { itemId: item.id, kind: 'tool-result', field: 'content', content: item.content },
    ]);
    const location = archiveLocation(path, item.id);
    records.push({ location, source, field: 'content' });
    archivedBytes += Buffer.byteLength(item.content, 'utf8');
    trims++;
    const shown = options.tombstonePath
      ? archiveLocation(options.tombstonePath(ARRIVALS_TASK_ID), item.id)
      : location;
    const notice: HistoryItem = {
      ...item,
      content: trimNotice(item.content, local.tokens, trimAbove, shown),
    };
    trimmedItems.add(notice);
    const keep = noticeKeep(trimAbove);
    pendingTrims.push({
      source,
      // The address the notice shows (and the agent would read): the archive's own path may be a temporary folder
      // whose random name must not change the figures.
      location: shown,
      // What the notice shows, and what the call itself holds (a write's text), is no sign of a use of the middle.
      marks: distinctiveMarks(
        item.content.slice(keep, -keep),
        `${item.content.slice(0, keep)}${item.content.slice(-keep)}${caller ? itemText(caller) : ''}`,
      ),
    });
    return notice;
  };
  let whatIfBase = fit.baseTokens;
  let rereads = 0;
  let rereadTokens = 0;
  const real: WhatIfTotals = { promptTokens: 0, costUsd: null, peakPromptTokens: null, compactions: 0 };
  const policyTotals: WhatIfTotals = {
    promptTokens: 0,
    costUsd: null,
    peakPromptTokens: null,
    compactions: 0,
  };
  let unpricedCalls = 0;
  let aboveCompactionPoint = 0;
  const addCost = (totals: WhatIfTotals, cost: number | null) => {
    if (cost !== null) totals.costUsd = (totals.costUsd ?? 0) + cost;
  };

  /** One call's what-if tokens, cache included, given the recorded call (its cache figures and output). */
  const whatIfTokens = (
    call: LogCall,
    usage: LogCallUsage,
    residual: number,
    extra: { completionTokens: number; reasoningTokens: number } | null,
  ) => {
    const prompt = Math.max(1, whatIfBase + total + residual);
    let unchangedPrefix = cache?.whatIfPrompt ?? 0;
    if (cache && firstChange < cache.length) {
      unchangedPrefix = whatIfBase;
      for (let position = 0; position < firstChange; position++) unchangedPrefix += tokens[position] ?? 0;
    }
    const time = Date.parse(call.timestamp);
    const figures = cachedCallTokens({
      prompt,
      unchangedPrefix,
      usage,
      previous: cache,
      segment: call.segment,
      time,
      extra,
    });
    cache = {
      realPrompt: usage.promptTokens,
      whatIfPrompt: prompt,
      length: history.length,
      segment: call.segment,
      timestamp: time,
      backToBack: extra !== null,
    };
    firstChange = Number.POSITIVE_INFINITY;
    return figures;
  };

  for (let callIndex = 0; callIndex < log.calls.length; callIndex++) {
    const call = log.calls[callIndex] as LogCall;
    const callFit = segmentOf(calibration, call.index) ?? calibration;
    if (callFit !== fit) {
      // A new stretch (a compaction, a model switch): its own fit sizes the whole history. After the agent's own
      // compaction, what it re-sends unlogged (its base grows) is not in the what-if, which never compacted.
      const start = 'start' in callFit ? callFit.start : 'start';
      whatIfBase = start === 'compaction' ? whatIfBase : callFit.baseTokens;
      fit = callFit;
      resize();
    }
    for (; next < call.itemsBefore && next < log.items.length; next++) {
      const entry = log.items[next]!;
      if (entry.segment !== realSegment) {
        realSegment = entry.segment;
        realHistory = [];
        realState = initialEvictionState();
        if (log.segmentStarts[entry.segment - 1]?.trigger === 'manual') {
          // The user asked for this compaction: barometer's agent compacts at the same call, and its history is
          // the recorded summary from here on, as the agent's was.
          manualCompactions++;
          history = [];
          sources = [];
          resize();
          latestContent.clear();
          callPositions.clear();
          policyState = initialEvictionState();
          cache = null;
          firstChange = Number.POSITIVE_INFINITY;
        }
      }
      realHistory.push(entry.item);
      localByItem.set(entry.item, sizes[next]!);
      // The agent's own compaction never happens in the what-if: what it carried over is not there.
      if (entry.carried && log.segmentStarts[entry.segment - 1]?.trigger !== 'manual') continue;
      const trimmed = trimAbove > 0 ? await trimAtArrival(entry.item, sizes[next]!, next) : undefined;
      // A redacted result's notice would show a head and a tail of the real text: sized as half the budget.
      if (trimmed)
        push(
          trimmed,
          {
            tokens:
              counter.count(itemText(trimmed)) +
              (entry.redactedChars === undefined ? 0 : Math.ceil(trimAbove / 2)),
            sizeClass: 'tool',
          },
          next,
        );
      else push(entry.item, sizes[next]!, next);
      track(history.length - 1);
    }

    // The policy sees what a live caller would: the history, the log's signals, the last known residual.
    const estimate = whatIfBase + total + previousResidual;
    const previousCall = log.calls[callIndex - 1];
    const cacheCold =
      previousCall !== undefined &&
      (previousCall.model !== call.model ||
        Date.parse(call.timestamp) - Date.parse(previousCall.timestamp) >
          cacheLifetimeMs(options.source, previousCall.usage));
    const decision: EvictionDecision = policy.decide(history, {
      state: policyState,
      signals: call.signals,
      promptTokens: estimate,
      cacheCold,
      callsSoFar: callIndex,
      ...(options.compactionPoint === null ? {} : { contextWindow: options.compactionPoint }),
      sizeOf,
    });
    policyState = decision.state;
    if (decision.evict || decision.recap) {
      const applied = await policy.apply(history, decision, {
        archive: options.archive,
        sessionId: options.sessionId,
        counter,
      });
      policyState = applied.state;
      if (decision.evict && applied.archive) {
        let freed = 0;
        let bytes = 0;
        for (const step of decision.evict.steps) {
          const item = applied.history[step.position] as HistoryItem;
          const before = tokens[step.position] ?? 0;
          const sized =
            options.tombstonePath === undefined
              ? item
              : tombstoned(
                  item,
                  tombstoneText(
                    decision.evict.taskId,
                    options.tombstonePath(decision.evict.taskId),
                    step.itemId,
                  ),
                );
          localByItem.set(item, { tokens: counter.count(itemText(sized)), sizeClass: 'tool' });
          const after = sizeOf(item);
          tokens[step.position] = after;
          sourceByItem.set(item, sources[step.position] ?? -1);
          total += after - before;
          freed += before - after;
          bytes += Buffer.byteLength(step.original, 'utf8');
          firstChange = Math.min(firstChange, step.position);
          const source = sources[step.position] ?? -1;
          const original = history[step.position] as HistoryItem;
          const field = rereadField.get(original) ?? (step.field === 'input' ? 'input' : 'content');
          if (
            source >= 0 &&
            !trimmedItems.has(original) &&
            item.kind !== 'system' &&
            'archivedTo' in item &&
            item.archivedTo
          )
            records.push({ location: item.archivedTo, source, field });
        }
        history = applied.history;
        archivedBytes += bytes;
        evictions.push({
          beforeCallIndex: call.index,
          taskId: decision.evict.taskId,
          boundary: decision.boundary?.kind ?? 'earlier boundary',
          detail: decision.boundary?.detail ?? '',
          items: decision.evict.steps.length,
          bytes,
          tokensFreed: Math.round(freed),
          archive: applied.archive,
        });
      }
      if (applied.recap?.ok) {
        recaps++;
        const recapPath = applied.recap.archives[0];
        const replaced = new Set(history);
        for (const item of applied.history) replaced.delete(item);
        for (const item of replaced) {
          const source = sourceByItem.get(item) ?? -1;
          if (source >= 0 && recapPath)
            records.push({ location: `${recapPath}#${item.id}`, source, field: 'item' });
        }
        history = applied.history;
        sources = history.map((item) => sourceByItem.get(item) ?? -1);
        resize();
        firstChange = 0;
        latestContent.clear();
        callPositions.clear();
        for (let position = 0; position < history.length; position++) track(position);
      } else history = applied.history;
    }

    // The recorded history's drift, as the same policy measures it (nothing evicted there).
    realState = policy.decide(realHistory, {
      state: realState,
      signals: call.signals,
      sizeOf: realSizeOf,
    }).state;
    const realDrift = policy.drift(realHistory, {
      state: realState,
      ...(call.usage ? { promptTokens: call.usage.promptTokens } : {}),
      sizeOf: realSizeOf,
    });

    const usage = call.usage;
    const price = options.priceOf(call.model);
    if (!usage) {
      calls.push({
        index: call.index,
        reconstructedPromptTokens: null,
        whatIfPromptTokens: null,
        whatIfCacheReadTokens: null,
        whatIfCacheWriteTokens: null,
        whatIfCostUsd: null,
        realCostUsd: null,
        driftPercent: null,
        whatIfDriftPercent: null,
        rereads: 0,
      });
      continue;
    }
    const predicted = predictedPrompt(calibration, features[callIndex]!, call.index);
    const residual = usage.promptTokens - predicted;

    // An edit of a file whose text barometer evicted, with no read of it since: the agent reads it again first.
    let callRereads = 0;
    const outputEnd = log.calls[callIndex + 1]?.itemsBefore ?? log.items.length;
    for (let position = call.itemsBefore; position < outputEnd; position++) {
      const output = log.items[position]?.item;
      if (output?.kind !== 'tool-call' || !NEEDS_CONTENT.test(output.name)) continue;
      const path = pathOf(output);
      const held = path === undefined ? undefined : latestContent.get(path);
      const evicted = held === undefined ? undefined : history[held];
      const notHeld =
        evicted !== undefined &&
        (trimmedItems.has(evicted) || ('archivedTo' in evicted && evicted.archivedTo));
      if (!path || held === undefined || !notHeld) continue;
      const source = sources[held] ?? -1;
      const original = log.items[source];
      if (!original) continue;
      const figures = whatIfTokens(call, usage, residual, {
        completionTokens: REREAD_CALL_COMPLETION_TOKENS,
        reasoningTokens: 0,
      });
      const cost = price ? callCost(figures, price, options.source) : null;
      policyTotals.promptTokens += figures.promptTokens;
      policyTotals.peakPromptTokens = Math.max(policyTotals.peakPromptTokens ?? 0, figures.promptTokens);
      addCost(policyTotals, cost);
      const readId = `reread-${call.index}-${callRereads}`;
      const readCall: HistoryItem = {
        kind: 'tool-call',
        id: readId,
        callId: readId,
        name: 'Read',
        input: { file_path: path },
      };
      const size = sizes[source]!;
      const written = original.item.kind === 'tool-call' ? writtenText(original.item.input) : undefined;
      if (original.item.kind === 'tool-call' && written === undefined) continue;
      const content = written ?? itemText(original.item);
      const readResult: HistoryItem = {
        kind: 'tool-result',
        id: `${readId}:result`,
        callId: readId,
        content,
      };
      rereadField.set(readResult, written === undefined ? 'content' : 'written-text');
      push(readCall, { tokens: counter.count(itemText(readCall)), sizeClass: 'tool' }, -1);
      track(history.length - 1);
      push(readResult, { tokens: size.tokens, sizeClass: 'tool' }, source);
      track(history.length - 1);
      rereadTokens += Math.round(tokens[tokens.length - 1] ?? 0);
      callRereads++;
    }
    // The agent's output quotes the middle of a result trimmed at arrival: it reads the whole from the archive first.
    if (pendingTrims.length > 0) {
      const quoted: string[] = [];
      for (let position = call.itemsBefore; position < outputEnd; position++) {
        const output = log.items[position]?.item;
        if (output?.kind === 'tool-call' || output?.kind === 'assistant') quoted.push(itemText(output));
      }
      const text = quoted.join('\n');
      const used =
        text === '' ? [] : pendingTrims.filter((trim) => trim.marks.some((mark) => text.includes(mark)));
      if (used.length > 0) pendingTrims = pendingTrims.filter((trim) => !used.includes(trim));
      for (const trim of used) {
        const original = log.items[trim.source];
        if (original?.item.kind !== 'tool-result') continue;
        const figures = whatIfTokens(call, usage, residual, {
          completionTokens: REREAD_CALL_COMPLETION_TOKENS,
          reasoningTokens: 0,
        });
        policyTotals.promptTokens += figures.promptTokens;
        policyTotals.peakPromptTokens = Math.max(policyTotals.peakPromptTokens ?? 0, figures.promptTokens);
        addCost(policyTotals, price ? callCost(figures, price, options.source) : null);
        const readId = `reread-${call.index}-${callRereads}`;
        const readCall: HistoryItem = {
          kind: 'tool-call',
          id: readId,
          callId: readId,
          name: 'Read',
          input: { file_path: trim.location },
        };
        const readResult: HistoryItem = {
          kind: 'tool-result',
          id: `${readId}:result`,
          callId: readId,
          content: original.item.content,
        };
        push(readCall, { tokens: counter.count(itemText(readCall)), sizeClass: 'tool' }, -1);
        track(history.length - 1);
        push(readResult, sizes[trim.source]!, trim.source);
        track(history.length - 1);
        rereadTokens += Math.round(tokens[tokens.length - 1] ?? 0);
        callRereads++;
      }
    }
    rereads += callRereads;

    const figures = whatIfTokens(call, usage, residual, null);
    previousResidual = residual;
    const realCost = price ? callCost(usage, price, options.source) : null;
    const whatIfCost = price ? callCost(figures, price, options.source) : null;
    if (!price) unpricedCalls++;
    real.promptTokens += usage.promptTokens;
    real.peakPromptTokens = Math.max(real.peakPromptTokens ?? 0, usage.promptTokens);
    addCost(real, realCost);
    policyTotals.promptTokens += figures.promptTokens;
    policyTotals.peakPromptTokens = Math.max(policyTotals.peakPromptTokens ?? 0, figures.promptTokens);
    addCost(policyTotals, whatIfCost);
    if (options.compactionPoint !== null && figures.promptTokens > options.compactionPoint)
      aboveCompactionPoint++;
    calls.push({
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
  real.compactions = new Set(log.calls.map((call) => call.segment)).size - 1;
  policyTotals.compactions = recaps + manualCompactions;

  const { verified, failures } = await verifyArchive(log, records, options.reader);
  const percent = (saved: number, of: number) => (of > 0 ? Math.round((saved / of) * 1000) / 10 : 0);
  return {
    real,
    policy: {
      ...policyTotals,
      evictions: evictions.length,
      trimmedAtArrival: trims,
      archivedItems: records.length,
      archivedBytes,
      rereads,
      rereadTokens,
      callsAboveCompactionPoint: aboveCompactionPoint,
    },
    savedPercent: percent(real.promptTokens - policyTotals.promptTokens, real.promptTokens),
    costSavedPercent:
      real.costUsd !== null && policyTotals.costUsd !== null
        ? percent(real.costUsd - policyTotals.costUsd, real.costUsd)
        : null,
    archiveVerified: failures.length === 0 && verified === records.length,
    archiveFailures: failures.slice(0, 10),
    compactionPoint: options.compactionPoint,
    calibration,
    evictions,
    calls,
    unpricedCalls,
  };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** Characters of the head and of the tail a notice shows: a quarter of the budget each, at 4 characters a token. */
const noticeKeep = (budget: number) => Math.max(1, budget);

/**
 * What marks a use of the middle of a trimmed result: its words of 16 characters or more (paths, identifiers,
 * hashes) that the notice does not show, the 20 longest.
 */
function distinctiveMarks(middle: string, shown: string): string[] {
  const marks = new Set<string>();
  for (const match of middle.matchAll(/[A-Za-z0-9_./:-]{16,}/g))
    if (!shown.includes(match[0])) marks.add(match[0]);
  return [...marks].sort((a, b) => b.length - a.length).slice(0, 20);
}

/** The archive task that holds the tool results trimmed at arrival. */
export const ARRIVALS_TASK_ID = 'arrivals';

/**
 * The notice a tool result over the budget enters the history as: its size, where the whole is, and its head and
 * tail, a quarter of the budget each (at about 4 characters a token), so that the notice takes half the budget.
 */
export function trimNotice(content: string, tokens: number, budget: number, location: string): string {
  const keep = noticeKeep(budget);
  return `[Tool result of about ${tokens} tokens trimmed at arrival; the whole is archived at ${location}]\n${content.slice(0, keep)}\n[…]\n${content.slice(-keep)}`;
}

/** An evicted item as it would read with another tombstone text. */
function tombstoned(item: HistoryItem, tombstone: string): HistoryItem {
  if (item.kind === 'tool-result') return { ...item, content: tombstone };
  if (item.kind === 'tool-call') return { ...item, input: { evicted: tombstone } };
  return item;
}

/** The text a write call wrote (its `content` argument), which reading the file again gives back. */
function writtenText(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const content = (input as Record<string, unknown>).content;
  return typeof content === 'string' ? content : undefined;
}
