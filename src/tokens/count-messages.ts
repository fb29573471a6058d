import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import type { TokenCounter } from './token-counter.js';

/**
 * One part of a message's content, in the shapes providers use: OpenAI (`text`, `input_text`, `output_text`,
 * `refusal`, `image_url`, …) and Anthropic (`text`, `thinking`, `tool_use`, `tool_result`, `image`, …).
 */
export interface ContentPart {
  type: string;
  text?: string;
  refusal?: string;
  thinking?: string;
  /** `tool_use`: the tool's name. */
  name?: string;
  /** `tool_use`: the tool's arguments, an object. */
  input?: unknown;
  /** `tool_result`: the tool's output. */
  content?: string | readonly ContentPart[];
  [key: string]: unknown;
}

/** An OpenAI-style tool call on an assistant message. */
export interface ToolCall {
  function?: { name?: string; arguments?: string };
  [key: string]: unknown;
}

/** A chat message as the common chat APIs carry it. */
export interface ChatMessage {
  role: string;
  name?: string;
  content?: string | readonly ContentPart[] | null;
  tool_calls?: readonly ToolCall[];
  [key: string]: unknown;
}

/** A chat message at a boundary: a role, and content as text, parts or null; other provider keys pass through. */
export const ChatMessageSchema = z.looseObject({
  role: z.string().min(1),
  name: z.string().optional(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]).optional(),
  tool_calls: z
    .array(
      z.looseObject({
        function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
      }),
    )
    .optional(),
});

/** ChatML framing as gpt-tokenizer's `encodeChat` lays it out for gpt-4o and gpt-4. */
export const DEFAULT_PER_MESSAGE_TOKENS = 3;
export const DEFAULT_REPLY_PRIMING_TOKENS = 3;

/** Framing tokens around the messages, so that a count matches what the model is sent. */
export const MessageFramingSchema = z.strictObject({
  /** Tokens each message costs besides its role and content (ChatML start, separator, end). @default 3 */
  perMessageTokens: z.number().int().min(0).optional(),
  /** Tokens that prime the reply (start, `assistant`, separator), once per request. @default 3 */
  replyPrimingTokens: z.number().int().min(0).optional(),
});
export type MessageFraming = z.infer<typeof MessageFramingSchema>;

/** A count of messages, and the counter that produced it. */
export interface MessagesCount {
  tokens: number;
  counter: string;
  /** True when the counter is an estimate (chars/4) rather than a tokenizer. */
  estimate: boolean;
  /** Content parts a text tokenizer cannot count (images, audio, files): the figure leaves them out. */
  uncounted: number;
}

/** The tokens of one message (framing included) and the parts that could not be counted. */
export interface MessageCount {
  tokens: number;
  uncounted: number;
}

const TEXT_FIELDS = ['text', 'refusal', 'thinking'] as const;

function countParts(parts: readonly ContentPart[], counter: TokenCounter, tally: MessageCount): void {
  for (const part of parts) {
    const field = TEXT_FIELDS.find((key) => typeof part[key] === 'string');
    if (field) {
      tally.tokens += counter.count(part[field] as string);
    } else if (part.type === 'tool_use') {
      tally.tokens += counter.count(part.name ?? '') + counter.count(JSON.stringify(part.input ?? {}));
    } else if (part.type === 'tool_result' && part.content !== undefined) {
      countContent(part.content, counter, tally);
    } else {
      tally.uncounted += 1;
    }
  }
}

function countContent(
  content: string | readonly ContentPart[],
  counter: TokenCounter,
  tally: MessageCount,
): void {
  if (typeof content === 'string') tally.tokens += counter.count(content);
  else countParts(content, counter, tally);
}

/**
 * The tokens of one message: framing, role, name, content and the names and arguments of its tool calls.
 * @param perMessageTokens framing per message. @default 3
 */
export function countMessage(
  message: ChatMessage,
  counter: TokenCounter,
  perMessageTokens = DEFAULT_PER_MESSAGE_TOKENS,
): MessageCount {
  const tally: MessageCount = { tokens: perMessageTokens + counter.count(message.role), uncounted: 0 };
  if (message.name) tally.tokens += counter.count(message.name);
  if (message.content !== undefined && message.content !== null)
    countContent(message.content, counter, tally);
  for (const call of message.tool_calls ?? []) {
    tally.tokens += counter.count(call.function?.name ?? '') + counter.count(call.function?.arguments ?? '');
  }
  return tally;
}

/**
 * Counts a chat request's messages with a token counter: content strings and content-part arrays, tool
 * calls' names and arguments, Anthropic tool_use/tool_result parts, plus ChatML framing. With the default
 * framing a plain-text chat counts exactly what gpt-tokenizer's `encodeChat` encodes.
 * @throws BarometerValidationError when the framing options are invalid
 *
 * @example
 * countMessages([{ role: 'user', content: 'hello world' }], createTokenCounter());
 * // { tokens: 9, counter: 'o200k_base', estimate: false, uncounted: 0 }
 */
export function countMessages(
  messages: readonly ChatMessage[],
  counter: TokenCounter,
  framing: MessageFraming = {},
): MessagesCount {
  const parsed = parseWith(MessageFramingSchema, framing);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'message framing');
  const perMessage = framing.perMessageTokens ?? DEFAULT_PER_MESSAGE_TOKENS;
  let tokens = framing.replyPrimingTokens ?? DEFAULT_REPLY_PRIMING_TOKENS;
  let uncounted = 0;
  for (const message of messages) {
    const counted = countMessage(message, counter, perMessage);
    tokens += counted.tokens;
    uncounted += counted.uncounted;
  }
  return { tokens, counter: counter.name, estimate: counter.estimate, uncounted };
}
