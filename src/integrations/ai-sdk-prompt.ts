import { createHash } from 'node:crypto';
import type { ArchiveSink } from '../compaction/archive-sink.js';
import type { Summarizer } from '../compaction/compact-history.js';
import {
  type CompactModelMessagesResult,
  compactModelMessages,
  type ModelMessageLike,
  modelMessageJson,
} from '../compaction/compact-model-messages.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/**
 * What the AI SDK adapters do to a prompt: the owned context-health reminder, and a compaction that stays in place
 * on every later call of the same conversation.
 */

type Message = ModelMessageLike & {
  content?: unknown;
  providerOptions?: Record<string, Record<string, unknown>>;
};

/** Where the reminder goes: right after the leading system messages, or at the end of the prompt. */
export type ReminderPlacement = 'after-system' | 'end';

/** barometer's mark on the reminder message it owns (`providerOptions.barometer.reminder`). */
export const REMINDER_MARK = 'context_health';

export function isOwnedReminder(message: Message): boolean {
  return message.role === 'system' && message.providerOptions?.barometer?.reminder === REMINDER_MARK;
}

/**
 * The default placement for a model. A system message may come anywhere in an OpenAI prompt (the chat and
 * Responses converters of `@ai-sdk/openai` keep it where it is), so the reminder goes last and the prompt's prefix
 * — what the provider's cache holds — is not disturbed when its text changes. `@ai-sdk/google` refuses a system
 * message after the conversation has begun ("system messages are only supported at the beginning of the
 * conversation"), and `@ai-sdk/anthropic` before 3.0.100 did too ("Multiple system messages that are separated by
 * user/assistant messages"): for every other provider it joins the leading system messages.
 */
export function defaultPlacement(modelProvider: string): ReminderPlacement {
  const prefix = modelProvider.split('.')[0];
  return prefix === 'openai' || prefix === 'azure' ? 'end' : 'after-system';
}

/**
 * The prompt without any reminder barometer added before (so one never accumulates), with the current reminder, if
 * any, in its place. The caller's messages are not changed.
 */
export function withReminder<M extends Message>(
  prompt: readonly M[],
  reminder: string | null,
  placement: ReminderPlacement,
): M[] {
  const messages = prompt.filter((message) => !isOwnedReminder(message));
  if (reminder === null) return messages;
  const message = {
    role: 'system',
    content: reminder,
    providerOptions: { barometer: { reminder: REMINDER_MARK } },
  } as unknown as M;
  if (placement === 'end') return [...messages, message];
  const firstOther = messages.findIndex((candidate) => candidate.role !== 'system');
  const at = firstOther === -1 ? messages.length : firstOther;
  return [...messages.slice(0, at), message, ...messages.slice(at)];
}

function digestOf(messages: readonly unknown[]): string {
  const hash = createHash('sha256');
  for (const message of messages) hash.update(modelMessageJson(message)).update('\n');
  return hash.digest('hex');
}

export interface PromptCompactionOptions {
  archive: ArchiveSink;
  sessionId: string;
  keepTurns?: number;
  keepTokens?: number;
  minGainPercent?: number;
  counter?: TokenCounter;
  summarizer?: Summarizer;
  summarizerFallback?: boolean;
}

/** A compaction in force: the caller's first `keptFrom` messages (whose digest it holds) are sent as `head`. */
interface Substitution {
  keptFrom: number;
  digest: string;
  head: Message[];
}

/**
 * Keeps a compaction in place across calls. An agent loop sends its whole history on every call (the AI SDK rebuilds
 * each step's prompt from the caller's messages), so a compaction made in one call would be undone by the next, and
 * made again, and archived again. Once a prefix of the conversation has been compacted, every later prompt that
 * starts with the same messages (compared by digest) is sent with the same recap in their place — the prompt the
 * provider sees, and caches, stays the compacted one — until a later compaction replaces more, or the caller's
 * history no longer starts with that prefix (a new conversation, or the caller compacted it itself).
 */
export class StickyCompaction {
  #substitution: Substitution | undefined;

  /** The prompt to send: the caller's, with the compaction in force applied when its prefix is still there. */
  apply<M extends Message>(prompt: readonly M[]): M[] {
    const substitution = this.#substitution;
    if (substitution === undefined) return [...prompt];
    if (
      prompt.length < substitution.keptFrom ||
      digestOf(prompt.slice(0, substitution.keptFrom)) !== substitution.digest
    ) {
      this.#substitution = undefined;
      return [...prompt];
    }
    return [...(substitution.head as M[]), ...prompt.slice(substitution.keptFrom)];
  }

  /**
   * Compacts the prompt as sent (`effective`, from {@link apply} on `prompt`), archiving first; on success the new
   * compaction is in force from this call on.
   */
  async compact<M extends Message>(
    prompt: readonly M[],
    effective: readonly M[],
    options: PromptCompactionOptions,
  ): Promise<CompactModelMessagesResult<M>> {
    const result = await compactModelMessages(effective, options);
    if (!result.ok) return result;
    const previous = this.#substitution;
    const headLength = previous ? previous.head.length : 0;
    const base = previous ? previous.keptFrom : 0;
    // The caller's messages start where the effective prompt's own head ends; the kept tail may start later.
    const tailStart = Math.max(result.keptFrom, headLength);
    const keptFrom = base + (tailStart - headLength);
    this.#substitution = {
      keptFrom,
      digest: digestOf(prompt.slice(0, keptFrom)),
      head: result.messages.slice(0, result.messages.length - (effective.length - tailStart)),
    };
    return result;
  }
}
