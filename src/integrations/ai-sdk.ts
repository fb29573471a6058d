/**
 * `headroom/ai-sdk`: the Vercel AI SDK's language-model middleware and agent-loop hooks over a headroom session.
 * A thin adapter: the session decides (its verdict), this records what the model used and applies what the verdict
 * says to the next call. The AI SDK is a type-only dependency: nothing here loads it.
 */
import type { LanguageModelMiddleware, ModelMessage } from 'ai';
import type { ArchiveSink } from '../compaction/archive-sink.js';
import type { Summarizer } from '../compaction/compact-history.js';
import type { CompactModelMessagesResult } from '../compaction/compact-model-messages.js';
import type { EvictionPolicy, EvictionPolicyOptions } from '../compaction/eviction-policy.js';
import { countHistoryTokens } from '../compaction/history-item.js';
import { BOUNDARY_KINDS, type BoundaryKind } from '../compaction/sub-task-boundary.js';
import type { Verdict } from '../session/session-schemas.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { normalizeAiSdk } from '../usage/normalize-ai-sdk.js';
import type { HeaderBag } from '../usage/rate-limit-headers.js';
import { type AiSdkPolicyOutcome, PromptPolicy, policyOutcome } from './ai-sdk-policy.js';
import { defaultPlacement, type ReminderPlacement, StickyCompaction, withReminder } from './ai-sdk-prompt.js';
import { mergeThinking, type ProviderOptions } from './ai-sdk-thinking.js';
import {
  type AdapterOptions,
  type HeadroomHandle,
  type SessionRecorder as Recorder,
  SessionRecorder,
} from './session-recorder.js';

export type { AiSdkPolicyOutcome } from './ai-sdk-policy.js';
export type { ReminderPlacement } from './ai-sdk-prompt.js';
export type {
  AdapterOptions,
  HeadroomHandle,
  MonitorSession,
  RecordedCall,
  SessionTarget,
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

export interface HeadroomAiSdkOptions extends AdapterOptions, AiSdkCompactionOptions {
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
  /** Compact the prompt when the verdict says `compress`. @default true (it needs an archive) */
  compact?: boolean;
  /** Told of every compaction attempt: done (with the result) or refused (with the reason). */
  onCompaction?: (outcome: CompactionAttempt) => void;
  /**
   * Run headroom's eviction policy (the same `EvictionPolicy` as `SessionMonitor.compact` and the what-if replay)
   * on every call: at a sub-task boundary (a TodoWrite / update_plan item completed, a `git commit` run by a tool, a
   * new user request, a signal given with `headroom.signal`) the completed sub-tasks' tool results and large tool
   * arguments are archived, then tombstoned in one batch, and stay tombstoned on every later call; above
   * `recapAbovePercent` of the window the prompt is recapped; otherwise it is sent as it is, so the provider's cache
   * holds. The drift it measures goes to the session with the call's usage. Needs an archive to change anything.
   * @default undefined (off: the prompt changes only on `compress`)
   */
  policy?: EvictionPolicy | EvictionPolicyOptions;
  /** Told of every call on which the policy evicted, recapped, or could not act (no archive, a failed archive). */
  onEviction?: (outcome: AiSdkPolicyOutcome) => void;
}

/** One compaction the middleware tried. */
export type CompactionAttempt =
  | { ok: true; result: Extract<CompactModelMessagesResult<unknown>, { ok: true }> }
  | { ok: false; reason: string };

/** What the middleware reports besides the verdict. */
export interface AiSdkHandle extends HeadroomHandle {
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

/** The middleware, with `headroom` to read the latest verdict and compaction from. */
export type HeadroomMiddleware = LanguageModelMiddleware & { readonly headroom: AiSdkHandle };

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Prompt = CallOptions['prompt'];
type PromptMessage = Prompt[number];

interface Applier {
  recorder: Recorder;
  handle: AiSdkHandle;
  /** The prompt to send and the options to merge, for the verdict the session holds now. */
  apply(
    prompt: readonly PromptMessage[],
    call: CallState,
  ): Promise<{ prompt: PromptMessage[]; call: CallState; driftPercent: number | null }>;
}

interface CallState {
  providerOptions?: ProviderOptions | undefined;
  reasoning?: unknown;
  modelProvider: string;
  /** prepareStep cannot see the call's own settings, so it cannot tell a lowering from a raise: no thinking. */
  thinking: boolean;
}

function createApplier(options: HeadroomAiSdkOptions): Applier {
  const recorder = new SessionRecorder(options);
  const sticky = new StickyCompaction();
  let lastCompaction: CompactionAttempt | null = null;
  let lastThinking: string[] = [];
  let compactedAtGeneration = -1;
  const promptPolicy =
    options.policy === undefined ? null : new PromptPolicy(options.policy, options.counter);
  let lastEviction: AiSdkPolicyOutcome | null = null;
  const signals: BoundaryKind[] = [];
  const handle: AiSdkHandle = {
    get sessionId() {
      return recorder.sessionId;
    },
    get verdict() {
      return recorder.verdict;
    },
    get lastCall() {
      return recorder.lastCall;
    },
    get lastError() {
      return recorder.lastError;
    },
    get lastCompaction() {
      return lastCompaction;
    },
    get lastThinking() {
      return lastThinking;
    },
    get lastEviction() {
      return lastEviction;
    },
    signal(...kinds: BoundaryKind[]) {
      const unknown = kinds.find((kind) => !(BOUNDARY_KINDS as readonly string[]).includes(kind));
      if (unknown !== undefined)
        throw new TypeError(`headroom: ${String(unknown)} is not a boundary (${BOUNDARY_KINDS.join(', ')})`);
      signals.push(...kinds);
    },
  };
  const report = (attempt: CompactionAttempt) => {
    lastCompaction = attempt;
    try {
      options.onCompaction?.(attempt);
    } catch (error) {
      recorder.fail(error);
    }
  };

  /** Compacts the prompt as sent (archive first), records it and reports it; null when refused or failed. */
  const compact = async (
    prompt: PromptMessage[],
    effective: PromptMessage[],
    lastPromptTokens: number | null,
    settings: { keepTokens?: number; minGainPercent?: number } = {},
  ): Promise<PromptMessage[] | null> => {
    const archive = options.archive ?? recorder.defaultArchive;
    if (!archive) {
      report({
        ok: false,
        reason: 'no archive: headroom compacts only what it can write to an archive first',
      });
      return null;
    }
    const keepTokens = settings.keepTokens ?? options.keepTokens;
    const minGainPercent = settings.minGainPercent ?? options.minGainPercent;
    try {
      const result = await sticky.compact(prompt, effective, {
        archive,
        sessionId: recorder.sessionId,
        ...(options.keepTurns === undefined ? {} : { keepTurns: options.keepTurns }),
        ...(keepTokens === undefined ? {} : { keepTokens }),
        ...(minGainPercent === undefined ? {} : { minGainPercent }),
        ...(options.counter ? { counter: options.counter } : {}),
        ...(options.summarizer ? { summarizer: options.summarizer, summarizerFallback: true } : {}),
      });
      if (!result.ok) {
        report({ ok: false, reason: result.reason });
        return null;
      }
      // The session measures prompts as the provider counts them; the compaction counts content tokens. The
      // provider's last figure minus what the compaction saved is what the next prompt should come to.
      const saved = result.before.tokens - result.after.tokens;
      const before = lastPromptTokens ?? result.before.tokens;
      await recorder.recordCompaction({ before, after: Math.max(0, before - saved), trigger: 'headroom' });
      report({ ok: true, result });
      return result.messages;
    } catch (error) {
      recorder.fail(error);
      report({ ok: false, reason: error instanceof Error ? error.message : String(error) });
      return null;
    }
  };

  const compactIfDue = async (
    prompt: PromptMessage[],
    effective: PromptMessage[],
    verdict: Verdict | null,
    generations: number,
    lastPromptTokens: number | null,
  ): Promise<PromptMessage[] | null> => {
    if (options.compact === false || verdict?.action !== 'compress') return null;
    // Once per usage update: a refused compaction is not retried on every step until the session has news.
    if (compactedAtGeneration === generations) return null;
    compactedAtGeneration = generations;
    return compact(prompt, effective, lastPromptTokens);
  };

  /**
   * The eviction policy on this call's prompt: the evictions in force applied again, a batch at a boundary
   * (archived, tombstoned, recorded in the session), the recap fallback above its threshold.
   */
  const runPolicy = async (
    policy: PromptPolicy,
    stripped: PromptMessage[],
    base: PromptMessage[],
    standing: Awaited<ReturnType<Recorder['standing']>>,
  ): Promise<{ messages: PromptMessage[]; changed: boolean; driftPercent: number | null }> => {
    const archive = options.archive ?? recorder.defaultArchive;
    const promptTokens = standing.lastPromptTokens ?? undefined;
    const run = await policy.run(base, {
      archive,
      sessionId: recorder.sessionId,
      signals: signals.splice(0),
      ...(promptTokens === undefined ? {} : { promptTokens }),
      ...(standing.contextWindow === null ? {} : { contextWindow: standing.contextWindow }),
      ...(options.counter ? { counter: options.counter } : {}),
    });
    const { result } = run;
    if (!result) {
      recorder.fail(run.error);
      const reason = run.error instanceof Error ? run.error.message : String(run.error);
      lastEviction = lastEviction && {
        ...lastEviction,
        evicted: 0,
        recapped: false,
        archived: [],
        refused: reason,
      };
      return { messages: run.messages, changed: false, driftPercent: null };
    }
    let messages = run.messages;
    let driftPercent = result.driftPercent;
    let recapped = false;
    const wanted = result.decision.evict !== null || result.decision.recap !== null;
    const refused =
      !archive && wanted ? 'no archive: headroom evicts only what it can write to an archive first' : null;
    let lastPrompt = standing.lastPromptTokens;
    if (result.evicted.length > 0) {
      const counter = options.counter ?? createTokenCounter();
      const before = lastPrompt ?? countHistoryTokens(result.items, counter) + result.savedTokens;
      lastPrompt = Math.max(0, before - result.savedTokens);
      try {
        await recorder.recordCompaction({ before, after: lastPrompt, trigger: 'headroom' });
      } catch (error) {
        recorder.fail(error);
      }
    }
    if (archive && result.decision.recap) {
      const { keepTokens, minGainPercent } = policy.policy.options;
      const compacted = await compact(stripped, messages, lastPrompt, { keepTokens, minGainPercent });
      if (compacted) {
        messages = compacted;
        recapped = true;
        driftPercent = policy.afterRecap(compacted, sticky.apply(stripped), promptTokens);
      }
    }
    const outcome = policyOutcome(result, { recapped, driftPercent, refused });
    lastEviction = outcome;
    if (outcome.evicted > 0 || recapped || refused !== null) {
      try {
        options.onEviction?.(outcome);
      } catch (error) {
        recorder.fail(error);
      }
    }
    return { messages, changed: outcome.evicted > 0 || recapped, driftPercent };
  };

  return {
    recorder,
    handle,
    async apply(prompt, call) {
      let standing: Awaited<ReturnType<Recorder['standing']>>;
      try {
        standing = await recorder.standing();
      } catch (error) {
        recorder.fail(error);
        // Without the session's standing nothing new is done, but what is in force stays: the prefix holds.
        const kept = sticky.apply(withReminder(prompt, null, 'end'));
        return { prompt: promptPolicy ? promptPolicy.inForce(kept) : kept, call, driftPercent: null };
      }
      const { verdict, health } = standing;
      const stripped = withReminder(prompt, null, 'end');
      let messages = sticky.apply(stripped);
      let driftPercent: number | null = null;
      let changed = false;
      if (promptPolicy) {
        const ran = await runPolicy(promptPolicy, stripped, messages, standing);
        ({ messages, changed, driftPercent } = ran);
      }
      // A prompt the policy changed already answers this verdict; the session judges the new size next call.
      const compacted = changed
        ? null
        : await compactIfDue(stripped, messages, verdict, standing.generations, standing.lastPromptTokens);
      if (compacted) {
        messages = compacted;
        if (promptPolicy) {
          const promptTokens = standing.lastPromptTokens ?? undefined;
          driftPercent = promptPolicy.afterRecap(compacted, sticky.apply(stripped), promptTokens);
        }
      }
      const reminder = options.reminder === false ? null : (health?.reminder?.text ?? null);
      messages = withReminder(
        messages,
        reminder,
        options.reminderPlacement ?? defaultPlacement(call.modelProvider),
      );
      let next = call;
      lastThinking = [];
      if (call.thinking && options.thinking !== false && verdict?.thinking) {
        const merged = mergeThinking(verdict.thinking, call, call.modelProvider);
        lastThinking = merged.notes;
        next = {
          ...call,
          providerOptions: merged.providerOptions,
          ...(merged.reasoning ? { reasoning: merged.reasoning } : {}),
        };
      }
      return { prompt: messages, call: next, driftPercent };
    },
  };
}

type HeadersRecord = Record<string, string | undefined>;

/** The usage of one model call (a generate result, or what a stream's parts carried). */
function usageUpdateOf(
  usage: unknown,
  response: { modelId?: unknown; timestamp?: unknown; headers?: HeadersRecord } | undefined,
) {
  const record = normalizeAiSdk({
    usage,
    response: { modelId: response?.modelId, timestamp: response?.timestamp },
  });
  const headers = response?.headers;
  return { usage: record, ...(headers ? { headers: headers as HeaderBag } : {}) };
}

/**
 * A language-model middleware for `wrapLanguageModel` that keeps a headroom session informed and applies its verdict.
 *
 * After each call — `doGenerate`, or a stream once its `finish` part arrives — the call's usage (the spec's
 * `inputTokens.{total,noCache,cacheRead,cacheWrite}`, `outputTokens.{total,text,reasoning}`) and the response
 * headers the provider exposes (`response.headers`: the rate limits) go to the session; the caller sees the result
 * only after the session has it. Before each call (`transformParams`) the session's latest verdict is applied:
 * - the `context_health` reminder, while one is active, as a system message headroom owns (replaced, never added
 *   twice);
 * - `verdict.thinking` merged into `providerOptions` for the model's provider (`openai.reasoningEffort`,
 *   `anthropic.thinking.budgetTokens` or `effort`, `google.thinkingConfig`) and, with spec v4, the call's
 *   `reasoning`, only ever lowering what the call asks for;
 * - on `compress`, the prompt compacted by recap and flush (`compactModelMessages`): the replaced messages archived
 *   first, tool calls kept with their results, the recap in their place from then on (see `StickyCompaction`), and
 *   the compaction recorded in the session.
 *
 * The middleware declares spec `v3` (AI SDK 6, `LanguageModelV3Middleware`) and reads the call options, results and
 * stream parts by the fields spec v3 and v4 share, so AI SDK 7 — whose `wrapLanguageModel` accepts a middleware of
 * any `specificationVersion` and calls it with v4 shapes — runs it as it is. headroom never fails a call: what it
 * cannot do goes to `onError` and `headroom.lastError`. Use one middleware per agent conversation: the compaction it
 * keeps in place belongs to the conversation it was made in.
 *
 * @example
 * const model = wrapLanguageModel({
 *   model: openai('gpt-5'),
 *   middleware: headroomMiddleware({ session, archive: new ArchiveStore({ root: '.headroom/archives' }) }),
 * });
 */
export function headroomMiddleware(options: HeadroomAiSdkOptions): HeadroomMiddleware {
  const applier = createApplier(options);
  const { recorder } = applier;
  // The drift measured on the prompt a call sends goes to the session with that call's usage (the usage update's
  // `driftPercent`, which a Session, a monitor and POST /usage all take): one write, in the order of the calls.
  const driftOf = new WeakMap<object, number>();
  const updateOf = (params: unknown, update: ReturnType<typeof usageUpdateOf>) => {
    const driftPercent = typeof params === 'object' && params !== null ? driftOf.get(params) : undefined;
    return driftPercent === undefined ? update : { ...update, driftPercent };
  };
  const middleware = {
    specificationVersion: 'v3' as const,
    async transformParams({ params, model }: { params: CallOptions; model: { provider: string } }) {
      const call = params as CallOptions & { reasoning?: unknown };
      const {
        prompt,
        call: next,
        driftPercent,
      } = await applier.apply(params.prompt, {
        providerOptions: params.providerOptions as ProviderOptions | undefined,
        reasoning: call.reasoning,
        modelProvider: model.provider,
        thinking: true,
      });
      const transformed = { ...params, prompt: prompt as Prompt };
      if (next.providerOptions !== params.providerOptions)
        transformed.providerOptions = next.providerOptions as CallOptions['providerOptions'];
      if (next.reasoning !== call.reasoning)
        (transformed as { reasoning?: unknown }).reasoning = next.reasoning;
      if (driftPercent !== null) driftOf.set(transformed, Math.min(100, Math.max(0, driftPercent)));
      return transformed;
    },
    async wrapGenerate({
      doGenerate,
      params,
    }: {
      doGenerate: () => PromiseLike<GenerateResult>;
      params?: CallOptions;
    }) {
      const result = await doGenerate();
      await recorder.record(updateOf(params, usageUpdateOf(result.usage, result.response)));
      return result;
    },
    async wrapStream({
      doStream,
      params,
    }: {
      doStream: () => PromiseLike<StreamResult>;
      params?: CallOptions;
    }) {
      const result = await doStream();
      const headers = result.response?.headers;
      let metadata: { modelId?: unknown; timestamp?: unknown } = {};
      const observed = result.stream.pipeThrough(
        new TransformStream<StreamPart, StreamPart>({
          async transform(part, controller) {
            if (part.type === 'response-metadata')
              metadata = { modelId: part.modelId, timestamp: part.timestamp };
            // The finish part reaches the caller once the session has the usage, so the verdict is current by then.
            if (part.type === 'finish')
              await recorder.record(
                updateOf(params, usageUpdateOf(part.usage, { ...metadata, ...(headers ? { headers } : {}) })),
              );
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream: observed };
    },
  };
  Object.defineProperty(middleware, 'headroom', { value: applier.handle, enumerable: false });
  return middleware as unknown as HeadroomMiddleware;
}

type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;

/** The options of `prepareStep` that headroom reads. */
export interface PrepareStepInput {
  messages: ModelMessage[];
  model: unknown;
}

/**
 * A `prepareStep` for `generateText` / `streamText` agent loops, for models that are not wrapped with
 * {@link headroomMiddleware}: before each step, the session's verdict is applied to the step's messages (the
 * reminder, and on `compress` the compaction, kept in place on later steps). Thinking is left to the middleware:
 * `prepareStep` is not shown the call's own provider options, so it could not tell lowering them from raising them.
 * Usage is recorded by the middleware only: use both, or record usage yourself.
 */
export function headroomPrepareStep(options: HeadroomAiSdkOptions): ((
  input: PrepareStepInput,
) => Promise<{ messages: ModelMessage[] } | undefined>) & {
  readonly headroom: AiSdkHandle;
} {
  const applier = createApplier(options);
  const prepareStep = async ({ messages, model }: PrepareStepInput) => {
    const modelProvider =
      typeof model === 'object' &&
      model !== null &&
      typeof (model as { provider?: unknown }).provider === 'string'
        ? (model as { provider: string }).provider
        : String(model ?? '');
    const { prompt } = await applier.apply(messages as unknown as PromptMessage[], {
      modelProvider,
      thinking: false,
    });
    return { messages: prompt as unknown as ModelMessage[] };
  };
  Object.defineProperty(prepareStep, 'headroom', { value: applier.handle, enumerable: false });
  return prepareStep as typeof prepareStep & { readonly headroom: AiSdkHandle };
}

/**
 * A stop condition for `stopWhen`: true only when the session's verdict is `terminate` (the token budget is spent,
 * or the KV cache is below its crash floor). `compress` never stops an agent: the middleware (or prepareStep)
 * compacts, and the loop goes on. Combine it with the SDK's own conditions: `stopWhen: [stepCountIs(50),
 * headroomStopWhen({ session })]`.
 */
export function headroomStopWhen(
  options: AdapterOptions,
): (input: { steps: readonly unknown[] }) => Promise<boolean> {
  const recorder = new SessionRecorder(options);
  return async () => {
    try {
      const { verdict } = await recorder.standing();
      return verdict?.action === 'terminate';
    } catch (error) {
      recorder.fail(error);
      return false;
    }
  };
}
