import { ANTHROPIC_CACHE_MULTIPLIERS } from '../cache/anthropic-cache-rules.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { ArchiveAddressSchema, type ArchiveEntry, type ArchiveSink, tombstoneItem } from './archive-sink.js';
import { type CompactionOutcome, compactHistory } from './compact-history.js';
import {
  type EvictionPolicyOptions,
  type ResolvedEvictionPolicyOptions,
  resolveEvictionPolicyOptions,
} from './eviction-policy-options.js';
import { type HistoryItem, itemText, type ToolResultItem } from './history-item.js';
import { parseOrThrow } from './parse-or-throw.js';
import { originalOf, pathOf, planBatch, supersededResults, TOMBSTONE_TOKENS_ESTIMATE } from './plan-batch.js';
import type { EvictionStep } from './plan-eviction.js';
import { type BoundaryKind, detectBoundaries, type SubTaskBoundary } from './sub-task-boundary.js';

// The policy's API in one place: its options and defaults, and the file a tool call names.
export {
  DEFAULT_COMMAND_PATTERNS,
  DEFAULT_MIN_ARGUMENT_TOKENS,
  DEFAULT_MIN_FREED_TOKENS,
  DEFAULT_MIN_RESULT_TOKENS,
  DEFAULT_RECAP_ABOVE_PERCENT,
  type EvictionPolicyOptions,
  EvictionPolicyOptionsSchema,
  type ResolvedEvictionPolicyOptions,
  resolveEvictionPolicyOptions,
} from './eviction-policy-options.js';
export { pathOf } from './plan-batch.js';

/**
 * What a rewritten token costs and what a read one costs, as multipliers of the input price, when the caller does not
 * say (`EvictionContext.cacheMultipliers`): Anthropic's 5-minute write and its read, from the cache model
 * (`ANTHROPIC_CACHE_MULTIPLIERS`, docs/rules.md "Prompt caches").
 */
export const DEFAULT_REWRITE_MULTIPLIERS: Readonly<{ write: number; read: number }> = {
  write: ANTHROPIC_CACHE_MULTIPLIERS.write5m,
  read: ANTHROPIC_CACHE_MULTIPLIERS.read,
};

/** What the policy carries from one call to the next: plain JSON. */
export interface EvictionPolicyState {
  /** Items scanned for boundaries. */
  scanned: number;
  /** Items before this position belong to completed sub-tasks. */
  completedUpTo: number;
  /** Completed sub-tasks' tool items before this position were evicted (or kept by a rule). */
  evictedUpTo: number;
  /** Batches evicted so far: the next archive is `subtask-<batches + 1>`. */
  batches: number;
  /** Plan items seen completed (their text). */
  completedPlanItems: string[];
}

export function initialEvictionState(): EvictionPolicyState {
  return { scanned: 0, completedUpTo: 0, evictedUpTo: 0, batches: 0, completedPlanItems: [] };
}

/** What the caller knows besides the history. */
export interface EvictionContext {
  state?: EvictionPolicyState;
  /**
   * Boundaries the history does not show: `task-complete` (Codex `task_complete`, an agent loop's own "done"),
   * `user-request` (a new request reported apart from the messages), `task-mark` (the caller marks a task done).
   */
  signals?: readonly BoundaryKind[];
  /** The prompt tokens of the call about to be made (the last usage, or an estimate). */
  promptTokens?: number;
  /** The agent's window (its compaction point), for the recap fallback. */
  contextWindow?: number;
  /** Tokens of one item as the provider counts them. @default the counter's count of the item's text */
  sizeOf?: (item: HistoryItem) => number;
  /**
   * The provider's cache has expired before this call (a pause longer than its lifetime, a model switch): a change
   * of the prompt costs no cache rewrite now (`evictWhenCold`).
   */
  cacheCold?: boolean;
  /** Calls the session has made so far (`evictWhenCold`: a warm batch must pay back within as many). */
  callsSoFar?: number;
  /**
   * History positions (exclusive ends) where the provider holds a cache entry the next request can read (the proxy's
   * own breakpoint at the end of its last batch). A warm batch rewrites from the largest of them at or before its first
   * change; none (or none before it): from the end of the system prompt (position 0).
   */
  cacheBreakpoints?: readonly number[];
  /** The price of a cache write and of a read, as multipliers of the input price. @default DEFAULT_REWRITE_MULTIPLIERS */
  cacheMultipliers?: { write: number; read: number };
}

/** One batch to evict: every step's original goes to the archive `taskId` before its tombstone replaces it. */
export interface EvictionBatch {
  taskId: string;
  steps: EvictionStep[];
  /** Estimated tokens freed (the originals minus about 40 tokens per tombstone). */
  freedTokens: number;
  /** The first position whose content changes: the provider's cache is written again from here on. */
  firstChanged: number;
}

/** What the policy decided for this call: data, applied by {@link EvictionPolicy.apply}. */
export interface EvictionDecision {
  state: EvictionPolicyState;
  boundary: SubTaskBoundary | null;
  evict: EvictionBatch | null;
  /** Recap the history (compactHistory) because the prompt, after evicting, is still above the threshold. */
  recap: { promptTokens: number; thresholdTokens: number } | null;
  /** Share of the prompt held by stale content (completed sub-tasks' tool items not referenced since), 0–100. */
  driftPercent: number;
  reasons: string[];
}

export interface ApplyEvictionOptions {
  archive: ArchiveSink;
  sessionId: string;
  /** For the recap fallback. */
  counter?: TokenCounter;
}

export interface ApplyEvictionResult {
  history: HistoryItem[];
  state: EvictionPolicyState;
  /** Positions whose content was replaced by a tombstone. */
  evicted: number[];
  /** The archive file of the batch, when one was written. */
  archive: string | null;
  /** The recap fallback's outcome, when it ran. */
  recap: CompactionOutcome | null;
}

/**
 * barometer's eviction policy: one object for the live path (`SessionMonitor.compact` with a policy, the AI SDK
 * middleware) and the what-if replay. At a sub-task boundary (a plan item completed, a command that records
 * finished work, a new user request, a task marked or completed by the caller) it evicts, in one batch, the
 * completed sub-tasks' tool results and large tool-call arguments: archived first, then tombstones, tool call and
 * result pairs intact. It keeps the latest plan and the latest content of the files the sub-task edited, and
 * falls back to a recap when the prompt stays above `recapAbovePercent` of the window. Between boundaries it
 * changes nothing, so the provider's prompt cache stays valid. `decide` is pure; `apply` writes the archive.
 *
 * @example
 * const policy = new EvictionPolicy();
 * const decision = policy.decide(history, { state, promptTokens: 120_000, contextWindow: 167_000 });
 * const { history: next, state: after } = await policy.apply(history, decision, { archive, sessionId: 'run-1' });
 */
export class EvictionPolicy {
  readonly options: Readonly<ResolvedEvictionPolicyOptions>;
  readonly #patterns: RegExp[];
  readonly #kinds: ReadonlySet<BoundaryKind>;
  readonly #counter: TokenCounter;
  readonly #sizes = new WeakMap<HistoryItem, number>();

  /**
   * @param options thresholds, each with a default (see the DEFAULT_* constants and docs/rules.md)
   * @param counter counts item tokens when `decide` is given no `sizeOf` @default o200k_base
   * @throws BarometerValidationError on an unknown key or a value out of range
   */
  constructor(options: EvictionPolicyOptions = {}, counter: TokenCounter = createTokenCounter()) {
    this.options = resolveEvictionPolicyOptions(options);
    this.#patterns = this.options.commandPatterns.map((source) => new RegExp(source));
    this.#kinds = new Set(this.options.boundaries);
    this.#counter = counter;
  }

  #size(item: HistoryItem, sizeOf: EvictionContext['sizeOf']): number {
    if (sizeOf) return sizeOf(item);
    let size = this.#sizes.get(item);
    if (size === undefined) {
      // As countHistoryTokens counts: opaque parts (images, thinking signatures) are not text a tokenizer can count.
      size = item.kind === 'opaque' ? 0 : this.#counter.count(itemText(item));
      this.#sizes.set(item, size);
    }
    return size;
  }

  /**
   * Decides what to do before the next call: nothing, evict a batch, recap, or both. Pure: the history and the
   * state are not changed. Without a state, the whole history is scanned (a live caller may keep none: evicted
   * items carry their tombstones).
   */
  decide(history: readonly HistoryItem[], context: EvictionContext = {}): EvictionDecision {
    const previous = context.state ?? initialEvictionState();
    const state: EvictionPolicyState = { ...previous, completedPlanItems: [...previous.completedPlanItems] };
    const reasons: string[] = [];
    const scan = { completedPlanItems: state.completedPlanItems };
    const found = detectBoundaries(history, Math.min(state.scanned, history.length), scan, {
      commandPatterns: this.#patterns,
      kinds: this.#kinds,
    });
    state.completedPlanItems = scan.completedPlanItems;
    state.scanned = found.resumeAt;
    let boundary = found.boundaries.reduce<SubTaskBoundary | null>(
      (latest, candidate) => (latest === null || candidate.end >= latest.end ? candidate : latest),
      null,
    );
    const signal = context.signals?.find((kind) => this.#kinds.has(kind));
    if (signal !== undefined && (boundary === null || boundary.end < history.length)) {
      boundary = { kind: signal, end: history.length, detail: `signalled by the caller (${signal})` };
    }
    if (boundary && boundary.end > state.completedUpTo) {
      state.completedUpTo = boundary.end;
      reasons.push(`boundary: ${boundary.kind} (${boundary.detail}); items before ${boundary.end} are done`);
    } else reasons.push('no sub-task boundary since the last call: the prompt prefix is left as it is');

    let evict: EvictionBatch | null = null;
    const cold = context.cacheCold === true && this.options.evictWhenCold;
    const sizeOf = (item: HistoryItem) => this.#size(item, context.sizeOf);
    // Superseded results anywhere go with a batch (and make one when the cache is cold anyway).
    const stale = (): EvictionStep[] => {
      if (!this.options.evictSuperseded) return [];
      return supersededResults(history, state.completedUpTo, this.options.keepFilesInUse)
        .filter((position) => sizeOf(history[position]!) > this.options.minResultTokens)
        .map((position) => {
          const item = history[position] as ToolResultItem;
          return {
            position,
            itemId: item.id,
            kind: 'tool-result',
            field: 'content',
            original: originalOf(item),
          };
        });
    };
    if (state.completedUpTo > state.evictedUpTo || (cold && this.options.evictSuperseded)) {
      // Every completed item not yet evicted is judged again: an item kept for the sub-task that just ended (a file
      // it edited) or left over from a small batch goes at a later boundary.
      const pending = state.completedUpTo > state.evictedUpTo;
      const plan = pending
        ? planBatch(history, 0, state.completedUpTo, this.options, sizeOf)
        : { steps: [], freed: 0, resumeAt: state.evictedUpTo };
      const planned = new Set(plan.steps.map((step) => step.position));
      for (const step of stale()) {
        if (planned.has(step.position)) continue;
        plan.steps.push(step);
        plan.freed += sizeOf(history[step.position]!) - TOMBSTONE_TOKENS_ESTIMATE;
      }
      plan.steps.sort((a, b) => a.position - b.position);
      if (plan.steps.length === 0) {
        reasons.push('nothing to evict in the completed sub-tasks (every tool item is short or kept)');
        if (pending) state.evictedUpTo = plan.resumeAt;
      } else if (plan.freed < this.options.minFreedTokens && !cold) {
        reasons.push(
          `${plan.steps.length} items would free about ${plan.freed} tokens, less than minFreedTokens ${this.options.minFreedTokens}: they wait for the next boundary`,
        );
      } else if (!cold && this.#waitsForColdCache(history, plan, context)) {
        reasons.push(
          `${plan.steps.length} items would free about ${plan.freed} tokens, but rewriting the cache after them would not pay back within ${context.callsSoFar} calls: they wait for a cold cache`,
        );
      } else {
        const taskId = `subtask-${state.batches + 1}`;
        evict = { taskId, steps: plan.steps, freedTokens: plan.freed, firstChanged: plan.steps[0]!.position };
        if (pending) state.evictedUpTo = plan.resumeAt;
        reasons.push(
          `evict ${plan.steps.length} items of the completed sub-tasks (about ${plan.freed} tokens) to ${taskId}${cold ? ' (the cache is cold anyway)' : ''}`,
        );
      }
    }

    let recap: EvictionDecision['recap'] = null;
    if (
      context.promptTokens !== undefined &&
      context.contextWindow !== undefined &&
      context.contextWindow > 0
    ) {
      const after = context.promptTokens - (evict?.freedTokens ?? 0);
      const threshold = Math.floor((context.contextWindow * this.options.recapAbovePercent) / 100);
      if (after > threshold) {
        recap = { promptTokens: after, thresholdTokens: threshold };
        reasons.push(
          `about ${after} prompt tokens after evicting > ${threshold} (${this.options.recapAbovePercent}% of the window): recap`,
        );
      }
    }
    const driftPercent = this.drift(history, {
      state,
      ...(evict ? { leaving: evict.steps.map((step) => step.position) } : {}),
      ...(context.promptTokens === undefined ? {} : { promptTokens: context.promptTokens }),
      ...(context.sizeOf ? { sizeOf: context.sizeOf } : {}),
    });
    return { state, boundary, evict, recap, driftPercent, reasons };
  }

  /**
   * With `evictWhenCold`, a batch while the cache is warm waits when it would not pay back soon. Its next request
   * rewrites every token from the largest cache breakpoint at or before the batch's first change (`cacheBreakpoints`;
   * 0, the end of the system prompt, when none) to the end of the history, less what it frees, at the write price,
   * where without the batch it would have read them all; each later request reads `freed` tokens fewer. The batch
   * goes once the requests that takes are no more than the session has made so far (a session is expected to last
   * about as long again), or when the prompt is above half the window (the agent's compaction must stay out of reach).
   */
  #waitsForColdCache(
    history: readonly HistoryItem[],
    plan: { steps: EvictionStep[]; freed: number },
    context: EvictionContext,
  ): boolean {
    if (!this.options.evictWhenCold || context.callsSoFar === undefined) return false;
    if (
      context.promptTokens !== undefined &&
      context.contextWindow !== undefined &&
      context.promptTokens > context.contextWindow / 2
    )
      return false;
    const first = plan.steps[0]?.position ?? history.length;
    const from = (context.cacheBreakpoints ?? []).reduce(
      (best, point) => (point <= first && point > best ? point : best),
      0,
    );
    let after = 0;
    for (let position = from; position < history.length; position++)
      after += this.#size(history[position] as HistoryItem, context.sizeOf);
    return paybackCalls(after, plan.freed, context.cacheMultipliers) > context.callsSoFar;
  }

  /**
   * Drift (seed 000's `contextDriftPercent`, measured): the share of the prompt held by stale content — tool
   * results and arguments of completed sub-tasks (before `state.completedUpTo`), not evicted, whose file (when
   * they name one) no tool call has named since. The denominator is the larger of the history's tokens and
   * `promptTokens` (the prompt also holds the system prompt and tools). 0–100.
   */
  drift(
    history: readonly HistoryItem[],
    context: Pick<EvictionContext, 'promptTokens' | 'sizeOf'> & {
      state: EvictionPolicyState;
      /** Positions about to be evicted (not stale any more). */
      leaving?: readonly number[];
    },
  ): number {
    const { state } = context;
    const leaving = new Set(context.leaving);
    const namedSince = new Set<string>();
    for (let position = state.completedUpTo; position < history.length; position++) {
      const item = history[position];
      if (item?.kind === 'tool-call') {
        const path = pathOf(item);
        if (path) namedSince.add(path);
      }
    }
    const pathByCall = new Map<string, string | undefined>();
    let stale = 0;
    let total = 0;
    for (let position = 0; position < history.length; position++) {
      const item = history[position] as HistoryItem;
      const size = this.#size(item, context.sizeOf);
      total += size;
      if (item.kind === 'tool-call') pathByCall.set(item.callId, pathOf(item));
      if (position >= state.completedUpTo || leaving.has(position)) continue;
      if ((item.kind !== 'tool-call' && item.kind !== 'tool-result') || item.archivedTo !== undefined)
        continue;
      const path = pathByCall.get(item.callId);
      if (path !== undefined && namedSince.has(path)) continue;
      stale += size;
    }
    const denominator = Math.max(total, context.promptTokens ?? 0);
    return denominator > 0 ? Math.min(100, (stale / denominator) * 100) : 0;
  }

  /**
   * Applies a decision: the batch's originals are appended to the archive (`<session>/<taskId>`) and only then
   * replaced by tombstones (a result's content, a call's input as `{ evicted: tombstone }`); then, when the
   * decision says so, the recap fallback runs (`compactHistory` with `keepTokens` and `minGainPercent`). The
   * caller's history is not changed: a new array is returned. If the archive write fails, the error propagates.
   * @throws BarometerValidationError on an invalid session id; whatever the archive throws
   */
  async apply(
    history: readonly HistoryItem[],
    decision: EvictionDecision,
    options: ApplyEvictionOptions,
  ): Promise<ApplyEvictionResult> {
    let next = history.slice();
    let state = decision.state;
    const evicted: number[] = [];
    let archive: string | null = null;
    if (decision.evict) {
      const { taskId, steps } = decision.evict;
      parseOrThrow(ArchiveAddressSchema, { sessionId: options.sessionId, taskId }, 'eviction');
      const entries: ArchiveEntry[] = steps.map(({ itemId, kind, field, original }) => ({
        itemId,
        kind,
        field,
        content: original,
      }));
      const { path } = await options.archive.append(options.sessionId, taskId, entries);
      archive = path;
      for (const step of steps) {
        const item = next[step.position] as HistoryItem;
        if (item.kind !== 'tool-result' && item.kind !== 'tool-call') continue;
        next[step.position] = tombstoneItem(item, taskId, path, step.itemId);
        evicted.push(step.position);
      }
      state = { ...state, batches: state.batches + 1 };
    }
    let recap: CompactionOutcome | null = null;
    if (decision.recap && options.counter) {
      recap = await compactHistory(next, {
        counter: options.counter,
        sessionId: options.sessionId,
        archive: options.archive,
        keepTokens: this.options.keepTokens,
        minGainPercent: this.options.minGainPercent,
      });
      if (recap.ok) {
        next = recap.messages;
        // Positions before the kept tail are gone: everything now in the history is still to be judged.
        const recapAt = next.findIndex((item) => item.kind === 'user' && item.recap === true);
        const start = recapAt + 1;
        state = { ...state, scanned: next.length, completedUpTo: start, evictedUpTo: start };
      }
    }
    return { history: next, state, evicted, archive, recap };
  }
}

/**
 * The requests a batch takes to pay back its cache rewrite: the request after it writes `after − freed` tokens at the
 * write price where it would have read `after` at the read price; every later one reads `freed` fewer. 0 when the
 * rewrite costs nothing more; infinite when nothing is freed.
 */
export function paybackCalls(
  after: number,
  freed: number,
  multipliers: { write: number; read: number } = DEFAULT_REWRITE_MULTIPLIERS,
): number {
  const extra = Math.max(0, after - freed) * multipliers.write - after * multipliers.read;
  if (extra <= 0) return 0;
  return freed > 0 ? extra / (freed * multipliers.read) : Number.POSITIVE_INFINITY;
}
