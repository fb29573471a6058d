/**
 * `barometer/langchain`: LangChain.js agents (`langchain` 1.x, `createAgent({ middleware })`) over a barometer
 * session. A thin adapter over the AI SDK adapters' applier: the session decides, barometer's eviction policy evicts,
 * this reads LangChain messages and writes them back. LangChain is a type-only dependency: nothing here loads it
 * (the messages barometer writes are made with the constructors of the messages the agent sent).
 */
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { AgentMiddleware, ContextEdit } from 'langchain';
import type { AiSdkHandle, PromptMessage } from './ai-sdk-applier.js';
import {
  type BarometerFrameworkOptions,
  createFrameworkApplier,
  type MessageCodec,
  outputText,
  promptText,
} from './framework-bridge.js';
import { langChainUsageUpdate } from './langchain-usage.js';

export type { AiSdkHandle as BarometerLangChainHandle } from './ai-sdk-applier.js';
export type { BarometerFrameworkOptions } from './framework-bridge.js';

type Json = Record<string, unknown>;
type ToolCall = { id?: string; name: string; args: Record<string, unknown>; type?: 'tool_call' };
type MessageConstructor = new (fields: Json) => BaseMessage;

/** LangChain 1.x names a message's kind by `type` (`_getType()` before, kept as an alias). */
function kindOf(message: BaseMessage): string {
  const type = (message as unknown as { type?: unknown }).type;
  if (typeof type === 'string') return type;
  const getType = (message as unknown as { _getType?: () => string })._getType;
  return typeof getType === 'function' ? getType.call(message) : 'human';
}

function contentParts(content: unknown): Json[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block): Json[] => {
    if (typeof block === 'string') return [{ type: 'text', text: block }];
    if (typeof block !== 'object' || block === null) return [];
    const part = block as Json;
    if (part.type === 'text' && typeof part.text === 'string') return [{ type: 'text', text: part.text }];
    // A provider's own copy of a tool call (Anthropic's `tool_use` block): the call is read from `tool_calls`.
    if (part.type === 'tool_use' || part.type === 'tool_call' || part.type === 'functionCall') return [];
    return [{ ...part, type: `langchain-${String(part.type ?? 'block')}` }];
  });
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  const texts = contentParts(content)
    .filter((part) => part.type === 'text')
    .map((part) => part.text as string);
  return texts.length > 0 ? texts.join('\n') : JSON.stringify(content ?? '');
}

/** The codec of one model call: the constructors of the messages it was given make the messages barometer writes. */
function langChainCodec(
  messages: readonly BaseMessage[],
  system: BaseMessage | undefined,
): MessageCodec<BaseMessage> {
  const constructors = new Map<string, MessageConstructor>();
  for (const message of [...(system ? [system] : []), ...messages]) {
    const kind = kindOf(message);
    if (!constructors.has(kind)) constructors.set(kind, message.constructor as MessageConstructor);
  }
  const toolNames = new Map<string, string>();
  const make = (kind: string, fields: Json, origin: BaseMessage | undefined): BaseMessage => {
    const Constructor =
      (origin?.constructor as MessageConstructor | undefined) ??
      constructors.get(kind) ??
      constructors.get('human');
    if (!Constructor) throw new TypeError(`barometer: no LangChain ${kind} message to write one like`);
    return new Constructor(fields);
  };
  return {
    read(message) {
      const kind = kindOf(message);
      if (kind === 'system')
        return { role: 'system', content: contentText(message.content) } as PromptMessage;
      if (kind === 'ai') {
        const calls = ((message as AIMessage).tool_calls ?? []) as ToolCall[];
        for (const call of calls) if (call.id) toolNames.set(call.id, call.name);
        const parts = [
          ...contentParts(message.content),
          ...calls
            .filter((call) => typeof call.id === 'string' && call.id !== '')
            .map((call) => ({
              type: 'tool-call',
              toolCallId: call.id,
              toolName: call.name,
              input: call.args,
            })),
        ];
        return { role: 'assistant', content: parts } as unknown as PromptMessage;
      }
      if (kind === 'tool') {
        const tool = message as unknown as { tool_call_id: string; name?: string; status?: string };
        const error = tool.status === 'error';
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: tool.tool_call_id,
              toolName: tool.name || toolNames.get(tool.tool_call_id) || 'tool',
              output: { type: error ? 'error-text' : 'text', value: contentText(message.content) },
            },
          ],
        } as unknown as PromptMessage;
      }
      return { role: 'user', content: contentParts(message.content) } as unknown as PromptMessage;
    },
    write(prompt, origin) {
      const base: Json = origin
        ? {
            id: origin.id,
            name: origin.name,
            additional_kwargs: origin.additional_kwargs,
            response_metadata: origin.response_metadata,
          }
        : {};
      const parts = Array.isArray(prompt.content) ? (prompt.content as unknown as Json[]) : [];
      if (prompt.role === 'tool') {
        const result = parts.find((part) => part.type === 'tool-result');
        const tool = origin as unknown as
          | { tool_call_id?: string; status?: string; artifact?: unknown }
          | undefined;
        return make(
          'tool',
          {
            ...base,
            content: outputText(result?.output),
            tool_call_id: tool?.tool_call_id ?? result?.toolCallId,
            ...(tool?.status ? { status: tool.status } : {}),
          },
          origin,
        );
      }
      if (prompt.role === 'assistant' && origin) return rewrittenAi(origin as AIMessage, parts, base, make);
      const kind = prompt.role === 'system' ? 'system' : prompt.role === 'assistant' ? 'ai' : 'human';
      return make(kind, { ...base, content: promptText(prompt) }, origin);
    },
  };
}

/** An AI message whose tool calls' inputs barometer replaced by tombstones: its calls' args, and any provider copy. */
function rewrittenAi(
  origin: AIMessage,
  parts: readonly Json[],
  base: Json,
  make: (kind: string, fields: Json, origin: BaseMessage | undefined) => BaseMessage,
): BaseMessage {
  const inputs = new Map<string, unknown>();
  for (const part of parts) if (part.type === 'tool-call') inputs.set(part.toolCallId as string, part.input);
  const argsOf = (id: unknown, args: unknown) =>
    typeof id === 'string' && inputs.has(id) ? inputs.get(id) : args;
  const content = Array.isArray(origin.content)
    ? origin.content.map((block) => {
        const part = block as unknown as Json;
        return part.type === 'tool_use' ? { ...part, input: argsOf(part.id, part.input) } : block;
      })
    : origin.content;
  const toolCalls = ((origin.tool_calls ?? []) as ToolCall[]).map((call) => ({
    ...call,
    args: argsOf(call.id, call.args),
  }));
  return make(
    'ai',
    {
      ...base,
      content,
      tool_calls: toolCalls,
      ...(origin.usage_metadata ? { usage_metadata: origin.usage_metadata } : {}),
    },
    origin,
  );
}

/** The provider name barometer's reminder placement reads (`openai…` puts it last, others after the system prompt). */
function providerOf(model: unknown): string {
  const llmType = (model as { _llmType?: () => string } | undefined)?._llmType;
  try {
    return typeof llmType === 'function' ? String(llmType.call(model)) : '';
  } catch {
    return '';
  }
}

/** What `createAgent` passes a middleware's `wrapModelCall` (the parts barometer reads). */
export interface LangChainModelRequest {
  messages: BaseMessage[];
  systemMessage?: BaseMessage;
  model?: unknown;
  runtime?: { signal?: AbortSignal };
  [key: string]: unknown;
}

/** The LangChain agent middleware `barometerMiddleware` returns, with `barometer` to read the session from. */
export type BarometerLangChainMiddleware = AgentMiddleware & { readonly barometer: AiSdkHandle };

function isAiMessage(value: unknown): value is AIMessage {
  return typeof value === 'object' && value !== null && kindOf(value as BaseMessage) === 'ai';
}

/** The core both LangChain adapters share: one applier, and the AI messages whose usage it has recorded. */
function langChainCore(options: BarometerFrameworkOptions) {
  const applier = createFrameworkApplier<BaseMessage>(options, langChainUsageUpdate);
  const recorded = new WeakSet<object>();
  const record = async (message: AIMessage, driftPercent: number | null) => {
    if (recorded.has(message)) return;
    recorded.add(message);
    const metadata = message.response_metadata as Json | undefined;
    await applier.record(message.usage_metadata, {
      modelId: metadata?.model_name ?? metadata?.model ?? metadata?.model_id,
      driftPercent,
    });
  };
  return { applier, record };
}

/**
 * A LangChain agent middleware (`createAgent({ middleware: [barometerMiddleware({ session, archive })] })`) that keeps
 * a barometer session informed and applies its verdict and barometer's eviction policy to every model call.
 *
 * Before each call (`wrapModelCall`) the request's messages — LangChain keeps the originals in the agent's state and
 * sends them again on every step — go through the same applier as the AI SDK middleware: at a sub-task boundary (a
 * TodoWrite / update_plan item completed, a `git commit` run by a tool, a new user request) the completed sub-tasks'
 * tool results and large tool arguments are archived, then tombstoned in one batch, and stay tombstoned on every
 * later call, so the prompt's cached prefix changes once per batch; the `context_health` reminder while one is
 * active; on `wait`, the wait for a per-minute quota; on `compress`, recap and flush. After the call, the response's
 * `usage_metadata` (`input_tokens`, `input_token_details.cache_read` / `cache_creation`, `output_tokens`) goes to the
 * session. The agent's state is never changed: only what the model is sent. barometer never fails a call: what it
 * cannot do goes to `onError` and `barometer.lastError`. One middleware per conversation.
 *
 * @example
 * const agent = createAgent({
 *   model: 'openai:gpt-5',
 *   tools,
 *   middleware: [barometerMiddleware({ session: new Session({ model: 'gpt-5' }), archive: new ArchiveStore({ root }) })],
 * });
 */
export function barometerMiddleware(options: BarometerFrameworkOptions): BarometerLangChainMiddleware {
  const { applier, record } = langChainCore(options);
  const middleware = {
    [Symbol.for('AgentMiddleware')]: true,
    name: 'BarometerMiddleware',
    async wrapModelCall(
      request: LangChainModelRequest,
      handler: (request: LangChainModelRequest) => Promise<unknown>,
    ) {
      let next = request;
      let driftPercent: number | null = null;
      try {
        const applied = await applier.apply(
          request.messages,
          { modelProvider: providerOf(request.model), abortSignal: request.runtime?.signal },
          langChainCodec(request.messages, request.systemMessage),
        );
        driftPercent = applied.driftPercent;
        next = { ...request, messages: applied.messages };
      } catch (error) {
        // A wait aborted by the run's signal ends the call as the model would have; anything else is barometer's.
        if (request.runtime?.signal?.aborted) throw error;
        applier.fail(error);
      }
      const response = await handler(next);
      if (isAiMessage(response)) await record(response, driftPercent);
      return response;
    },
  };
  Object.defineProperty(middleware, 'barometer', { value: applier.handle, enumerable: false });
  return middleware as unknown as BarometerLangChainMiddleware;
}

/**
 * barometer as a LangChain `ContextEdit`, for `contextEditingMiddleware({ edits: [barometerContextEdit(...)] })` in
 * place of (or after) `ClearToolUsesEdit`: the same applier on the messages the middleware edits in place. A
 * `ContextEdit` does not see the model's response, so the usage of each AI message is recorded when the next call's
 * messages show it (the session's verdict is one call behind the middleware's). Prefer {@link barometerMiddleware}.
 */
export function barometerContextEdit(
  options: BarometerFrameworkOptions,
): ContextEdit & { readonly barometer: AiSdkHandle } {
  const { applier, record } = langChainCore(options);
  const edit = {
    async apply(params: {
      messages: BaseMessage[];
      model?: unknown;
      countTokens: (messages: BaseMessage[]) => unknown;
    }) {
      const { messages } = params;
      for (const message of messages) if (isAiMessage(message)) await record(message, null);
      try {
        const applied = await applier.apply(
          messages,
          { modelProvider: providerOf(params.model) },
          langChainCodec(messages, undefined),
        );
        messages.splice(0, messages.length, ...applied.messages);
      } catch (error) {
        applier.fail(error);
      }
      return params.countTokens(messages);
    },
  };
  Object.defineProperty(edit, 'barometer', { value: applier.handle, enumerable: false });
  return edit as unknown as ContextEdit & { readonly barometer: AiSdkHandle };
}
