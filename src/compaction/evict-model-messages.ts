import { createHash } from 'node:crypto';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type ArchiveSink, tombstoneItem, tombstoneText } from './archive-sink.js';
import type { ModelMessageLike } from './compact-model-messages.js';
import {
  type EvictionDecision,
  EvictionPolicy,
  type EvictionPolicyOptions,
  type EvictionPolicyState,
} from './eviction-policy.js';
import { type HistoryItem, itemText } from './history-item.js';
import { readModelMessages } from './model-messages.js';
import { originalOf } from './plan-batch.js';
import type { BoundaryKind } from './sub-task-boundary.js';

/**
 * Barometer's eviction policy on AI SDK messages (a `ModelMessage[]`, or a language model prompt as a middleware's
 * `transformParams` sees it): the messages are read into history items, the policy decides on them, and the
 * tool-call and tool-result parts it evicts are rewritten in the caller's messages — every other message and part
 * (their `providerOptions`, cache marks included) is the caller's own object.
 */

/**
 * One eviction in force on AI SDK messages. An agent loop sends the original messages again on every step, so an
 * eviction is re-applied to each later prompt: to the part with the same item id, only if its content is still the
 * one archived (`digest`), so that nothing leaves a prompt that is not in the archive byte for byte.
 */
export interface ModelMessageEviction {
  /** The history item: a call's id, or `<call id>:result`. */
  itemId: string;
  kind: 'tool-call' | 'tool-result';
  /** The archive (`subtask-<n>`) and where the original is in it: `<archive path>#<item id>`. */
  taskId: string;
  path: string;
  /** sha256 (hex) of the original as archived: a result's content, a call's input as JSON. */
  digest: string;
}

/** Evictions in force, by item id. */
export type ModelMessageEvictions = ReadonlyMap<string, ModelMessageEviction>;

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

type Part = { type?: unknown; toolCallId?: unknown };
type Message = ModelMessageLike & { content?: unknown };

/** The messages with their evicted parts rewritten: a call's `input`, a result's `output` as text. */
function rewrite<M extends Message>(
  messages: readonly M[],
  tombstones: ReadonlyMap<string, string>,
  touched: ReadonlySet<number>,
): M[] {
  if (touched.size === 0) return [...messages];
  return messages.map((message, index) => {
    if (!touched.has(index) || !Array.isArray(message.content)) return message;
    const content = (message.content as Part[]).map((part) => {
      if (typeof part.toolCallId !== 'string') return part;
      if (part.type === 'tool-call') {
        const tombstone = tombstones.get(part.toolCallId);
        return tombstone === undefined ? part : { ...part, input: { evicted: tombstone } };
      }
      if (part.type === 'tool-result') {
        const tombstone = tombstones.get(`${part.toolCallId}:result`);
        return tombstone === undefined ? part : { ...part, output: { type: 'text', value: tombstone } };
      }
      return part;
    });
    return { ...message, content };
  });
}

/**
 * The messages with the evictions in force applied (see {@link ModelMessageEviction}), and their history items as
 * the policy reads them (evicted items carry their tombstone and `archivedTo`).
 * @throws BarometerValidationError when a message does not have the ModelMessage shape
 */
export function withModelMessageEvictions<M extends ModelMessageLike>(
  messages: readonly M[],
  evictions: ModelMessageEvictions,
): { messages: M[]; items: HistoryItem[]; sources: number[]; applied: number } {
  const { items, sources } = readModelMessages(messages);
  const tombstones = new Map<string, string>();
  const touched = new Set<number>();
  if (evictions.size > 0) {
    items.forEach((item, position) => {
      if (item.kind !== 'tool-call' && item.kind !== 'tool-result') return;
      const eviction = evictions.get(item.id);
      if (eviction?.kind !== item.kind || item.archivedTo !== undefined) return;
      if (digestOf(originalOf(item)) !== eviction.digest) return;
      items[position] = tombstoneItem(item, eviction.taskId, eviction.path, item.id);
      tombstones.set(item.id, tombstoneText(eviction.taskId, eviction.path, item.id));
      touched.add(sources[position] as number);
    });
  }
  return {
    messages: rewrite(messages, tombstones, touched),
    items,
    sources,
    applied: tombstones.size,
  };
}

export interface EvictModelMessagesOptions {
  /** The policy, or its options. */
  policy: EvictionPolicy | EvictionPolicyOptions;
  /**
   * What the policy carried from the previous call on the same conversation; without it, a full scan. Its
   * positions are the history items of the messages with the evictions in force applied.
   */
  state?: EvictionPolicyState;
  /** Evictions of earlier calls, applied again first. */
  evictions?: ModelMessageEvictions;
  /** Boundaries the messages do not show (`task-complete`, `user-request`, `task-mark`). */
  signals?: readonly BoundaryKind[];
  /** The prompt tokens of the last call, for the recap fallback and the drift. */
  promptTokens?: number;
  /** The agent's window, for the recap fallback. */
  contextWindow?: number;
  /** Without one nothing is evicted: the policy still decides and the drift is measured. */
  archive?: ArchiveSink;
  /** The archive's session folder. @default 'default' */
  sessionId?: string;
  /** @default o200k_base */
  counter?: TokenCounter;
}

export interface EvictModelMessagesResult<M> {
  /** The messages to send: every eviction in force applied. */
  messages: M[];
  /** Their history items (evicted ones with their tombstones). */
  items: HistoryItem[];
  /** What the policy decided; `decision.recap` asks the caller for a recap (see `compactModelMessages`). */
  decision: EvictionDecision;
  /** The policy's state for the next call. */
  state: EvictionPolicyState;
  /** Every eviction in force after this call: the earlier ones and this call's. */
  evictions: Map<string, ModelMessageEviction>;
  /** This call's evictions (archived, then tombstoned), in history order. */
  evicted: ModelMessageEviction[];
  /** The batch's archive file, when this call evicted. */
  archive: string | null;
  /** Earlier evictions applied again to these messages. */
  kept: number;
  /** Content tokens this call's tombstones saved (the originals' minus the tombstones'). */
  savedTokens: number;
  /**
   * Drift of the messages as sent (0–100): the share held by completed sub-tasks' tool items not evicted and not
   * named since, over the larger of the messages' tokens and the last prompt (less what this call's tombstones saved).
   */
  driftPercent: number;
}

/**
 * Runs barometer's eviction policy on AI SDK messages: the evictions of earlier calls are applied again, the policy
 * decides, and at a sub-task boundary the completed sub-tasks' tool results and large tool-call arguments are
 * appended to the archive (`<session>/subtask-<n>`) and only then replaced by tombstones — a result's `output` by
 * `{ type: 'text', value: tombstone }`, a call's `input` by `{ evicted: tombstone }`, each part in its place, so no
 * call loses its result. Between boundaries nothing new changes (the provider's prompt cache stays valid). The
 * recap fallback is the caller's: when `decision.recap` is set, recap with `compactModelMessages` and the
 * policy's `keepTokens` and `minGainPercent`. The caller's messages are not changed.
 * @throws BarometerValidationError for messages that are not AI SDK messages, or bad policy options; whatever the
 * archive throws (then nothing is tombstoned)
 *
 * @example
 * let state; let evictions;
 * const result = await evictModelMessages(messages, { policy: {}, state, evictions, archive, sessionId: 'run-1' });
 * ({ state, evictions } = result);
 * messages = result.messages;
 */
export async function evictModelMessages<M extends ModelMessageLike>(
  messages: readonly M[],
  options: EvictModelMessagesOptions,
): Promise<EvictModelMessagesResult<M>> {
  const counter = options.counter ?? createTokenCounter();
  const policy =
    options.policy instanceof EvictionPolicy ? options.policy : new EvictionPolicy(options.policy, counter);
  const evictions = new Map(options.evictions ?? []);
  const current = withModelMessageEvictions(messages, evictions);
  const decision = policy.decide(current.items, {
    ...(options.state ? { state: options.state } : {}),
    ...(options.signals ? { signals: options.signals } : {}),
    ...(options.promptTokens === undefined ? {} : { promptTokens: options.promptTokens }),
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
  });
  const unchanged = {
    messages: current.messages,
    items: current.items,
    decision,
    evictions,
    evicted: [],
    archive: null,
    kept: current.applied,
    savedTokens: 0,
  };
  if (!options.archive) {
    // Nothing evicted: the completed sub-tasks are judged again at the next boundary, and they are still stale.
    const previous = options.state?.evictedUpTo ?? 0;
    const state = { ...decision.state, evictedUpTo: Math.min(previous, decision.state.evictedUpTo) };
    const driftPercent = policy.drift(current.items, {
      state,
      ...(options.promptTokens === undefined ? {} : { promptTokens: options.promptTokens }),
    });
    return { ...unchanged, state, driftPercent };
  }
  if (!decision.evict) return { ...unchanged, state: decision.state, driftPercent: decision.driftPercent };
  const applied = await policy.apply(
    current.items,
    { ...decision, recap: null },
    { archive: options.archive, sessionId: options.sessionId ?? 'default' },
  );
  const { taskId } = decision.evict;
  const path = applied.archive as string;
  const evicted: ModelMessageEviction[] = [];
  let savedTokens = 0;
  for (const step of decision.evict.steps) {
    if (step.kind !== 'tool-call' && step.kind !== 'tool-result') continue;
    const eviction = { itemId: step.itemId, kind: step.kind, taskId, path, digest: digestOf(step.original) };
    evictions.set(step.itemId, eviction);
    evicted.push(eviction);
    const before = current.items[step.position] as HistoryItem;
    const after = applied.history[step.position] as HistoryItem;
    savedTokens += counter.count(itemText(before)) - counter.count(itemText(after));
  }
  const next = withModelMessageEvictions(messages, evictions);
  // The prompt as sent holds the tombstones, not the originals: its drift is measured on it, against the last
  // prompt less what the tombstones saved (`decision.driftPercent` still counts the evicted content in the whole).
  const driftPercent = policy.drift(next.items, {
    state: applied.state,
    ...(options.promptTokens === undefined
      ? {}
      : { promptTokens: Math.max(0, options.promptTokens - savedTokens) }),
  });
  return {
    messages: next.messages,
    items: next.items,
    decision,
    state: applied.state,
    evictions,
    evicted,
    archive: path,
    kept: current.applied,
    savedTokens: Math.max(0, savedTokens),
    driftPercent,
  };
}
