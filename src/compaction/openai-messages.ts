import * as z from 'zod';
import {
  assertSameProvider,
  type FromMessagesOptions,
  generatedId,
  resultId,
  runsByRole,
  structuredContent,
} from './adapter-support.js';
import { type HistoryItem, itemRole } from './history-item.js';
import { parseOrThrow } from './parse-or-throw.js';

const PartSchema = z.looseObject({ type: z.string() });
const ContentSchema = z.union([z.string(), z.array(PartSchema)]);

const ToolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

/** An OpenAI Chat Completions message (extra fields such as `name` or `refusal` are accepted and not kept). */
export const OpenAIChatMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: ContentSchema }),
  z.looseObject({ role: z.literal('developer'), content: ContentSchema }),
  z.looseObject({ role: z.literal('user'), content: ContentSchema }),
  z.looseObject({
    role: z.literal('assistant'),
    content: ContentSchema.nullable().optional(),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
  z.looseObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: ContentSchema }),
]);
export type OpenAIChatMessage = z.infer<typeof OpenAIChatMessageSchema>;
type OpenAIPart = z.infer<typeof PartSchema>;

function textOf(part: OpenAIPart): string | undefined {
  return part.type === 'text' && typeof part.text === 'string' ? part.text : undefined;
}

function parseArguments(text: string): unknown {
  // Models sometimes emit arguments that are not JSON; the raw text is kept so nothing is lost, and written
  // back verbatim (a parsed input is always an object, so a string input can only be such raw text).
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Reads OpenAI Chat Completions messages into history items: text parts become system/user/assistant items,
 * `tool_calls` become tool-call items, `role: 'tool'` messages become tool results; other parts (images, audio,
 * refusals) are kept as opaque items.
 * @throws BarometerValidationError when a message does not have the OpenAI shape
 */
export function fromOpenAIMessages(messages: unknown, options: FromMessagesOptions = {}): HistoryItem[] {
  return readOpenAIMessages(messages, options).items;
}

/**
 * {@link fromOpenAIMessages}, also saying which message each item came from (`sources[i]` is the index of the
 * message of `items[i]`), so that a compaction can archive the messages it replaced as the caller sent them.
 * @throws BarometerValidationError when a message does not have the OpenAI shape
 */
export function readOpenAIMessages(
  messages: unknown,
  options: FromMessagesOptions = {},
): { items: HistoryItem[]; sources: number[] } {
  const parsed = parseOrThrow(z.array(OpenAIChatMessageSchema), messages, 'OpenAI messages');
  const items: HistoryItem[] = [];
  const sources: number[] = [];
  parsed.forEach((message, index) => {
    readMessage(message, index, items, options);
    while (sources.length < items.length) sources.push(index);
  });
  return { items, sources };
}

function readMessage(
  message: OpenAIChatMessage,
  index: number,
  items: HistoryItem[],
  options: FromMessagesOptions,
): void {
  const at = (part: number) => generatedId(options.idPrefix, index, part);
  if (message.role === 'tool') {
    const blocks = typeof message.content !== 'string';
    items.push({
      kind: 'tool-result',
      id: resultId(message.tool_call_id),
      callId: message.tool_call_id,
      content: blocks ? JSON.stringify(message.content) : (message.content as string),
      ...(blocks ? { format: 'blocks' as const } : {}),
    });
    return;
  }
  const role = message.role === 'developer' ? 'system' : message.role;
  const content = message.content;
  const hasCalls = message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0;
  if (typeof content === 'string') {
    // An assistant message that only calls tools often carries content "" or null: no text item for it.
    if (!(hasCalls && content === '')) items.push(textItem(role, at(0), content, message.role));
  } else if (content) {
    content.forEach((part, partIndex) => {
      const text = textOf(part);
      if (text !== undefined) items.push(textItem(role, at(partIndex), text, message.role));
      else items.push({ kind: 'opaque', id: at(partIndex), role, provider: 'openai', value: part });
    });
  }
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) {
      items.push({
        kind: 'tool-call',
        id: call.id,
        callId: call.id,
        name: call.function.name,
        input: parseArguments(call.function.arguments),
      });
    }
  }
}

function textItem(
  role: 'system' | 'user' | 'assistant',
  id: string,
  text: string,
  source: string,
): HistoryItem {
  if (role === 'system')
    return source === 'developer'
      ? { kind: 'system', id, text, developer: true }
      : { kind: 'system', id, text };
  return { kind: role, id, text };
}

function partOf(item: HistoryItem): unknown {
  if (item.kind === 'opaque') return item.value;
  return { type: 'text', text: 'text' in item ? item.text : '' };
}

function contentOf(items: readonly HistoryItem[]): string | unknown[] | null {
  if (items.length === 0) return null;
  const only = items[0];
  if (items.length === 1 && only && only.kind !== 'opaque' && 'text' in only) return only.text;
  return items.map(partOf);
}

/**
 * Writes history items as OpenAI Chat Completions messages. Consecutive items of one role form one message
 * (text and tool calls of the assistant, several user parts); each tool result is its own `tool` message.
 * Not carried: `isError` (OpenAI has no such flag) and message fields barometer does not model.
 * @throws BarometerValidationError when an opaque item came from another provider
 */
export function toOpenAIMessages(items: readonly HistoryItem[]): OpenAIChatMessage[] {
  assertSameProvider(items, 'openai');
  const messages: OpenAIChatMessage[] = [];
  const runs = runsByRole(items, (item) =>
    item.kind === 'system' && item.developer ? 'developer' : itemRole(item),
  );
  for (const run of runs) {
    if (run.role === 'tool') {
      for (const item of run.items) {
        if (item.kind !== 'tool-result') continue;
        const content = item.format === 'blocks' ? structuredContent(item) : item.content;
        messages.push({
          role: 'tool',
          tool_call_id: item.callId,
          content: Array.isArray(content) ? content : item.content,
        } as OpenAIChatMessage);
      }
      continue;
    }
    const texts = run.items.filter((item) => item.kind !== 'tool-call');
    if (run.role !== 'assistant') {
      messages.push({ role: run.role, content: contentOf(texts) } as OpenAIChatMessage);
      continue;
    }
    const calls = run.items.flatMap((item) =>
      item.kind === 'tool-call'
        ? [
            {
              id: item.callId,
              type: 'function' as const,
              function: {
                name: item.name,
                arguments: typeof item.input === 'string' ? item.input : JSON.stringify(item.input ?? {}),
              },
            },
          ]
        : [],
    );
    messages.push({
      role: 'assistant',
      content: contentOf(texts),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    } as OpenAIChatMessage);
  }
  return messages;
}
