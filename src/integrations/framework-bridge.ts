/**
 * What the framework adapters (LangChain.js, Mastra, the OpenAI Agents SDK) share: a framework's messages are read
 * as AI SDK prompt messages, the AI SDK adapters' applier (the session's verdict, barometer's eviction policy, the
 * compaction on `compress`) runs on them, and what it sends back is turned into the framework's messages again —
 * the caller's own message object wherever nothing changed, so that the framework's ids and metadata go through.
 * One policy: nothing here decides.
 */
import type { EvictionPolicyOptions } from '../compaction/eviction-policy.js';
import type { UsageUpdate } from '../session/session-options.js';
import {
  type AiSdkHandle,
  type BarometerAiSdkOptions,
  createApplier,
  type PromptMessage,
} from './ai-sdk-applier.js';
import type { RecordedCall } from './session-recorder.js';

/**
 * The options of every framework adapter: those of the AI SDK middleware (the session, the archive, the reminder,
 * the quota waits, the compaction on `compress`) with barometer's eviction policy on by default — the reason to add
 * barometer to a framework's agent is to evict finished sub-tasks' tool output at their boundaries.
 */
export interface BarometerFrameworkOptions extends Omit<BarometerAiSdkOptions, 'policy' | 'thinking'> {
  /**
   * barometer's eviction policy (see `BarometerAiSdkOptions.policy`); `false` turns it off (then the prompt changes
   * only on `compress`).
   * @default {} (the policy with its defaults)
   */
  policy?: BarometerAiSdkOptions['policy'] | false;
}

/** How one framework's messages are read as AI SDK prompt messages and written back. */
export interface MessageCodec<Message> {
  /** The framework message as one prompt message. */
  read(message: Message): PromptMessage;
  /**
   * The framework message for a prompt message barometer changed (`origin`, the caller's message it came from:
   * its tool-call input or tool-result output replaced by a tombstone) or wrote (no origin: a recap, a reminder).
   */
  write(message: PromptMessage, origin: Message | undefined): Message;
}

/** The caller's message a prompt message was read from; object spreads (the policy's rewrites) carry it over. */
const ORIGIN = Symbol('barometer.origin');

type Tagged<Message> = PromptMessage & { [ORIGIN]?: Message };

/** The applier over framework messages, for one conversation. */
export interface FrameworkApplier<Message> {
  readonly handle: AiSdkHandle;
  /** The messages to send for the verdict the session holds now (the caller's array is not changed). */
  apply(
    messages: readonly Message[],
    call: { modelProvider: string; abortSignal?: AbortSignal | undefined },
    codec: MessageCodec<Message>,
  ): Promise<{ messages: Message[]; driftPercent: number | null }>;
  /** Hands an error to the adapter's `onError` (and `handle.lastError`): the model call goes on. */
  fail(error: unknown): void;
  /** Records one model call's usage (an AI SDK usage object), with the drift its prompt had. */
  record(
    usage: unknown,
    meta: { modelId?: unknown; driftPercent: number | null },
  ): Promise<RecordedCall | undefined>;
}

/** The AI SDK applier's options for a framework adapter's. */
export function applierOptions(options: BarometerFrameworkOptions): BarometerAiSdkOptions {
  const { policy, ...rest } = options;
  const resolved: EvictionPolicyOptions | BarometerAiSdkOptions['policy'] | undefined =
    policy === false ? undefined : (policy ?? {});
  return { ...rest, ...(resolved === undefined ? {} : { policy: resolved }), thinking: false };
}

/** An applier over one framework's messages. */
export function createFrameworkApplier<Message>(
  options: BarometerFrameworkOptions,
  normalize: (usage: unknown, modelId: unknown) => UsageUpdate,
): FrameworkApplier<Message> {
  const applier = createApplier(applierOptions(options));
  return {
    handle: applier.handle,
    fail: (error) => applier.recorder.fail(error),
    async apply(messages, call, codec) {
      const read = messages.map((message) => {
        const prompt = codec.read(message) as Tagged<Message>;
        prompt[ORIGIN] = message;
        return prompt;
      });
      const { prompt, driftPercent } = await applier.apply(read, {
        modelProvider: call.modelProvider,
        thinking: false,
        abortSignal: call.abortSignal,
      });
      const unchanged = new Set<PromptMessage>(read);
      const written = prompt.map((message) => {
        const origin = (message as Tagged<Message>)[ORIGIN];
        if (origin !== undefined && unchanged.has(message)) return origin;
        return codec.write(message, origin);
      });
      return { messages: written, driftPercent };
    },
    async record(usage, meta) {
      const update = normalize(usage, meta.modelId);
      return applier.recorder.record(
        meta.driftPercent === null
          ? update
          : { ...update, driftPercent: Math.min(100, Math.max(0, meta.driftPercent)) },
      );
    },
  };
}

/** A prompt message's text, as a framework message's string content. */
export function promptText(message: PromptMessage): string {
  const content = (message as { content: unknown }).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (part): part is { type: 'text'; text: string } =>
        part?.type === 'text' && typeof part.text === 'string',
    )
    .map((part) => part.text)
    .join('\n');
}

/** A tool result's output (an AI SDK tool-result output) as the text a framework's tool message holds. */
export function outputText(output: unknown): string {
  if (typeof output !== 'object' || output === null) return String(output ?? '');
  const { type, value } = output as { type?: unknown; value?: unknown };
  if ((type === 'text' || type === 'error-text') && typeof value === 'string') return value;
  if (type === 'execution-denied')
    return String((output as { reason?: unknown }).reason ?? 'Tool execution denied.');
  return JSON.stringify(value);
}
