import * as z from 'zod';
import { BarometerValidationError } from '../errors/validation.js';
import {
  assertSameProvider,
  type FromMessagesOptions,
  generatedId,
  resultId,
  runsByRole,
  structuredContent,
  toolNamesByCallId,
} from './adapter-support.js';
import { type HistoryItem, itemRole, type ToolResultItem } from './history-item.js';
import { parseOrThrow } from './parse-or-throw.js';

const PartSchema = z.looseObject({ type: z.string() });

const ToolResultOutputSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), value: z.string() }),
  z.looseObject({ type: z.literal('json'), value: z.unknown() }),
  z.looseObject({ type: z.literal('error-text'), value: z.string() }),
  z.looseObject({ type: z.literal('error-json'), value: z.unknown() }),
  z.looseObject({ type: z.literal('content'), value: z.array(PartSchema) }),
  z.looseObject({ type: z.literal('execution-denied'), reason: z.string().optional() }),
]);
type ToolResultOutput = z.infer<typeof ToolResultOutputSchema>;

const ToolCallPartSchema = z.looseObject({
  type: z.literal('tool-call'),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  input: z.unknown(),
});
const ToolResultPartSchema = z.looseObject({
  type: z.literal('tool-result'),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  output: ToolResultOutputSchema,
});
/** The user's answer to a tool approval request (AI SDK 6 and 7): nothing the model reads as content. */
const ToolApprovalResponsePartSchema = z.looseObject({
  type: z.literal('tool-approval-response'),
  approvalId: z.string(),
  approved: z.boolean(),
});

/**
 * A Vercel AI SDK `ModelMessage` (v5 and later), or a message of a language model's prompt (spec v3 and v4,
 * what a middleware's `transformParams` sees: the same roles, with every user and assistant content an array).
 * Extra fields such as `providerOptions` are accepted and not kept, except barometer's own recap mark.
 */
export const ModelMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: z.string() }),
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(PartSchema)]) }),
  z.looseObject({ role: z.literal('assistant'), content: z.union([z.string(), z.array(PartSchema)]) }),
  z.looseObject({
    role: z.literal('tool'),
    content: z.array(z.union([ToolResultPartSchema, ToolApprovalResponsePartSchema])),
  }),
]);
export type ModelMessage = z.infer<typeof ModelMessageSchema>;
type Part = z.infer<typeof PartSchema>;

function resultItem(part: z.infer<typeof ToolResultPartSchema>): ToolResultItem {
  const { output } = part;
  const base = {
    kind: 'tool-result' as const,
    id: resultId(part.toolCallId),
    callId: part.toolCallId,
    name: part.toolName,
  };
  switch (output.type) {
    case 'text':
      return { ...base, content: output.value };
    case 'error-text':
      return { ...base, content: output.value, isError: true };
    case 'json':
      return { ...base, content: JSON.stringify(output.value), format: 'json' };
    case 'error-json':
      return { ...base, content: JSON.stringify(output.value), format: 'json', isError: true };
    case 'content':
      return { ...base, content: JSON.stringify(output.value), format: 'blocks' };
    case 'execution-denied':
      // The model reads the denial as an error; written back, it is an `error-text` output.
      return { ...base, content: output.reason ?? 'Tool execution denied.', isError: true };
  }
}

/**
 * The mark barometer puts on a recap message it writes into AI SDK messages (`providerOptions.barometer.recap`,
 * `recap-<n>`), so that a later compaction reads it back as a recap: its number is not reused and its content
 * is carried over. Providers read only their own `providerOptions` keys, so the mark never reaches a model.
 */
export function recapMarkOf(message: unknown): string | undefined {
  const options = (message as { providerOptions?: { barometer?: { recap?: unknown } } } | undefined)
    ?.providerOptions;
  const mark = options?.barometer?.recap;
  return typeof mark === 'string' && /^recap-\d+$/.test(mark) ? mark : undefined;
}

function partItem(part: Part, id: string, role: 'user' | 'assistant'): HistoryItem {
  if (part.type === 'text' && typeof part.text === 'string') return { kind: role, id, text: part.text };
  const call = ToolCallPartSchema.safeParse(part);
  if (call.success) {
    const { toolCallId, toolName, input } = call.data;
    return { kind: 'tool-call', id: toolCallId, callId: toolCallId, name: toolName, input };
  }
  const result = ToolResultPartSchema.safeParse(part);
  if (result.success) return resultItem(result.data);
  return { kind: 'opaque', id, role, provider: 'ai-sdk', value: part };
}

/**
 * Reads AI SDK `ModelMessage`s (or a language model prompt) into history items: text parts, `tool-call` parts and
 * `tool-result` parts (`text`, `json`, `error-*`, `execution-denied` and `content` outputs); other parts (images,
 * files, reasoning) become opaque items. `tool-approval-response` parts give no item (the model reads nothing
 * from them), so {@link toModelMessages} does not write them back.
 * @throws BarometerValidationError when a message does not have the ModelMessage shape
 */
export function fromModelMessages(messages: unknown, options: FromMessagesOptions = {}): HistoryItem[] {
  return readModelMessages(messages, options).items;
}

/**
 * {@link fromModelMessages}, also saying which message each item came from (`sources[i]` is the index of the
 * message of `items[i]`), so that a compaction can keep and archive the messages as the caller sent them. A user
 * message marked as barometer's recap (see {@link recapMarkOf}) is read as that recap.
 * @throws BarometerValidationError when a message does not have the ModelMessage shape
 */
export function readModelMessages(
  messages: unknown,
  options: FromMessagesOptions = {},
): { items: HistoryItem[]; sources: number[] } {
  const parsed = parseOrThrow(z.array(ModelMessageSchema), messages, 'AI SDK messages');
  const items: HistoryItem[] = [];
  const sources: number[] = [];
  parsed.forEach((message, index) => {
    const at = (part: number) => generatedId(options.idPrefix, index, part);
    const recap = message.role === 'user' ? recapMarkOf(message) : undefined;
    if (recap !== undefined) {
      const content = message.content as string | Part[];
      const text =
        typeof content === 'string'
          ? content
          : content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n');
      items.push({ kind: 'user', id: recap, text, recap: true });
    } else if (message.role === 'system') items.push({ kind: 'system', id: at(0), text: message.content });
    else if (message.role === 'tool') {
      for (const part of message.content) if (part.type === 'tool-result') items.push(resultItem(part));
    } else if (typeof message.content === 'string')
      items.push({ kind: message.role, id: at(0), text: message.content });
    else {
      const role = message.role;
      for (const [partIndex, part] of message.content.entries())
        items.push(partItem(part, at(partIndex), role));
    }
    while (sources.length < items.length) sources.push(index);
  });
  return { items, sources };
}

function notRepresentable(index: number, message: string, field?: string): BarometerValidationError {
  return new BarometerValidationError(
    [{ field: `[${index}]${field ? `.${field}` : ''}`, value: undefined, message }],
    'history',
  );
}

function outputOf(item: ToolResultItem): ToolResultOutput {
  if (item.format === 'blocks') {
    const value = structuredContent(item);
    if (Array.isArray(value)) return { type: 'content', value: value as Part[] };
  }
  if (item.format === 'json') {
    const value = structuredContent(item);
    return item.isError ? { type: 'error-json', value } : { type: 'json', value };
  }
  return item.isError ? { type: 'error-text', value: item.content } : { type: 'text', value: item.content };
}

/**
 * Writes history items as AI SDK v5 `ModelMessage`s. Consecutive items of one role form one message; tool
 * results go in `tool` messages and name their tool (from the item, else from its call).
 * @throws BarometerValidationError when an opaque item came from another provider, or a result's tool is unknown
 */
export function toModelMessages(items: readonly HistoryItem[]): ModelMessage[] {
  assertSameProvider(items, 'ai-sdk');
  const names = toolNamesByCallId(items);
  const messages: ModelMessage[] = [];
  const runs = runsByRole(items, itemRole);
  for (const run of runs) {
    if (run.role === 'system') {
      // AI SDK system messages hold a string only, so each system item stays a message of its own.
      for (const [offset, item] of run.items.entries()) {
        if (item.kind !== 'system')
          throw notRepresentable(run.start + offset, 'an AI SDK system message holds text only');
        messages.push({ role: 'system', content: item.text });
      }
      continue;
    }
    if (run.role === 'tool') {
      const content = run.items.flatMap((item, offset) => {
        if (item.kind !== 'tool-result') return [];
        const toolName = item.name ?? names.get(item.callId);
        if (!toolName)
          throw notRepresentable(run.start + offset, `no tool name for call ${item.callId}`, 'name');
        return [{ type: 'tool-result' as const, toolCallId: item.callId, toolName, output: outputOf(item) }];
      });
      messages.push({ role: 'tool', content });
      continue;
    }
    const only = run.items[0];
    if (run.items.length === 1 && (only?.kind === 'user' || only?.kind === 'assistant')) {
      messages.push({ role: run.role, content: only.text } as ModelMessage);
      continue;
    }
    const parts = run.items.map((item) => {
      if (item.kind === 'tool-call')
        return { type: 'tool-call', toolCallId: item.callId, toolName: item.name, input: item.input };
      if (item.kind === 'opaque') return item.value as Part;
      return { type: 'text', text: 'text' in item ? item.text : '' };
    });
    messages.push({ role: run.role, content: parts } as ModelMessage);
  }
  return messages;
}
