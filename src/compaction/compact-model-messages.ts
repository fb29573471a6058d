import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ArchiveEntry, ArchiveSink } from './archive-sink.js';
import { compactHistory, type HistorySize, type Summarizer } from './compact-history.js';
import { CompactMessagesOptionsSchema } from './compact-messages.js';
import { DEFAULT_KEEP_TURNS } from './flush.js';
import { type HistoryItem, isSystemItem } from './history-item.js';
import { readModelMessages, toModelMessages } from './model-messages.js';

/** The least an AI SDK message is: a role. Content is checked by {@link readModelMessages}. */
export interface ModelMessageLike {
  role: string;
}

export interface CompactModelMessagesOptions {
  /** The archive's session folder. @default 'default' */
  sessionId?: string;
  /** Recent turns kept verbatim (a turn starts at a user request). @default 2 */
  keepTurns?: number;
  /** The kept turns are shortened to at most this many tokens, at a step boundary. @default 20,000 */
  keepTokens?: number;
  /** A compaction saving less than this share of the tokens is refused. @default 5 */
  minGainPercent?: number;
  /** Where replaced messages are archived, whole and as given, before anything is returned. */
  archive?: ArchiveSink;
  /** @default o200k_base */
  counter?: TokenCounter;
  summarizer?: Summarizer;
  /** On a summarizer failure, use the deterministic recap and add a warning. @default false */
  summarizerFallback?: boolean;
}

export type CompactModelMessagesResult<Message> =
  | {
      ok: true;
      /**
       * The compacted messages: the system messages that came before the kept part (as given), the recap (a user
       * message marked `providerOptions.barometer.recap`), then the kept messages. `messages.slice(-(input.length -
       * keptFrom))` are the input's own message objects, untouched.
       */
      messages: Message[];
      /** The index in the input of the first message kept as it was; every later one is kept too. */
      keptFrom: number;
      /** Messages, and content tokens (message framing and images are not counted), before and after. */
      before: HistorySize;
      after: HistorySize;
      archives: string[];
      /** `compaction-<n>`: the archive task id, matching the recap's `recap-<n>`. */
      compactionId: string;
      counter: string;
      warnings: string[];
    }
  | { ok: false; code: 'BR_ERR_COMPACTION_REFUSED'; reason: string; before: HistorySize; after: HistorySize };

/**
 * JSON of a message as the caller gave it. Binary file data (`Uint8Array`, `ArrayBuffer`) is written as base64,
 * which the AI SDK accepts back as `data`; a `URL` is written as its `href` (its own `toJSON`).
 */
export function modelMessageJson(message: unknown): string {
  return JSON.stringify(message, (_key, value: unknown) => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
    if (value instanceof ArrayBuffer) return Buffer.from(value).toString('base64');
    return value;
  });
}

/**
 * Compacts AI SDK messages — a `ModelMessage[]` (what `generateText({ messages })` and `prepareStep` take) or a
 * language model prompt (what a middleware's `transformParams` sees) — by recap and flush: the system messages
 * and the most recent turns are kept, everything older is replaced by the deterministic recap (or the
 * summarizer's) and archived first, each replaced message whole and as given (archive `compaction-<n>`, records
 * `message-<index>`). Tool calls and their results are never separated. The messages kept are the caller's own
 * objects (their `providerOptions`, cache marks included, untouched); only a message the cut falls inside — a user
 * message whose text follows an image — is rewritten from its kept parts. A compaction that would not save
 * `minGainPercent` of the tokens is refused, with nothing archived.
 * @throws BarometerValidationError for messages that are not AI SDK messages, or bad options
 *
 * @example
 * const result = await compactModelMessages(messages, { archive: new ArchiveStore({ root: join(defaultStateFolder(), 'archives') }), sessionId: 'run-1' });
 * if (result.ok) messages = result.messages;
 */
export async function compactModelMessages<Message extends ModelMessageLike>(
  messages: readonly Message[],
  options: CompactModelMessagesOptions = {},
): Promise<CompactModelMessagesResult<Message>> {
  const { archive, counter = createTokenCounter(), summarizer, summarizerFallback, ...rest } = options;
  const checked = parseWith(CompactMessagesOptionsSchema, rest);
  if (!checked.ok) throw new BarometerValidationError(checked.issues, 'compaction options');
  const { items, sources } = readModelMessages(messages);
  const outcome = await compactHistory(items, {
    counter,
    sessionId: checked.value.sessionId ?? 'default',
    keepTurns: checked.value.keepTurns ?? DEFAULT_KEEP_TURNS,
    ...(checked.value.keepTokens !== undefined ? { keepTokens: checked.value.keepTokens } : {}),
    ...(checked.value.minGainPercent !== undefined ? { minGainPercent: checked.value.minGainPercent } : {}),
    ...(archive
      ? {
          archive,
          archiveEntries: (cut: number) => replacedEntries(messages, items, sources, cut),
          archiveItemOf: (position: number) => `message-${sources[position]}`,
        }
      : {}),
    ...(summarizer ? { summarizer } : {}),
    ...(summarizerFallback ? { summarizerFallback } : {}),
  });
  if (!outcome.ok) {
    return {
      ok: false,
      code: outcome.code,
      reason: outcome.reason,
      before: outcome.before,
      after: outcome.after,
    };
  }
  const recapId = `recap-${outcome.compactionId.split('-').at(-1)}`;
  const recapAt = outcome.messages.findIndex((item) => item.id === recapId);
  const recap = outcome.messages[recapAt] as Extract<HistoryItem, { kind: 'user' }>;
  const cut = items.length - (outcome.messages.length - recapAt - 1);
  const firstKept = cut < items.length ? (sources[cut] as number) : messages.length;
  const split = cut > 0 && cut < items.length && sources[cut - 1] === firstKept;
  const head: ModelMessageLike[] = messages
    .slice(0, firstKept)
    .filter((message) => message.role === 'system');
  head.push({
    role: 'user',
    content: [{ type: 'text', text: recap.text }],
    providerOptions: { barometer: { recap: recapId } },
  } as ModelMessageLike);
  if (split) {
    const keptItems = items.slice(cut).filter((_, offset) => sources[cut + offset] === firstKept);
    head.push(...toModelMessages(keptItems).map(withArrayContent));
  }
  const keptFrom = split ? firstKept + 1 : firstKept;
  const compacted = [...(head as Message[]), ...messages.slice(keptFrom)];
  return {
    ok: true,
    messages: compacted,
    keptFrom,
    before: { messages: messages.length, tokens: outcome.before.tokens },
    after: { messages: compacted.length, tokens: outcome.after.tokens },
    archives: outcome.archives,
    compactionId: outcome.compactionId,
    counter: counter.name,
    warnings: outcome.warnings,
  };
}

/** A language model prompt holds user and assistant content as arrays of parts, never a bare string. */
function withArrayContent(message: ModelMessageLike & { content?: unknown }): ModelMessageLike {
  if (typeof message.content !== 'string' || message.role === 'system') return message;
  return { ...message, content: [{ type: 'text', text: message.content }] } as ModelMessageLike;
}

/**
 * Every message a compaction replaces, as given: a message with a non-system item before the cut (one the cut
 * falls inside is archived whole), and a message before the cut that gives no item (it leaves the history too).
 */
function replacedEntries(
  given: readonly unknown[],
  items: readonly HistoryItem[],
  sources: readonly number[],
  cut: number,
): ArchiveEntry[] {
  const replaced = new Set<number>();
  for (let position = 0; position < cut; position += 1) {
    if (!isSystemItem(items[position] as HistoryItem)) replaced.add(sources[position] as number);
  }
  const firstKept = cut < items.length ? (sources[cut] as number) : given.length;
  const withItems = new Set(sources);
  for (let index = 0; index < firstKept; index += 1) if (!withItems.has(index)) replaced.add(index);
  return [...replaced]
    .sort((left, right) => left - right)
    .map((index) => ({
      itemId: `message-${index}`,
      kind: 'message' as const,
      field: 'message' as const,
      json: true,
      content: modelMessageJson(given[index]),
    }));
}
