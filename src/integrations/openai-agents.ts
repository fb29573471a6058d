/**
 * `barometer/openai-agents`: the OpenAI Agents SDK (`@openai/agents` 0.x) over a barometer session. A thin adapter
 * over the AI SDK adapters' applier: a `Model` decorator that applies the session's verdict and barometer's eviction
 * policy to every model call of the agent loop and records each response's usage; a `Session` decorator that applies
 * the same policy to the history a run starts from; and a `shouldTriggerCompaction` for
 * `OpenAIResponsesCompactionSession` that compacts when the session's verdict says so (tokens, the cache, the
 * quotas), not every ten items. The SDK is a type-only dependency: nothing here loads it.
 */
import type {
  AgentInputItem,
  Model,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  Session,
} from '@openai/agents';
import type { UsageUpdate } from '../session/session-options.js';
import { isObject } from '../usage/json-object.js';
import { normalizeAiSdk } from '../usage/normalize-ai-sdk.js';
import type { AiSdkHandle, PromptMessage } from './ai-sdk-applier.js';
import {
  type BarometerFrameworkOptions,
  createFrameworkApplier,
  type FrameworkApplier,
  type MessageCodec,
  outputText,
  promptText,
} from './framework-bridge.js';
import { type AdapterOptions, SessionRecorder } from './session-recorder.js';

export type { AiSdkHandle as BarometerOpenAIAgentsHandle } from './ai-sdk-applier.js';
export type { BarometerFrameworkOptions } from './framework-bridge.js';

type Json = Record<string, unknown>;

function parseArguments(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** The text of a function call's output (a string, `{ type: 'text', text }`, or a list of such parts). */
function resultText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (isObject(output) && typeof output.text === 'string') return output.text;
  if (Array.isArray(output)) return itemText(output);
  return JSON.stringify(output ?? '');
}

/**
 * Agents SDK input items as AI SDK prompt messages: a message by its role, a `function_call` as an assistant tool
 * call (its `arguments` JSON parsed), a `function_call_result` as a tool result; anything else (reasoning, a
 * compaction item, hosted tool calls) as an opaque assistant part, kept as it is.
 */
const codec: MessageCodec<AgentInputItem> = {
  read(item) {
    const entry = item as unknown as Json;
    if (entry.type === 'function_call')
      return {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: String(entry.callId),
            toolName: String(entry.name),
            input: parseArguments(entry.arguments),
          },
        ],
      } as unknown as PromptMessage;
    if (entry.type === 'function_call_result')
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: String(entry.callId),
            toolName: String(entry.name || 'tool'),
            output: {
              type: entry.status === 'incomplete' ? 'error-text' : 'text',
              value: resultText(entry.output),
            },
          },
        ],
      } as unknown as PromptMessage;
    if ((entry.type === undefined || entry.type === 'message') && typeof entry.role === 'string') {
      const text = itemText(entry.content);
      if (entry.role === 'system' || entry.role === 'developer')
        return { role: 'system', content: text } as PromptMessage;
      const role = entry.role === 'assistant' ? 'assistant' : 'user';
      return { role, content: text === '' ? [] : [{ type: 'text', text }] } as unknown as PromptMessage;
    }
    return {
      role: 'assistant',
      content: [{ type: 'openai-agents-item', item: entry }],
    } as unknown as PromptMessage;
  },
  write(message, origin) {
    const parts = Array.isArray(message.content) ? (message.content as unknown as Json[]) : [];
    const entry = origin as unknown as Json | undefined;
    if (entry?.type === 'function_call') {
      const call = parts.find((part) => part.type === 'tool-call');
      return { ...entry, arguments: JSON.stringify(call?.input ?? {}) } as unknown as AgentInputItem;
    }
    if (entry?.type === 'function_call_result') {
      const result = parts.find((part) => part.type === 'tool-result');
      return {
        ...entry,
        output: { type: 'text', text: outputText(result?.output) },
      } as unknown as AgentInputItem;
    }
    const text = promptText(message);
    if (message.role === 'system') return { role: 'system', content: text } as AgentInputItem;
    if (message.role === 'assistant')
      return {
        ...(entry ?? {}),
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text }],
      } as unknown as AgentInputItem;
    return { ...(entry ?? {}), role: 'user', content: text } as unknown as AgentInputItem;
  },
};

/** A detail of the SDK's `Usage` (`inputTokensDetails` is a list of per-request records) or of a raw usage. */
function detailOf(details: unknown, key: string): number | undefined {
  const records = Array.isArray(details) ? details : isObject(details) ? [details] : [];
  let total: number | undefined;
  for (const record of records)
    if (isObject(record) && typeof record[key] === 'number') total = (total ?? 0) + (record[key] as number);
  return total;
}

/**
 * A response's `usage` as a usage update: the SDK's `Usage` (`inputTokens`, the whole prompt, with
 * `inputTokensDetails[].cached_tokens`; `outputTokens` with `outputTokensDetails[].reasoning_tokens`), or the raw
 * Responses usage a stream's `response_done` carries (the same names, snake_case).
 */
export function openAIAgentsUsageUpdate(usage: unknown, modelId: unknown): UsageUpdate {
  if (!isObject(usage)) return { usage: normalizeAiSdk({ usage, response: { modelId } }) };
  const input = usage.inputTokens ?? usage.input_tokens;
  const output = usage.outputTokens ?? usage.output_tokens;
  const cached = detailOf(usage.inputTokensDetails ?? usage.input_tokens_details, 'cached_tokens');
  const reasoning = detailOf(usage.outputTokensDetails ?? usage.output_tokens_details, 'reasoning_tokens');
  const spec = {
    inputTokens: { total: input, ...(cached === undefined ? {} : { cacheRead: cached }) },
    outputTokens: { total: output, ...(reasoning === undefined ? {} : { reasoning }) },
  };
  return { usage: normalizeAiSdk({ usage: spec, response: { modelId } }) };
}

/** The request's input as items (a first turn may give the user's text alone). */
function inputItems(input: ModelRequest['input']): AgentInputItem[] {
  return typeof input === 'string' ? [{ role: 'user', content: input } as AgentInputItem] : input;
}

/** A Model barometer wraps, with `barometer` to read the session from. */
export type BarometerModel = Model & { readonly barometer: AiSdkHandle };

function modelIdOf(model: Model): unknown {
  return (
    (model as unknown as { model?: unknown; _model?: unknown }).model ??
    (model as { _model?: unknown })._model
  );
}

/** Wraps one model over an applier several models of a conversation may share. */
function wrapModel(model: Model, applier: FrameworkApplier<AgentInputItem>): BarometerModel {
  const prepare = async (request: ModelRequest) => {
    const { messages, driftPercent } = await applier.apply(
      inputItems(request.input),
      { modelProvider: 'openai', abortSignal: request.signal },
      codec,
    );
    return { request: { ...request, input: messages }, driftPercent };
  };
  const wrapped: Model = {
    async getResponse(request) {
      const { request: next, driftPercent } = await prepare(request);
      const response: ModelResponse = await model.getResponse(next);
      await applier.record(response.usage, { modelId: modelIdOf(model), driftPercent });
      return response;
    },
    async *getStreamedResponse(request) {
      const { request: next, driftPercent } = await prepare(request);
      for await (const event of model.getStreamedResponse(next)) {
        const done = event as unknown as { type?: string; response?: { usage?: unknown } };
        // The event reaches the runner once the session has the usage, so the verdict is current by then.
        if (done.type === 'response_done')
          await applier.record(done.response?.usage, { modelId: modelIdOf(model), driftPercent });
        yield event;
      }
    },
  };
  Object.defineProperty(wrapped, 'barometer', { value: applier.handle, enumerable: false });
  return wrapped as BarometerModel;
}

/**
 * A `Model` decorator: `new Agent({ model: barometerModel(new OpenAIResponsesModel(client, 'gpt-5'), { session,
 * archive }) })`. Before each model call of the agent loop the request's `input` (the run's history and the turn's
 * items, which the SDK sends again on every call) goes through the same applier as the AI SDK middleware: at a
 * sub-task boundary (a TodoWrite / update_plan item completed, a `git commit` run by a tool, a new user request) the
 * completed sub-tasks' function-call outputs and large arguments are archived, then tombstoned in one batch and kept
 * tombstoned on every later call, so the provider's cached prefix changes once per batch; the `context_health`
 * reminder; the wait on a per-minute quota; recap and flush on `compress`. After the call the response's `usage`
 * (`inputTokens` with `inputTokensDetails[].cached_tokens`, `outputTokens`) goes to the session. The run's items
 * and its session are never changed: only what the model is sent. One decorator per conversation.
 *
 * @example
 * const model = barometerModel(new OpenAIResponsesModel(new OpenAI(), 'gpt-5'), { session, archive: new ArchiveStore({ root }) });
 * await run(new Agent({ name: 'reviewer', instructions, tools, model }), 'Review the modules.');
 * model.barometer.lastEviction; // what the policy did on the latest call
 */
export function barometerModel(model: Model, options: BarometerFrameworkOptions): BarometerModel {
  if (typeof model?.getResponse !== 'function')
    throw new TypeError('barometer: barometerModel needs an Agents SDK Model (it has getResponse)');
  return wrapModel(model, createFrameworkApplier<AgentInputItem>(options, openAIAgentsUsageUpdate));
}

/**
 * A `ModelProvider` decorator (`new Runner({ modelProvider: barometerModelProvider(new OpenAIProvider(), { session,
 * archive }) })`): every model it gives is wrapped as {@link barometerModel}, over one applier, so that the agents of
 * one conversation share its evictions.
 */
export function barometerModelProvider(
  provider: ModelProvider,
  options: BarometerFrameworkOptions,
): ModelProvider & { readonly barometer: AiSdkHandle } {
  const applier = createFrameworkApplier<AgentInputItem>(options, openAIAgentsUsageUpdate);
  const wrapped: ModelProvider = {
    async getModel(name?: string) {
      return wrapModel(await provider.getModel(name), applier);
    },
  };
  Object.defineProperty(wrapped, 'barometer', { value: applier.handle, enumerable: false });
  return wrapped as ModelProvider & { readonly barometer: AiSdkHandle };
}

/**
 * A `Session` decorator: the underlying session stores the items as the runner gives them; `getItems` answers them
 * with barometer's policy applied (the evictions in force, a new batch at a boundary, archived first), so that a
 * new run starts from the evicted history. Usage is recorded by {@link barometerModel}: use both.
 */
export class BarometerSession implements Session {
  readonly #underlying: Session;
  readonly #applier: FrameworkApplier<AgentInputItem>;

  constructor(underlying: Session, options: BarometerFrameworkOptions) {
    if (typeof underlying?.getItems !== 'function')
      throw new TypeError('barometer: BarometerSession needs an Agents SDK Session to decorate');
    this.#underlying = underlying;
    this.#applier = createFrameworkApplier<AgentInputItem>(options, openAIAgentsUsageUpdate);
  }

  get barometer(): AiSdkHandle {
    return this.#applier.handle;
  }

  getSessionId(): Promise<string> {
    return this.#underlying.getSessionId();
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const items = await this.#underlying.getItems(limit);
    const { messages } = await this.#applier.apply(items, { modelProvider: 'openai' }, codec);
    return messages;
  }

  addItems(items: AgentInputItem[]): Promise<void> {
    return this.#underlying.addItems(items);
  }

  popItem(): Promise<AgentInputItem | undefined> {
    return this.#underlying.popItem();
  }

  clearSession(): Promise<void> {
    return this.#underlying.clearSession();
  }
}

/**
 * A `shouldTriggerCompaction` for `OpenAIResponsesCompactionSession`: compact when the session's verdict is
 * `compress` — the prompt past the health model's threshold, the standard or survival trigger of the token counts,
 * a quota that waiting cannot help — and never on `wait` (the quota refills and the cache holds), instead of every
 * ten candidate items. Reads the session barometer records the calls in (with {@link barometerModel}).
 */
export function barometerShouldTriggerCompaction(
  options: AdapterOptions,
): (context: unknown) => Promise<boolean> {
  const recorder = new SessionRecorder(options);
  return async () => {
    try {
      const { verdict } = await recorder.standing();
      return verdict?.action === 'compress';
    } catch (error) {
      recorder.fail(error);
      return false;
    }
  };
}
