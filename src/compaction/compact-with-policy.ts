import { countMessages } from '../tokens/count-messages.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ArchiveSink } from './archive-sink.js';
import { type CompactMessagesResult, openAIHistoryOf } from './compact-messages.js';
import {
  type EvictionDecision,
  EvictionPolicy,
  type EvictionPolicyOptions,
  type EvictionPolicyState,
} from './eviction-policy.js';
import { fromOpenAIMessages, toOpenAIMessages } from './openai-messages.js';
import type { BoundaryKind, SubTaskBoundary } from './sub-task-boundary.js';

export interface CompactWithPolicyOptions {
  /** The policy, or its options. */
  policy: EvictionPolicy | EvictionPolicyOptions;
  /** What the policy carried from the previous call (the last answer's `policy.state`); without it, a full scan. */
  state?: EvictionPolicyState;
  /** Boundaries the messages do not show (`task-complete`, `user-request`, `task-mark`). */
  signals?: readonly BoundaryKind[];
  /** The prompt tokens of the last call, for the recap fallback and the drift. */
  promptTokens?: number;
  /** The agent's window (its compaction point), for the recap fallback. */
  contextWindow?: number;
  archive: ArchiveSink;
  /** The archive's session folder. @default 'default' */
  sessionId?: string;
  /** @default o200k_base */
  counter?: TokenCounter;
}

/** What the policy decided and where it leaves its state, beside the compaction's usual answer. */
export interface PolicyOutcome {
  state: EvictionPolicyState;
  boundary: SubTaskBoundary | null;
  /** Items replaced by tombstones this time. */
  evicted: number;
  recapped: boolean;
  driftPercent: number;
  reasons: string[];
}

export type CompactWithPolicyResult = Extract<CompactMessagesResult, { ok: true }> & {
  policy: PolicyOutcome;
};

/**
 * Runs the eviction policy on an OpenAI chat history (`[...]` or `{ messages }`): at a sub-task boundary the
 * completed sub-tasks' tool outputs and large arguments are archived and tombstoned in one batch; above the recap
 * threshold the history is recapped; otherwise the messages come back as they were (the prompt cache stays valid).
 * Always answers `ok: true`: doing nothing between boundaries is the policy working, not a refusal.
 * @throws BarometerValidationError for a malformed history or policy options; whatever the archive throws
 */
export async function compactWithPolicy(
  input: unknown,
  options: CompactWithPolicyOptions,
): Promise<CompactWithPolicyResult> {
  const counter = options.counter ?? createTokenCounter();
  const policy =
    options.policy instanceof EvictionPolicy ? options.policy : new EvictionPolicy(options.policy, counter);
  const { messages } = openAIHistoryOf(input);
  const history = fromOpenAIMessages(messages);
  const decision: EvictionDecision = policy.decide(history, {
    ...(options.state ? { state: options.state } : {}),
    ...(options.signals ? { signals: options.signals } : {}),
    ...(options.promptTokens === undefined ? {} : { promptTokens: options.promptTokens }),
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
  });
  const before = { messages: messages.length, tokens: countMessages(messages, counter).tokens };
  const changed = decision.evict !== null || decision.recap !== null;
  const applied = changed
    ? await policy.apply(history, decision, {
        archive: options.archive,
        sessionId: options.sessionId ?? 'default',
        counter,
      })
    : null;
  const compacted = applied ? toOpenAIMessages(applied.history) : messages;
  const recapped = applied?.recap?.ok === true;
  const archives = [
    ...(applied?.archive ? [applied.archive] : []),
    ...(applied?.recap?.ok ? applied.recap.archives : []),
  ];
  return {
    ok: true,
    mode: 'policy',
    evicted:
      decision.evict && applied
        ? [{ task: decision.evict.taskId, items: applied.evicted.length, archive: applied.archive }]
        : [],
    before,
    after: applied
      ? { messages: compacted.length, tokens: countMessages(compacted, counter).tokens }
      : before,
    archives,
    messages: compacted,
    counter: counter.name,
    warnings: applied?.recap && !applied.recap.ok ? [`recap fallback refused: ${applied.recap.reason}`] : [],
    policy: {
      state: applied?.state ?? decision.state,
      boundary: decision.boundary,
      evicted: applied?.evicted.length ?? 0,
      recapped,
      driftPercent: recapped
        ? policy.drift(applied!.history, { state: applied!.state })
        : decision.driftPercent,
      reasons: decision.reasons,
    },
  };
}
