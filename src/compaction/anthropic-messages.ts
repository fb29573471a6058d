import * as z from 'zod';
import {
  assertSameProvider,
  type FromMessagesOptions,
  generatedId,
  resultId,
  runsByRole,
  structuredContent,
} from './adapter-support.js';
import { type HistoryItem, isSystemItem, itemRole } from './history-item.js';
import { parseOrThrow } from './parse-or-throw.js';

const BlockSchema = z.looseObject({ type: z.string() });
const TextBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

/** An Anthropic Messages API message: content is a string or an array of content blocks. */
export const AnthropicMessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(BlockSchema)]),
});
export type AnthropicMessage = z.infer<typeof AnthropicMessageSchema>;

/** An Anthropic request's conversation: the system prompt travels beside the messages, not among them. */
export const AnthropicConversationSchema = z.looseObject({
  system: z.union([z.string(), z.array(BlockSchema)]).optional(),
  messages: z.array(AnthropicMessageSchema),
});
export type AnthropicConversation = z.infer<typeof AnthropicConversationSchema>;
type Block = z.infer<typeof BlockSchema>;

const ToolUseSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});
const ToolResultSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(BlockSchema)]).optional(),
  is_error: z.boolean().optional(),
});

function blockItem(block: Block, id: string, role: 'system' | 'user' | 'assistant'): HistoryItem {
  const text = TextBlockSchema.safeParse(block);
  if (text.success)
    return role === 'system'
      ? { kind: 'system', id, text: text.data.text }
      : { kind: role, id, text: text.data.text };
  const use = role === 'assistant' ? ToolUseSchema.safeParse(block) : undefined;
  if (use?.success)
    return {
      kind: 'tool-call',
      id: use.data.id,
      callId: use.data.id,
      name: use.data.name,
      input: use.data.input,
    };
  const result = role === 'user' ? ToolResultSchema.safeParse(block) : undefined;
  if (result?.success) {
    const { tool_use_id: callId, content, is_error: isError } = result.data;
    const blocks = Array.isArray(content);
    return {
      kind: 'tool-result',
      id: resultId(callId),
      callId,
      content: blocks ? JSON.stringify(content) : (content ?? ''),
      ...(blocks ? { format: 'blocks' as const } : {}),
      ...(isError !== undefined ? { isError } : {}),
    };
  }
  // Thinking, images, documents and the like are carried untouched (thinking blocks must come back as they were).
  return { kind: 'opaque', id, role, provider: 'anthropic', value: block };
}

/**
 * Reads an Anthropic conversation (`system` + `messages`) into history items: text blocks, `tool_use` blocks
 * (tool calls) and `tool_result` blocks (tool results); other blocks become opaque items.
 * @throws BarometerValidationError when the conversation does not have the Anthropic shape
 */
export function fromAnthropicMessages(
  conversation: unknown,
  options: FromMessagesOptions = {},
): HistoryItem[] {
  const parsed = parseOrThrow(AnthropicConversationSchema, conversation, 'Anthropic conversation');
  const items: HistoryItem[] = [];
  const { system } = parsed;
  // The system prompt has no message index of its own: its ids use index "s" so they never collide.
  if (typeof system === 'string')
    items.push({ kind: 'system', id: generatedId(options.idPrefix, 's', 0), text: system });
  else if (system) {
    for (const [part, block] of system.entries())
      items.push(blockItem(block, generatedId(options.idPrefix, 's', part), 'system'));
  }
  parsed.messages.forEach((message, index) => {
    if (typeof message.content === 'string') {
      items.push({ kind: message.role, id: generatedId(options.idPrefix, index, 0), text: message.content });
      return;
    }
    message.content.forEach((block, part) => {
      items.push(blockItem(block, generatedId(options.idPrefix, index, part), message.role));
    });
  });
  return items;
}

function blockOf(item: HistoryItem): unknown {
  switch (item.kind) {
    case 'tool-call':
      return { type: 'tool_use', id: item.callId, name: item.name, input: item.input ?? {} };
    case 'tool-result': {
      const structured = item.format === 'blocks' ? structuredContent(item) : undefined;
      return {
        type: 'tool_result',
        tool_use_id: item.callId,
        content: Array.isArray(structured) ? structured : item.content,
        ...(item.isError !== undefined ? { is_error: item.isError } : {}),
      };
    }
    case 'opaque':
      return item.value;
    default:
      return { type: 'text', text: item.text };
  }
}

/**
 * Writes history items as an Anthropic conversation. System items go to `system`; tool results travel in user
 * messages; consecutive items of one role form one message (a single text item is written as a string).
 * @throws BarometerValidationError when an opaque item came from another provider
 */
export function toAnthropicMessages(items: readonly HistoryItem[]): AnthropicConversation {
  assertSameProvider(items, 'anthropic');
  const systemItems = items.filter(isSystemItem);
  const rest = items.filter((item) => !isSystemItem(item));
  const conversation: AnthropicConversation = { messages: [] };
  const firstSystem = systemItems[0];
  if (systemItems.length === 1 && firstSystem?.kind === 'system') conversation.system = firstSystem.text;
  else if (systemItems.length > 0) conversation.system = systemItems.map(blockOf) as Block[];
  // Anthropic has two roles: tool results travel with the user.
  const runs = runsByRole(rest, (item) => (itemRole(item) === 'assistant' ? 'assistant' : 'user'));
  for (const run of runs) {
    const only = run.items[0];
    const single = run.items.length === 1 && (only?.kind === 'user' || only?.kind === 'assistant');
    conversation.messages.push({
      role: run.role,
      content: single && only && 'text' in only ? only.text : (run.items.map(blockOf) as Block[]),
    });
  }
  return conversation;
}
