import { z } from 'zod';
import { HeadroomValidationError, parseWith } from '../errors/validation.js';
import { countMessages } from '../tokens/count-messages.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ArchiveSink } from './archive-sink.js';
import { compactHistory, type Summarizer } from './compact-history.js';
import { DEFAULT_KEEP_TURNS } from './flush.js';
import {
  fromOpenAIMessages,
  type OpenAIChatMessage,
  OpenAIChatMessageSchema,
  toOpenAIMessages,
} from './openai-messages.js';

/** A history as a user hands it over: an array of OpenAI chat messages, or `{ "messages": [...] }`. */
export const OpenAIHistoryInputSchema = z.union([
  z.array(OpenAIChatMessageSchema),
  z.object({ messages: z.array(OpenAIChatMessageSchema) }),
]);

export const CompactMessagesOptionsSchema = z.strictObject({
  sessionId: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be 1-128 letters, digits, dots, dashes or underscores')
    .optional(),
  /** Recent turns kept verbatim. @default 2 */
  keepTurns: z.number().int().min(0).max(10_000).optional(),
});

export interface CompactMessagesOptions extends z.input<typeof CompactMessagesOptionsSchema> {
  /** Where replaced messages are archived; without it nothing is archived (not recommended). */
  archive?: ArchiveSink;
  /** @default o200k_base */
  counter?: TokenCounter;
  summarizer?: Summarizer;
}

export type CompactMessagesResult =
  | {
      ok: true;
      before: { messages: number; tokens: number };
      after: { messages: number; tokens: number };
      archives: string[];
      messages: OpenAIChatMessage[];
      counter: string;
    }
  | {
      ok: false;
      code: 'HR_ERR_COMPACTION_REFUSED';
      reason: string;
      before: { messages: number; tokens: number };
      after: { messages: number; tokens: number };
    };

/** The messages of a history input, checked: the array itself or its `messages`. */
export function openAIMessagesOf(input: unknown): OpenAIChatMessage[] {
  // Parsed by shape rather than as a union, so that an error names the message and field at fault.
  const schema = Array.isArray(input)
    ? z.array(OpenAIChatMessageSchema)
    : z.object({ messages: z.array(OpenAIChatMessageSchema) });
  const parsed = parseWith(
    schema as z.ZodType<OpenAIChatMessage[] | { messages: OpenAIChatMessage[] }>,
    input,
  );
  if (!parsed.ok) throw new HeadroomValidationError(parsed.issues, 'history');
  return Array.isArray(parsed.value) ? parsed.value : parsed.value.messages;
}

/**
 * Compacts an OpenAI chat history: keeps the system messages and the most recent turns, replaces the rest
 * by the deterministic recap (or the summarizer's), and archives everything it replaced before answering.
 * Token counts are of the chat messages with their framing (o200k by default). A compaction whose result is
 * not smaller is refused, with nothing archived.
 * @throws HeadroomValidationError for a malformed history or options
 */
export async function compactOpenAIMessages(
  input: unknown,
  options: CompactMessagesOptions = {},
): Promise<CompactMessagesResult> {
  const { archive, counter = createTokenCounter(), summarizer, ...rest } = options;
  const checked = parseWith(CompactMessagesOptionsSchema, rest);
  if (!checked.ok) throw new HeadroomValidationError(checked.issues, 'compaction options');
  const messages = openAIMessagesOf(input);
  const before = { messages: messages.length, tokens: countMessages(messages, counter).tokens };
  const history = fromOpenAIMessages(messages);
  const outcome = await compactHistory(history, {
    counter,
    sessionId: checked.value.sessionId ?? 'default',
    keepTurns: checked.value.keepTurns ?? DEFAULT_KEEP_TURNS,
    ...(archive ? { archive } : {}),
    ...(summarizer ? { summarizer } : {}),
  });
  if (!outcome.ok) {
    return { ok: false, code: outcome.code, reason: outcome.reason, before, after: outcome.after };
  }
  // The recap is a message of its own: written in one run with the next user message, the adapter would merge
  // the two and the kept turn would no longer be verbatim.
  const recapAt = outcome.messages.findIndex(
    (item) => item.id === `recap-${outcome.compactionId.split('-').at(-1)}`,
  );
  const compacted =
    recapAt === -1
      ? toOpenAIMessages(outcome.messages)
      : [
          ...toOpenAIMessages(outcome.messages.slice(0, recapAt)),
          ...toOpenAIMessages(outcome.messages.slice(recapAt, recapAt + 1)),
          ...toOpenAIMessages(outcome.messages.slice(recapAt + 1)),
        ];
  return {
    ok: true,
    before,
    after: { messages: compacted.length, tokens: countMessages(compacted, counter).tokens },
    archives: outcome.archives,
    messages: compacted,
    counter: counter.name,
  };
}
