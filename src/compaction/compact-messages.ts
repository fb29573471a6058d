import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { countMessages } from '../tokens/count-messages.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { resultId } from './adapter-support.js';
import type { ArchiveEntry, ArchiveSink } from './archive-sink.js';
import { compactHistory, type Summarizer } from './compact-history.js';
import { evictTask } from './evict-task.js';
import { DEFAULT_KEEP_TURNS } from './flush.js';
import { type HistoryItem, isSystemItem } from './history-item.js';
import {
  fromOpenAIMessages,
  type OpenAIChatMessage,
  OpenAIChatMessageSchema,
  readOpenAIMessages,
  toOpenAIMessages,
} from './openai-messages.js';
import { MIN_SUMMARY_LENGTH, TaskIdSchema } from './task-list.js';

/** A completed task whose tool outputs may leave the context: its id and a result summary (≥ 15 characters). */
export const CompletedTaskSchema = z.strictObject({
  id: TaskIdSchema,
  summary: z
    .string()
    .refine(
      (value) => [...value.trim()].length >= MIN_SUMMARY_LENGTH,
      `must be a result summary of at least ${MIN_SUMMARY_LENGTH} characters`,
    ),
});
export type CompletedTask = z.infer<typeof CompletedTaskSchema>;

/**
 * A history as a user hands it over: an array of OpenAI chat messages, or `{ "messages": [...], "tasks"?: [...] }`.
 * Tool outputs are tagged with their task by a `task_id` field on the `tool` message (or on the assistant message
 * or its tool call); `tasks` lists the completed ones, whose outputs are evicted to the archive.
 */
export const OpenAIHistoryInputSchema = z.union([
  z.array(OpenAIChatMessageSchema),
  z.object({ messages: z.array(OpenAIChatMessageSchema), tasks: z.array(CompletedTaskSchema).optional() }),
]);

export const CompactMessagesOptionsSchema = z.strictObject({
  sessionId: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be 1-128 letters, digits, dots, dashes or underscores')
    .optional(),
  /** Recent turns kept verbatim. @default 2 */
  keepTurns: z.number().int().min(0).max(10_000).optional(),
  /** The kept turns are shortened to at most this many tokens, at a step boundary. @default 20,000 */
  keepTokens: z.number().int().min(0).max(100_000_000).optional(),
  /** A compaction saving less than this share of the tokens is refused. @default 5 */
  minGainPercent: z.number().min(0).max(100).optional(),
});

export interface CompactMessagesOptions extends z.input<typeof CompactMessagesOptionsSchema> {
  /** Where replaced messages are archived; without it nothing is archived (not recommended). */
  archive?: ArchiveSink;
  /** @default o200k_base */
  counter?: TokenCounter;
  summarizer?: Summarizer;
  /** On a summarizer failure, use the deterministic recap and add a warning. @default false */
  summarizerFallback?: boolean;
}

export type CompactMessagesResult =
  | {
      ok: true;
      /**
       * `recap` (recap and flush), `eviction` (completed tasks' outputs replaced by tombstones) or `policy` (the
       * eviction policy decided: see `compactWithPolicy`).
       */
      mode: 'recap' | 'eviction' | 'policy';
      /** With eviction: each completed task, how many items left the context, and where they went. */
      evicted: EvictedTask[];
      before: { messages: number; tokens: number };
      after: { messages: number; tokens: number };
      archives: string[];
      messages: OpenAIChatMessage[];
      counter: string;
      /** What went wrong but did not stop the compaction (a failed summarizer replaced by the recap). */
      warnings: string[];
    }
  | {
      ok: false;
      code: 'BR_ERR_COMPACTION_REFUSED';
      reason: string;
      before: { messages: number; tokens: number };
      after: { messages: number; tokens: number };
    };

/** The messages (and completed tasks) of a history input, checked: the array itself or `{ messages, tasks }`. */
export function openAIHistoryOf(input: unknown): { messages: OpenAIChatMessage[]; tasks: CompletedTask[] } {
  // Parsed by shape rather than as a union, so that an error names the message and field at fault.
  if (Array.isArray(input)) {
    const parsed = parseWith(z.array(OpenAIChatMessageSchema), input);
    if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'history');
    return { messages: parsed.value, tasks: [] };
  }
  const schema = z.object({
    messages: z.array(OpenAIChatMessageSchema),
    tasks: z.array(CompletedTaskSchema).optional(),
  });
  const parsed = parseWith(schema, input);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'history');
  return { messages: parsed.value.messages, tasks: parsed.value.tasks ?? [] };
}

/** The messages of a history input (see {@link openAIHistoryOf}). */
export function openAIMessagesOf(input: unknown): OpenAIChatMessage[] {
  return openAIHistoryOf(input).messages;
}

/** Tool call id → task id, from `task_id` on tool messages, on assistant messages and on their tool calls. */
function taskTagsOf(messages: readonly OpenAIChatMessage[]): Map<string, string> {
  const tags = new Map<string, string>();
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);
  for (const message of messages as ReadonlyArray<Record<string, unknown>>) {
    const messageTask = text(message.task_id);
    if (message.role === 'tool' && messageTask && typeof message.tool_call_id === 'string') {
      tags.set(message.tool_call_id, messageTask);
    }
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls as Array<Record<string, unknown>>) {
        const task = text(call.task_id) ?? messageTask;
        if (task && typeof call.id === 'string' && !tags.has(call.id)) tags.set(call.id, task);
      }
    }
  }
  return tags;
}

export interface EvictedTask {
  task: string;
  items: number;
  archive: string | null;
}

/**
 * Surgical eviction of completed tasks (seed 004): each task's tagged tool outputs are archived, then replaced
 * by the tombstone; the task's last tombstone also carries its result summary, so the outcome stays in context.
 */
async function evictCompletedTasks(
  messages: OpenAIChatMessage[],
  tasks: readonly CompletedTask[],
  options: { archive: ArchiveSink; sessionId: string },
): Promise<{ history: HistoryItem[]; evicted: EvictedTask[] }> {
  const tags = taskTagsOf(messages);
  let history: HistoryItem[] = fromOpenAIMessages(messages).map((item) =>
    (item.kind === 'tool-call' || item.kind === 'tool-result') && tags.has(item.callId)
      ? { ...item, taskId: tags.get(item.callId)! }
      : item,
  );
  const evicted: EvictedTask[] = [];
  for (const task of tasks) {
    const result = await evictTask(history, task.id, {
      archive: options.archive,
      sessionId: options.sessionId,
    });
    history = result.history;
    const last = history.findLastIndex(
      (item) => item.kind === 'tool-result' && item.taskId === task.id && item.archivedTo !== undefined,
    );
    const item = history[last];
    if (item?.kind === 'tool-result') {
      history[last] = { ...item, content: `${item.content}\nTask ${task.id} result: ${task.summary.trim()}` };
    }
    evicted.push({ task: task.id, items: result.evicted, archive: result.archived[0] ?? null });
  }
  return { history, evicted };
}

/**
 * The archive entries of a recap compaction: every message it replaces, as the caller sent it, encoded once as
 * JSON (kind and field `message`), so that `grep` on the archive finds a tool output's words and the message
 * reads back deep-equal. A message is replaced when one of its non-system items lies before the cut (one split
 * by the cut is archived whole), or when it lies before the cut and yields no item at all (it leaves the history
 * too). Item ids: a tool message is `<call id>:result`, as its eviction record is named; any other message, and
 * a tool message whose call id an earlier one of this compaction already used, is `message-<index in the
 * history>` — unique within the compaction.
 */
function replacedMessageEntries(
  given: readonly unknown[],
  history: readonly HistoryItem[],
  sources: readonly number[],
  cut: number,
): ArchiveEntry[] {
  const replaced = new Set<number>();
  for (let position = 0; position < cut; position += 1) {
    if (!isSystemItem(history[position] as HistoryItem)) replaced.add(sources[position] as number);
  }
  const firstKept = cut < history.length ? (sources[cut] as number) : given.length;
  const withItems = new Set(sources);
  for (let index = 0; index < firstKept; index += 1) if (!withItems.has(index)) replaced.add(index);
  const used = new Set<string>();
  return [...replaced]
    .sort((left, right) => left - right)
    .map((index) => {
      const message = given[index] as { role?: unknown; tool_call_id?: unknown };
      const callResult =
        message.role === 'tool' && typeof message.tool_call_id === 'string'
          ? resultId(message.tool_call_id)
          : undefined;
      const itemId = callResult !== undefined && !used.has(callResult) ? callResult : `message-${index}`;
      used.add(itemId);
      return { itemId, kind: 'message', field: 'message', json: true, content: JSON.stringify(message) };
    });
}

/**
 * Compacts an OpenAI chat history: keeps the system messages and the most recent turns, replaces the rest
 * by the deterministic recap (or the summarizer's), and archives every message it replaced, as given, before
 * answering (archive `compaction-<n>`, reserved so that concurrent compactions of one session never share one).
 * Token counts are of the chat messages with their framing (o200k by default). A compaction whose result is
 * not smaller is refused, with nothing archived.
 * @throws BarometerValidationError for a malformed history or options
 */
export async function compactOpenAIMessages(
  input: unknown,
  options: CompactMessagesOptions = {},
): Promise<CompactMessagesResult> {
  const { archive, counter = createTokenCounter(), summarizer, summarizerFallback, ...rest } = options;
  const checked = parseWith(CompactMessagesOptionsSchema, rest);
  if (!checked.ok) throw new BarometerValidationError(checked.issues, 'compaction options');
  const { messages, tasks } = openAIHistoryOf(input);
  const before = { messages: messages.length, tokens: countMessages(messages, counter).tokens };
  const sessionId = checked.value.sessionId ?? 'default';
  if (tasks.length > 0) {
    if (!archive) {
      throw new BarometerValidationError(
        [
          {
            field: 'tasks',
            value: tasks.length,
            message: 'evicting task outputs needs an archive to write them to first',
          },
        ],
        'compaction options',
      );
    }
    const { history, evicted } = await evictCompletedTasks(messages, tasks, { archive, sessionId });
    const compacted = toOpenAIMessages(history);
    const after = { messages: compacted.length, tokens: countMessages(compacted, counter).tokens };
    if (evicted.every((task) => task.items === 0)) {
      return {
        ok: false,
        code: 'BR_ERR_COMPACTION_REFUSED',
        reason:
          'no tool output is tagged with the completed tasks (task_id), or all of it is too short to evict',
        before,
        after,
      };
    }
    const archives = [...new Set(evicted.flatMap((task) => (task.archive ? [task.archive] : [])))];
    return {
      ok: true,
      mode: 'eviction',
      evicted,
      before,
      after,
      archives,
      messages: compacted,
      counter: counter.name,
      warnings: [],
    };
  }
  const { items: history, sources } = readOpenAIMessages(messages);
  // The messages exactly as given (validated above, so the same length and order as `messages`): the parsed
  // copies may differ in key order, and the archive gives back what the caller sent.
  const given = (Array.isArray(input) ? input : (input as { messages: unknown[] }).messages) as unknown[];
  const outcome = await compactHistory(history, {
    counter,
    sessionId,
    keepTurns: checked.value.keepTurns ?? DEFAULT_KEEP_TURNS,
    ...(checked.value.keepTokens !== undefined ? { keepTokens: checked.value.keepTokens } : {}),
    ...(checked.value.minGainPercent !== undefined ? { minGainPercent: checked.value.minGainPercent } : {}),
    ...(archive
      ? {
          archive,
          archiveEntries: (cut: number) => replacedMessageEntries(given, history, sources, cut),
          // A user message is never a tool message, so its record is `message-<index in the history>`.
          archiveItemOf: (position: number) => `message-${sources[position]}`,
        }
      : {}),
    ...(summarizer ? { summarizer } : {}),
    ...(summarizerFallback ? { summarizerFallback } : {}),
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
    mode: 'recap',
    evicted: [],
    before,
    after: { messages: compacted.length, tokens: countMessages(compacted, counter).tokens },
    archives: outcome.archives,
    messages: compacted,
    counter: counter.name,
    warnings: outcome.warnings,
  };
}
