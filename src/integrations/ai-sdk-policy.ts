import { createHash, type Hash } from 'node:crypto';
import { type ArchiveSink, archiveLocation } from '../compaction/archive-sink.js';
import { modelMessageJson } from '../compaction/compact-model-messages.js';
import type { PolicyOutcome } from '../compaction/compact-with-policy.js';
import {
  type EvictModelMessagesResult,
  evictModelMessages,
  type ModelMessageEviction,
  withModelMessageEvictions,
} from '../compaction/evict-model-messages.js';
import {
  EvictionPolicy,
  type EvictionPolicyOptions,
  type EvictionPolicyState,
  initialEvictionState,
} from '../compaction/eviction-policy.js';
import { readModelMessages } from '../compaction/model-messages.js';
import type { BoundaryKind } from '../compaction/sub-task-boundary.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** What the eviction policy did to one call's prompt, as the middleware reports it. */
export interface AiSdkPolicyOutcome extends PolicyOutcome {
  /** The batch's archive file, when this call evicted. */
  archive: string | null;
  /** The items this call archived and tombstoned: their ids and where each original is (`<archive>#<item id>`). */
  archived: Array<{ itemId: string; kind: 'tool-call' | 'tool-result'; location: string }>;
  /** Evictions of earlier calls applied again to this prompt (the agent loop resends the original messages). */
  kept: number;
  /** Why the policy could not act on a batch or recap it wanted (no archive), or null. */
  refused: string | null;
}

type Message = { role: string; content?: unknown };

export interface PromptPolicyRun<M> {
  /** The prompt to send: the evictions in force applied (also when this call's batch failed). */
  messages: M[];
  /** What the policy did, or null when it failed (`error`): its state is left as it was, to try again next call. */
  result: EvictModelMessagesResult<M> | null;
  error?: unknown;
}

/**
 * The eviction policy kept across the calls of one AI SDK conversation: its state (as `policyState` is for
 * `SessionMonitor.compact`), the evictions in force, re-applied to every later prompt, and the conversation's prefix
 * so that a prompt that does not continue it (another conversation) starts the policy afresh.
 */
export class PromptPolicy {
  readonly policy: EvictionPolicy;
  #state: EvictionPolicyState = initialEvictionState();
  #evictions = new Map<string, ModelMessageEviction>();
  #prefix: { length: number; digest: string } | undefined;

  constructor(policy: EvictionPolicy | EvictionPolicyOptions, counter?: TokenCounter) {
    this.policy = policy instanceof EvictionPolicy ? policy : new EvictionPolicy(policy, counter);
  }

  get state(): EvictionPolicyState {
    return this.#state;
  }

  /** Runs the policy on a prompt (the caller's messages, any recap in force already substituted). */
  async run<M extends Message>(
    prompt: readonly M[],
    context: {
      archive: ArchiveSink | undefined;
      sessionId: string;
      signals?: readonly BoundaryKind[];
      promptTokens?: number;
      contextWindow?: number;
      counter?: TokenCounter;
    },
  ): Promise<PromptPolicyRun<M>> {
    if (!this.#continues(prompt)) this.#state = initialEvictionState();
    let result: EvictModelMessagesResult<M>;
    try {
      result = await evictModelMessages(prompt, {
        policy: this.policy,
        state: this.#state,
        evictions: this.#evictions,
        sessionId: context.sessionId,
        ...(context.archive ? { archive: context.archive } : {}),
        ...(context.signals ? { signals: context.signals } : {}),
        ...(context.promptTokens === undefined ? {} : { promptTokens: context.promptTokens }),
        ...(context.contextWindow === undefined ? {} : { contextWindow: context.contextWindow }),
        ...(context.counter ? { counter: context.counter } : {}),
      });
    } catch (error) {
      // The archive failed (nothing of this batch was tombstoned) or the prompt could not be read: the evictions
      // already in force still apply, so the prompt's prefix does not change back.
      try {
        return { messages: withModelMessageEvictions(prompt, this.#evictions).messages, result: null, error };
      } catch {
        return { messages: [...prompt], result: null, error };
      }
    }
    this.#state = result.state;
    this.#evictions = result.evictions;
    return { messages: result.messages, result };
  }

  /** The prompt with the evictions in force applied, deciding nothing (when the session cannot be read). */
  inForce<M extends Message>(prompt: readonly M[]): M[] {
    try {
      return withModelMessageEvictions(prompt, this.#evictions).messages;
    } catch {
      return [...prompt];
    }
  }

  /**
   * After a recap replaced the start of the prompt (`compacted`, as sent): the positions before the recap are gone
   * and everything after it is still to be judged, as `EvictionPolicy.apply` leaves its state after its own recap.
   * `next` is the prompt the next call will start from (the caller's messages with the recap in force). Answers the
   * drift of the compacted prompt.
   */
  afterRecap(compacted: readonly Message[], next: readonly Message[], promptTokens?: number): number {
    const { items } = readModelMessages(compacted);
    const start = items.findIndex((item) => item.kind === 'user' && item.recap === true) + 1;
    this.#state = { ...this.#state, scanned: items.length, completedUpTo: start, evictedUpTo: start };
    this.#prefix = { length: next.length, digest: hashOf(next).digest('hex') };
    return this.policy.drift(items, {
      state: this.#state,
      ...(promptTokens === undefined ? {} : { promptTokens }),
    });
  }

  /** Whether the prompt starts with the messages the policy's state was built on; remembers this prompt's. */
  #continues(prompt: readonly Message[]): boolean {
    const previous = this.#prefix;
    const length = previous ? Math.min(previous.length, prompt.length) : 0;
    const hash = hashOf(prompt.slice(0, length));
    const continues =
      previous === undefined ||
      (prompt.length >= previous.length && hash.copy().digest('hex') === previous.digest);
    for (const message of prompt.slice(length)) hash.update(modelMessageJson(message)).update('\n');
    this.#prefix = { length: prompt.length, digest: hash.digest('hex') };
    return continues;
  }
}

/** A running sha256 of messages, to be continued or finished by the caller. */
function hashOf(messages: readonly unknown[]): Hash {
  const hash = createHash('sha256');
  for (const message of messages) hash.update(modelMessageJson(message)).update('\n');
  return hash;
}

/** The outcome the middleware reports for a run (and the recap fallback that followed it, if any). */
export function policyOutcome(
  result: EvictModelMessagesResult<unknown>,
  after: { recapped: boolean; driftPercent: number; refused: string | null },
): AiSdkPolicyOutcome {
  return {
    state: result.state,
    boundary: result.decision.boundary,
    evicted: result.evicted.length,
    recapped: after.recapped,
    driftPercent: after.driftPercent,
    reasons: result.decision.reasons,
    archive: result.archive,
    archived: result.evicted.map((eviction) => ({
      itemId: eviction.itemId,
      kind: eviction.kind,
      location: archiveLocation(eviction.path, eviction.itemId),
    })),
    kept: result.kept,
    refused: after.refused,
  };
}
