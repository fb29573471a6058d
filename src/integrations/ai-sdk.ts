/**
 * `barometer/ai-sdk`: the Vercel AI SDK's language-model middleware and agent-loop hooks over a barometer session.
 * A thin adapter: the session decides (its verdict), this records what the model used and applies what the verdict
 * says to the next call. The AI SDK is a type-only dependency: nothing here loads it.
 */
import type { LanguageModelMiddleware, ModelMessage } from 'ai';
import { normalizeAiSdk } from '../usage/normalize-ai-sdk.js';
import type { HeaderBag } from '../usage/rate-limit-headers.js';
import {
  type AiSdkHandle,
  type BarometerAiSdkOptions,
  type CallOptions,
  createApplier,
  type Prompt,
  type PromptMessage,
} from './ai-sdk-applier.js';
import type { ProviderOptions } from './ai-sdk-thinking.js';
import { type AdapterOptions, SessionRecorder } from './session-recorder.js';

export type {
  AiSdkCompactionOptions,
  AiSdkHandle,
  BarometerAiSdkOptions,
  CompactionAttempt,
} from './ai-sdk-applier.js';
export type { AiSdkPolicyOutcome } from './ai-sdk-policy.js';
export type { ReminderPlacement } from './ai-sdk-prompt.js';
export type {
  AdapterOptions,
  BarometerHandle,
  MonitorSession,
  RecordedCall,
  SessionTarget,
} from './session-recorder.js';

/** The middleware, with `barometer` to read the latest verdict and compaction from. */
export type BarometerMiddleware = LanguageModelMiddleware & { readonly barometer: AiSdkHandle };

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
 * A language-model middleware for `wrapLanguageModel` that keeps a barometer session informed and applies its verdict.
 *
 * After each call — `doGenerate`, or a stream once its `finish` part arrives — the call's usage (the spec's
 * `inputTokens.{total,noCache,cacheRead,cacheWrite}`, `outputTokens.{total,text,reasoning}`) and the response
 * headers the provider exposes (`response.headers`: the rate limits) go to the session; the caller sees the result
 * only after the session has it. Before each call (`transformParams`) the session's latest verdict is applied:
 * - the `context_health` reminder, while one is active, as a system message barometer owns (replaced, never added
 *   twice);
 * - `verdict.thinking` merged into `providerOptions` for the model's provider (`openai.reasoningEffort`,
 *   `anthropic.thinking.budgetTokens` or `effort`, `google.thinkingConfig`) and, with spec v4, the call's
 *   `reasoning`, only ever lowering what the call asks for;
 * - on `wait` (only a per-minute quota presses and it refills within `maxWaitSeconds`), the call waits the
 *   verdict's `waitSeconds` first (ended by the call's `abortSignal`; see `barometer.lastWait`), keeping the cache;
 * - on `compress`, the prompt compacted by recap and flush (`compactModelMessages`): the replaced messages archived
 *   first, tool calls kept with their results, the recap in their place from then on (see `StickyCompaction`), and
 *   the compaction recorded in the session.
 *
 * The middleware declares spec `v3` (AI SDK 6, `LanguageModelV3Middleware`) and reads the call options, results and
 * stream parts by the fields spec v3 and v4 share, so AI SDK 7 — whose `wrapLanguageModel` accepts a middleware of
 * any `specificationVersion` and calls it with v4 shapes — runs it as it is. barometer never fails a call: what it
 * cannot do goes to `onError` and `barometer.lastError`. Use one middleware per agent conversation: the compaction it
 * keeps in place belongs to the conversation it was made in.
 *
 * @example
 * const model = wrapLanguageModel({
 *   model: openai('gpt-5'),
 *   middleware: barometerMiddleware({ session, archive: new ArchiveStore({ root: join(defaultStateFolder(), 'archives') }) }),
 * });
 */
export function barometerMiddleware(options: BarometerAiSdkOptions): BarometerMiddleware {
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
        abortSignal: params.abortSignal,
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
  Object.defineProperty(middleware, 'barometer', { value: applier.handle, enumerable: false });
  return middleware as unknown as BarometerMiddleware;
}

type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;

/** The options of `prepareStep` that barometer reads. */
export interface PrepareStepInput {
  messages: ModelMessage[];
  model: unknown;
}

/**
 * A `prepareStep` for `generateText` / `streamText` agent loops, for models that are not wrapped with
 * {@link barometerMiddleware}: before each step, the session's verdict is applied to the step's messages (the
 * reminder, and on `compress` the compaction, kept in place on later steps). Thinking is left to the middleware:
 * `prepareStep` is not shown the call's own provider options, so it could not tell lowering them from raising them.
 * Usage is recorded by the middleware only: use both, or record usage yourself.
 */
export function barometerPrepareStep(options: BarometerAiSdkOptions): ((
  input: PrepareStepInput,
) => Promise<{ messages: ModelMessage[] } | undefined>) & {
  readonly barometer: AiSdkHandle;
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
  Object.defineProperty(prepareStep, 'barometer', { value: applier.handle, enumerable: false });
  return prepareStep as typeof prepareStep & { readonly barometer: AiSdkHandle };
}

/**
 * A stop condition for `stopWhen`: true only when the session's verdict is `terminate` (the token budget is spent,
 * or the KV cache is below its crash floor). `compress` never stops an agent: the middleware (or prepareStep)
 * compacts, and the loop goes on. Combine it with the SDK's own conditions: `stopWhen: [stepCountIs(50),
 * barometerStopWhen({ session })]`.
 */
export function barometerStopWhen(
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
