/**
 * What the AI SDK adapters apply before each call (the middleware's `transformParams`, `barometerPrepareStep`): the
 * session's verdict — the reminder, the thinking parameters, the compaction on `compress` — and, with a policy,
 * barometer's eviction policy. Decides nothing itself: the session and the policy do.
 */
import type { LanguageModelMiddleware } from 'ai';
import type { ArchiveSink } from '../compaction/archive-sink.js';
import type { Summarizer } from '../compaction/compact-history.js';
import type { CompactModelMessagesResult } from '../compaction/compact-model-messages.js';
import type { EvictionPolicy, EvictionPolicyOptions } from '../compaction/eviction-policy.js';
import { countHistoryTokens } from '../compaction/history-item.js';
import { BOUNDARY_KINDS, type BoundaryKind } from '../compaction/sub-task-boundary.js';
import type { Verdict } from '../session/session-schemas.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type AiSdkPolicyOutcome, PromptPolicy, policyOutcome } from './ai-sdk-policy.js';
import { defaultPlacement, type ReminderPlacement, StickyCompaction, withReminder } from './ai-sdk-prompt.js';
import { mergeThinking, type ProviderOptions } from './ai-sdk-thinking.js';
import {
  type AdapterOptions,
  type BarometerHandle,
  type SessionRecorder as Recorder,
  SessionRecorder,
} from './session-recorder.js';

/** How the verdict's `compress` is carried out on the prompt. */
export interface AiSdkCompactionOptions {
  /**
   * Where the replaced messages are written, whole, before they leave the prompt (an `ArchiveStore`, or any
   * `ArchiveSink`). Without one (and without a monitor that has one) the prompt is never compacted: nothing leaves
   * a context that cannot be read back.
   */
  archive?: ArchiveSink;
  /** Recent turns kept verbatim. @default 2 */
  keepTurns?: number;
  /** The kept turns are shortened to at most this many tokens. @default 20,000 */
  keepTokens?: number;
  /** A compaction saving less than this share of the tokens is refused. @default 5 */
  minGainPercent?: number;
  /** @default o200k_base */
  counter?: TokenCounter;
  /** Writes the recap instead of the deterministic one; on failure the deterministic recap is used. */
  summarizer?: Summarizer;
}

export interface BarometerAiSdkOptions extends AdapterOptions, AiSdkCompactionOptions {
  /** Add the `context_health` reminder as a system message while one is active. @default true */
  reminder?: boolean;
  /**
   * Where the reminder goes. `end` keeps the prompt's cached prefix intact as the reminder's figures change;
   * `after-system` joins the leading system messages, which every provider accepts.
   * @default 'end' for OpenAI and Azure models, 'after-system' for the others
   */
  reminderPlacement?: ReminderPlacement;
  /** Merge the verdict's `thinking` into the call's `providerOptions` (only ever lowering). @default true */
  thinking?: boolean;
  /**
   * Wait before the call when the verdict says `wait` (a per-minute quota refills within the session's
   * `maxWaitSeconds`), ending early when the call's `abortSignal` aborts. @default true
   */
  waitOnQuota?: boolean;
  /** Compact the prompt when the verdict says `compress`. @default true (it needs an archive) */
  compact?: boolean;
  /** Told of every compaction attempt: done (with the result) or refused (with the reason). */
  onCompaction?: (outcome: CompactionAttempt) => void;
  /**
   * Run barometer's eviction policy (the same `EvictionPolicy` as `SessionMonitor.compact` and the what-if replay)
   * on every call: at a sub-task boundary (a TodoWrite / update_plan item completed, a `git commit` run by a tool, a
   * new user request, a signal given with `barometer.signal`) the completed sub-tasks' tool results and large tool
   * arguments are archived, then tombstoned in one batch, and stay tombstoned on every later call; above
   * `recapAbovePercent` of the window the prompt is recapped; otherwise it is sent as it is, so the provider's cache
   * holds. The drift it measures goes to the session with the call's usage. Needs an archive to change anything.
   * @default undefined (off: the prompt changes only on `compress`)
   */
  policy?: EvictionPolicy | EvictionPolicyOptions;
  /**
   * Told of every call on which the policy evicted, recapped, or wanted to and had no archive. A failed archive
   * write goes to `onError` (nothing of that batch is tombstoned; it is tried again on the next call).
   */
  onEviction?: (outcome: AiSdkPolicyOutcome) => void;
}

/** One compaction the middleware tried. */
export type CompactionAttempt =
  | { ok: true; result: Extract<CompactModelMessagesResult<unknown>, { ok: true }> }
  | { ok: false; reason: string };

/** What the middleware reports besides the verdict. */
export interface AiSdkHandle extends BarometerHandle {
  /** The latest compaction attempt, or null. */
  readonly lastCompaction: CompactionAttempt | null;
  /** What the latest `thinking` merge changed, or why it changed nothing; empty when the verdict had none. */
  readonly lastThinking: readonly string[];
  /** What the eviction policy did on the latest call (its drift, even when it evicted nothing), or null. */
  readonly lastEviction: AiSdkPolicyOutcome | null;
  /**
   * Boundaries the prompt does not show, for the policy on the next call: `task-complete` (the agent loop's own
   * "done"), `user-request` (a request reported apart from the messages), `task-mark` (the caller marks a task done).
   * @throws TypeError for a kind that is not a boundary kind
   */
  signal(...kinds: BoundaryKind[]): void;
}

export type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
export type Prompt = CallOptions['prompt'];
export type PromptMessage = Prompt[number];

export interface Applier {
  recorder: Recorder;
  handle: AiSdkHandle;
  /** The prompt to send and the options to merge, for the verdict the session holds now. */
  apply(
    prompt: readonly PromptMessage[],
    call: CallState,
  ): Promise<{ prompt: PromptMessage[]; call: CallState; driftPercent: number | null }>;
}

export interface CallState {
  providerOptions?: ProviderOptions | undefined;
  /** The call's abort signal: a wait the verdict advises ends when it aborts. */
  abortSignal?: AbortSignal | undefined;
  reasoning?: unknown;
  modelProvider: string;
  /** prepareStep cannot see the call's own settings, so it cannot tell a lowering from a raise: no thinking. */
  thinking: boolean;
}

/** The applier of the AI SDK adapters, over one session recorder. */
export function createApplier(options: BarometerAiSdkOptions): Applier {
  const applier = new AiSdkApplier(options);
  return {
    recorder: applier.recorder,
    handle: applier.handle,
    apply: (prompt, call) => applier.apply(prompt, call),
  };
}

/** The applier's state across calls (the latest attempts, the compaction in force, the policy and its signals), and its steps. */
class AiSdkApplier {
  readonly recorder: Recorder;
  readonly handle: AiSdkHandle;
  private readonly sticky = new StickyCompaction();
  private readonly promptPolicy: PromptPolicy | null;
  /** Boundaries given with `handle.signal`, for the policy on the next call. */
  private readonly signals: BoundaryKind[] = [];
  lastCompaction: CompactionAttempt | null = null;
  lastThinking: string[] = [];
  lastEviction: AiSdkPolicyOutcome | null = null;
  private compactedAtGeneration = -1;

  constructor(private readonly options: BarometerAiSdkOptions) {
    this.recorder = new SessionRecorder(options);
    this.promptPolicy =
      options.policy === undefined ? null : new PromptPolicy(options.policy, options.counter);
    this.handle = this.handleOf();
  }

  /** The handle the adapters return: the recorder's figures and this applier's latest attempts, read live. */
  private handleOf(): AiSdkHandle {
    const applier = this;
    return {
      get sessionId() {
        return applier.recorder.sessionId;
      },
      get verdict() {
        return applier.recorder.verdict;
      },
      get lastCall() {
        return applier.recorder.lastCall;
      },
      get lastError() {
        return applier.recorder.lastError;
      },
      get lastWait() {
        return applier.recorder.lastWait;
      },
      get lastCompaction() {
        return applier.lastCompaction;
      },
      get lastThinking() {
        return applier.lastThinking;
      },
      get lastEviction() {
        return applier.lastEviction;
      },
      signal(...kinds: BoundaryKind[]) {
        const unknown = kinds.find((kind) => !(BOUNDARY_KINDS as readonly string[]).includes(kind));
        if (unknown !== undefined)
          throw new TypeError(
            `barometer: ${String(unknown)} is not a boundary (${BOUNDARY_KINDS.join(', ')})`,
          );
        applier.signals.push(...kinds);
      },
    };
  }

  /** Keeps a compaction attempt as the latest and tells onCompaction of it. */
  private report(attempt: CompactionAttempt): void {
    this.lastCompaction = attempt;
    try {
      this.options.onCompaction?.(attempt);
    } catch (error) {
      this.recorder.fail(error);
    }
  }

  /** Compacts the prompt as sent (archive first), records it and reports it; null when refused or failed. */
  private async compact(
    prompt: PromptMessage[],
    effective: PromptMessage[],
    lastPromptTokens: number | null,
    settings: { keepTokens?: number; minGainPercent?: number } = {},
  ): Promise<PromptMessage[] | null> {
    const archive = this.options.archive ?? this.recorder.defaultArchive;
    if (!archive) {
      this.report({
        ok: false,
        reason: 'no archive: barometer compacts only what it can write to an archive first',
      });
      return null;
    }
    const keepTokens = settings.keepTokens ?? this.options.keepTokens;
    const minGainPercent = settings.minGainPercent ?? this.options.minGainPercent;
    try {
      const result = await this.sticky.compact(prompt, effective, {
        archive,
        sessionId: this.recorder.sessionId,
        ...(this.options.keepTurns === undefined ? {} : { keepTurns: this.options.keepTurns }),
        ...(keepTokens === undefined ? {} : { keepTokens }),
        ...(minGainPercent === undefined ? {} : { minGainPercent }),
        ...(this.options.counter ? { counter: this.options.counter } : {}),
        ...(this.options.summarizer ? { summarizer: this.options.summarizer, summarizerFallback: true } : {}),
      });
      if (!result.ok) {
        this.report({ ok: false, reason: result.reason });
        return null;
      }
      // The session measures prompts as the provider counts them; the compaction counts content tokens. The
      // provider's last figure minus what the compaction saved is what the next prompt should come to.
      const saved = result.before.tokens - result.after.tokens;
      const before = lastPromptTokens ?? result.before.tokens;
      await this.recorder.recordCompaction({
        before,
        after: Math.max(0, before - saved),
        trigger: 'barometer',
      });
      this.report({ ok: true, result });
      return result.messages;
    } catch (error) {
      this.recorder.fail(error);
      this.report({ ok: false, reason: error instanceof Error ? error.message : String(error) });
      return null;
    }
  }

  /** The compaction the verdict's `compress` asks for, once per usage update; null when none is due. */
  private async compactIfDue(
    prompt: PromptMessage[],
    effective: PromptMessage[],
    verdict: Verdict | null,
    generations: number,
    lastPromptTokens: number | null,
  ): Promise<PromptMessage[] | null> {
    if (this.options.compact === false || verdict?.action !== 'compress') return null;
    // Once per usage update: a refused compaction is not retried on every step until the session has news.
    if (this.compactedAtGeneration === generations) return null;
    this.compactedAtGeneration = generations;
    return this.compact(prompt, effective, lastPromptTokens);
  }

  /**
   * The eviction policy on this call's prompt: the evictions in force applied again, a batch at a boundary
   * (archived, tombstoned, recorded in the session), the recap fallback above its threshold.
   */
  private async runPolicy(
    policy: PromptPolicy,
    stripped: PromptMessage[],
    base: PromptMessage[],
    standing: Awaited<ReturnType<Recorder['standing']>>,
  ): Promise<{ messages: PromptMessage[]; changed: boolean; driftPercent: number | null }> {
    const archive = this.options.archive ?? this.recorder.defaultArchive;
    const promptTokens = standing.lastPromptTokens ?? undefined;
    const given = this.signals.splice(0);
    const run = await policy.run(base, {
      archive,
      sessionId: this.recorder.sessionId,
      signals: given,
      ...(promptTokens === undefined ? {} : { promptTokens }),
      ...(standing.contextWindow === null ? {} : { contextWindow: standing.contextWindow }),
      ...(this.options.counter ? { counter: this.options.counter } : {}),
    });
    const { result } = run;
    if (!result) {
      // The batch is tried again on the next call (the policy's state did not move, the signals wait); the error
      // is in lastError.
      this.signals.unshift(...given);
      this.recorder.fail(run.error);
      return { messages: run.messages, changed: false, driftPercent: null };
    }
    let messages = run.messages;
    let driftPercent = result.driftPercent;
    let recapped = false;
    const wanted = result.decision.evict !== null || result.decision.recap !== null;
    const refused =
      !archive && wanted ? 'no archive: barometer evicts only what it can write to an archive first' : null;
    let lastPrompt = standing.lastPromptTokens;
    if (result.evicted.length > 0) {
      const counter = this.options.counter ?? createTokenCounter();
      const before = lastPrompt ?? countHistoryTokens(result.items, counter) + result.savedTokens;
      lastPrompt = Math.max(0, before - result.savedTokens);
      try {
        await this.recorder.recordCompaction({ before, after: lastPrompt, trigger: 'barometer' });
      } catch (error) {
        this.recorder.fail(error);
      }
    }
    if (archive && result.decision.recap) {
      const { keepTokens, minGainPercent } = policy.policy.options;
      const compacted = await this.compact(stripped, messages, lastPrompt, { keepTokens, minGainPercent });
      if (compacted) {
        messages = compacted;
        recapped = true;
        driftPercent = policy.afterRecap(compacted, this.sticky.apply(stripped), promptTokens);
      }
    }
    const outcome = policyOutcome(result, { recapped, driftPercent, refused });
    this.lastEviction = outcome;
    if (outcome.evicted > 0 || recapped || refused !== null) {
      try {
        this.options.onEviction?.(outcome);
      } catch (error) {
        this.recorder.fail(error);
      }
    }
    return { messages, changed: outcome.evicted > 0 || recapped, driftPercent };
  }

  /** The prompt to send and the options to merge, for the verdict the session holds now. */
  async apply(
    prompt: readonly PromptMessage[],
    call: CallState,
  ): Promise<{ prompt: PromptMessage[]; call: CallState; driftPercent: number | null }> {
    let standing: Awaited<ReturnType<Recorder['standing']>>;
    try {
      standing = await this.recorder.standing();
    } catch (error) {
      this.recorder.fail(error);
      // Without the session's standing nothing new is done, but what is in force stays: the prefix holds.
      const kept = this.sticky.apply(withReminder(prompt, null, 'end'));
      return { prompt: this.promptPolicy ? this.promptPolicy.inForce(kept) : kept, call, driftPercent: null };
    }
    const { verdict, health } = standing;
    // Wait is an action: only a per-minute quota presses, and its bucket refills within maxWaitSeconds. The
    // call waits (abortable) rather than compressing a prompt the provider has cached.
    if (this.options.waitOnQuota !== false) await this.recorder.waitIfAdvised(standing, call.abortSignal);
    const stripped = withReminder(prompt, null, 'end');
    let messages = this.sticky.apply(stripped);
    let driftPercent: number | null = null;
    let changed = false;
    if (this.promptPolicy) {
      const ran = await this.runPolicy(this.promptPolicy, stripped, messages, standing);
      ({ messages, changed, driftPercent } = ran);
    }
    // A prompt the policy changed already answers this verdict; the session judges the new size next call.
    const compacted = changed
      ? null
      : await this.compactIfDue(stripped, messages, verdict, standing.generations, standing.lastPromptTokens);
    if (compacted) {
      messages = compacted;
      if (this.promptPolicy) {
        const promptTokens = standing.lastPromptTokens ?? undefined;
        driftPercent = this.promptPolicy.afterRecap(compacted, this.sticky.apply(stripped), promptTokens);
      }
    }
    const reminder = this.options.reminder === false ? null : (health?.reminder?.text ?? null);
    messages = withReminder(
      messages,
      reminder,
      this.options.reminderPlacement ?? defaultPlacement(call.modelProvider),
    );
    let next = call;
    this.lastThinking = [];
    if (call.thinking && this.options.thinking !== false && verdict?.thinking) {
      const merged = mergeThinking(verdict.thinking, call, call.modelProvider);
      this.lastThinking = merged.notes;
      next = {
        ...call,
        providerOptions: merged.providerOptions,
        ...(merged.reasoning ? { reasoning: merged.reasoning } : {}),
      };
    }
    return { prompt: messages, call: next, driftPercent };
  }
}
