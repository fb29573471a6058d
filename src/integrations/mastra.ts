/**
 * `barometer/mastra`: Mastra agents (`@mastra/core` 1.x) over a barometer session. A processor for
 * `new Agent({ inputProcessors: [barometerProcessor({ session, archive })] })`, a thin adapter over the AI SDK adapters'
 * applier: Mastra converts its message list into an AI SDK language-model prompt on every step of the agent loop and
 * hands it to each input processor's `processLLMRequest`, whose changes reach the model on that call only (the
 * message list, memory and UI keep the originals) — the prompt the applier already reads. Mastra is a type-only
 * dependency: nothing here loads it.
 */
import type { Processor } from '@mastra/core/processors';
import { isObject } from '../usage/json-object.js';
import { normalizeAiSdk } from '../usage/normalize-ai-sdk.js';
import type { AiSdkHandle, PromptMessage } from './ai-sdk-applier.js';
import { createApplier } from './ai-sdk-applier.js';
import { applierOptions, type BarometerFrameworkOptions } from './framework-bridge.js';

export type { AiSdkHandle as BarometerMastraHandle } from './ai-sdk-applier.js';
export type { BarometerFrameworkOptions } from './framework-bridge.js';

type Json = Record<string, unknown>;

/** The processor `barometerProcessor` returns, with `barometer` to read the session from. */
export type BarometerProcessor = Processor<'barometer'> &
  Required<Pick<Processor<'barometer'>, 'processLLMRequest' | 'processLLMResponse'>> & {
    readonly barometer: AiSdkHandle;
  };

/** The usage of one step: its `finish` chunk's, else the last step result's (the AI SDK's usage, v5 or v6 shape). */
function stepUsage(chunks: unknown, steps: unknown): unknown {
  if (Array.isArray(chunks))
    for (let index = chunks.length - 1; index >= 0; index--) {
      const chunk = chunks[index] as Json | undefined;
      if (chunk?.type !== 'finish' && chunk?.type !== 'step-finish') continue;
      const payload = isObject(chunk.payload) ? chunk.payload : {};
      const output = isObject(payload.output) ? payload.output : {};
      const usage = output.usage ?? payload.usage ?? payload.totalUsage;
      if (isObject(usage)) return usage;
    }
  return Array.isArray(steps) ? (steps.at(-1) as Json | undefined)?.usage : undefined;
}

const DRIFT = Symbol('barometer.drift');

/**
 * A Mastra processor that keeps a barometer session informed and applies its verdict and barometer's eviction policy
 * to every step of the agent loop: `processLLMRequest` runs the AI SDK middleware's applier on the step's prompt (at a
 * sub-task boundary — a TodoWrite / update_plan item completed, a `git commit` run by a tool, a new user request — the
 * completed sub-tasks' tool results and large arguments are archived, then tombstoned in one batch, and stay
 * tombstoned on every later step, so the provider's cached prefix changes once per batch; the `context_health`
 * reminder; the wait on a per-minute quota; recap and flush on `compress`), and `processLLMResponse` records the
 * step's usage. Put it in `inputProcessors` (it changes what the model is sent, not what the agent keeps). One
 * processor per conversation.
 *
 * @example
 * const agent = new Agent({
 *   id: 'reviewer', name: 'reviewer', instructions, model, tools,
 *   inputProcessors: [barometerProcessor({ session: new Session({ model: 'gpt-5' }), archive: new ArchiveStore({ root }) })],
 * });
 */
export function barometerProcessor(options: BarometerFrameworkOptions): BarometerProcessor {
  const applier = createApplier(applierOptions(options));
  const processor = {
    id: 'barometer' as const,
    name: 'barometer',
    async processLLMRequest(args: {
      prompt: unknown;
      model: unknown;
      state: Record<string | symbol, unknown>;
      abortSignal?: AbortSignal;
    }) {
      const model = args.model as { provider?: unknown } | undefined;
      const { prompt, driftPercent } = await applier.apply(args.prompt as PromptMessage[], {
        modelProvider: typeof model?.provider === 'string' ? model.provider : '',
        thinking: false,
        abortSignal: args.abortSignal,
      });
      args.state[DRIFT] = driftPercent;
      return { prompt: prompt as never };
    },
    async processLLMResponse(args: {
      chunks: unknown;
      steps: unknown;
      model: unknown;
      state: Record<string | symbol, unknown>;
      fromCache?: boolean;
    }) {
      if (args.fromCache === true) return;
      const model = args.model as { modelId?: unknown } | undefined;
      const driftPercent = args.state[DRIFT];
      const usage = normalizeAiSdk({
        usage: stepUsage(args.chunks, args.steps),
        response: { modelId: model?.modelId },
      });
      await applier.recorder.record(
        typeof driftPercent === 'number'
          ? { usage, driftPercent: Math.min(100, Math.max(0, driftPercent)) }
          : { usage },
      );
    },
  };
  Object.defineProperty(processor, 'barometer', { value: applier.handle, enumerable: false });
  return processor as unknown as BarometerProcessor;
}
