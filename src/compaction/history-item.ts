import * as z from 'zod';
import type { TokenCounter } from '../tokens/token-counter.js';

/** The providers whose message formats the adapters read and write. */
export const HISTORY_PROVIDERS = ['openai', 'anthropic', 'ai-sdk'] as const;
export type HistoryProvider = (typeof HISTORY_PROVIDERS)[number];

const id = z.string().min(1);

/** Instructions to the model (OpenAI `system`/`developer`, Anthropic `system`, AI SDK `system`). */
export const SystemItemSchema = z.strictObject({
  kind: z.literal('system'),
  id,
  text: z.string(),
  /** OpenAI's `developer` role, kept so that a round trip gives the same role back. */
  developer: z.boolean().optional(),
});

/** Text from the user; `recap: true` marks the recap a flush put in place of older turns. */
export const UserItemSchema = z.strictObject({
  kind: z.literal('user'),
  id,
  text: z.string(),
  recap: z.boolean().optional(),
});

/** Text the model wrote. */
export const AssistantItemSchema = z.strictObject({
  kind: z.literal('assistant'),
  id,
  text: z.string(),
});

/** A tool call the model made. `input` is the parsed arguments (an object for every provider). */
export const ToolCallItemSchema = z.strictObject({
  kind: z.literal('tool-call'),
  id,
  callId: id,
  name: z.string().min(1),
  input: z.unknown(),
  taskId: id.optional(),
  /** Set when the input was evicted: where the original lives (`<archive path>#<item id>`). */
  archivedTo: z.string().optional(),
});

/**
 * What a tool returned. `content` is text; `format` says how to read it: `text` (the default), `json` (the JSON
 * text of a structured value, e.g. AI SDK `json` outputs) or `blocks` (the JSON text of an array of content
 * parts such as `[{ "type": "text", "text": "…" }]`, which OpenAI, Anthropic and the AI SDK share for text).
 */
export const ToolResultItemSchema = z.strictObject({
  kind: z.literal('tool-result'),
  id,
  callId: id,
  name: z.string().min(1).optional(),
  content: z.string(),
  format: z.enum(['text', 'json', 'blocks']).optional(),
  isError: z.boolean().optional(),
  taskId: id.optional(),
  archivedTo: z.string().optional(),
});

/**
 * A provider-specific part barometer does not model (images, files, thinking blocks): carried as it came and
 * written back only to the same provider.
 */
export const OpaqueItemSchema = z.strictObject({
  kind: z.literal('opaque'),
  id,
  role: z.enum(['system', 'user', 'assistant']),
  provider: z.enum(HISTORY_PROVIDERS),
  value: z.unknown(),
});

/** One entry of a provider-neutral conversation history. */
export const HistoryItemSchema = z.discriminatedUnion('kind', [
  SystemItemSchema,
  UserItemSchema,
  AssistantItemSchema,
  ToolCallItemSchema,
  ToolResultItemSchema,
  OpaqueItemSchema,
]);
export const HistorySchema = z.array(HistoryItemSchema);

export type SystemItem = z.infer<typeof SystemItemSchema>;
export type UserItem = z.infer<typeof UserItemSchema>;
export type AssistantItem = z.infer<typeof AssistantItemSchema>;
export type ToolCallItem = z.infer<typeof ToolCallItemSchema>;
export type ToolResultItem = z.infer<typeof ToolResultItemSchema>;
export type OpaqueItem = z.infer<typeof OpaqueItemSchema>;
export type HistoryItem = z.infer<typeof HistoryItemSchema>;

/** The role an item plays in a provider message; tool results have a role of their own. */
export type ItemRole = 'system' | 'user' | 'assistant' | 'tool';

/** The role an item plays when written as provider messages (a tool call is the assistant's). */
export function itemRole(item: HistoryItem): ItemRole {
  switch (item.kind) {
    case 'tool-call':
      return 'assistant';
    case 'tool-result':
      return 'tool';
    case 'opaque':
      return item.role;
    default:
      return item.kind;
  }
}

/** The text an item puts in front of the model, as a tokenizer sees it. */
export function itemText(item: HistoryItem): string {
  switch (item.kind) {
    case 'tool-call':
      return `${item.name} ${JSON.stringify(item.input ?? {})}`;
    case 'tool-result':
      return item.content;
    case 'opaque':
      return JSON.stringify(item.value) ?? '';
    default:
      return item.text;
  }
}

/**
 * The tokens of a history's content. Message framing (a few tokens per message, different per provider) is
 * left out, and so are opaque parts (images, files): a text tokenizer cannot count them. The figure compares
 * histories with each other; it does not predict a provider's bill.
 */
export function countHistoryTokens(items: readonly HistoryItem[], counter: TokenCounter): number {
  let tokens = 0;
  for (const item of items) if (item.kind !== 'opaque') tokens += counter.count(itemText(item));
  return tokens;
}

/** A user message that starts a turn: a real request, not a recap left by a flush. */
export function isTurnStart(item: HistoryItem): boolean {
  return item.kind === 'user' && item.recap !== true;
}

/** Instructions to the model, which every flush keeps. */
export function isSystemItem(item: HistoryItem): boolean {
  return item.kind === 'system' || (item.kind === 'opaque' && item.role === 'system');
}
