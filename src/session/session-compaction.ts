import type { ArchiveSink } from '../compaction/archive-sink.js';
import type { Summarizer } from '../compaction/compact-history.js';
import { type CompactMessagesResult, compactOpenAIMessages } from '../compaction/compact-messages.js';
import { compactWithPolicy, type PolicyOutcome } from '../compaction/compact-with-policy.js';
import type {
  EvictionPolicy,
  EvictionPolicyOptions,
  EvictionPolicyState,
} from '../compaction/eviction-policy.js';
import type { BoundaryKind } from '../compaction/sub-task-boundary.js';
import { BarometerValidationError } from '../errors/validation.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { CompactionReport } from './compaction-step.js';
import type { SessionState } from './session-state.js';

export interface CompactRequest {
  /** The history: OpenAI chat messages, or `{ messages, tasks }` with completed tasks to evict. */
  history: unknown;
  /** A live session to tell of the compaction; also the archive's session folder. */
  sessionId?: string;
  keepTurns?: number;
  /** The kept turns are shortened to at most this many tokens. @default 20,000 */
  keepTokens?: number;
  /** Refuse a compaction saving less than this share of the tokens. @default 5 */
  minGainPercent?: number;
  summarizer?: Summarizer;
  counter?: TokenCounter;
  /**
   * Let barometer's eviction policy decide instead: evict the completed sub-tasks at a boundary, recap above the
   * threshold, else leave the history as it is (the prompt cache stays valid). The same object the what-if replay
   * runs. The session's last prompt and window feed the recap fallback and the drift, which the session keeps.
   */
  policy?: EvictionPolicy | EvictionPolicyOptions;
  /** The policy's state from the previous answer (`policy.state`); without it the history is scanned whole. */
  policyState?: EvictionPolicyState;
  /** Boundaries the messages do not show: `task-complete`, `user-request`, `task-mark`. */
  signals?: readonly BoundaryKind[];
}

export type CompactAnswer = CompactMessagesResult & { sessionRecorded: boolean; policy?: PolicyOutcome };

/** A compaction as the monitor's subscribers hear of it (`MonitorEvent` of type `compacted`), for metrics. */
export interface CompactedHistory {
  id: string | undefined;
  mode: 'recap' | 'eviction' | 'policy';
  evictedItems: number;
}

/** What a compaction reads and tells of the live sessions (the monitor gives it). */
export interface CompactionSessions {
  /** Where what is replaced is archived first. Without one, task outputs are not evicted and the policy refuses. */
  archive: ArchiveSink | undefined;
  /** Writes recaps unless the request brings its own (the deterministic recap when it fails). */
  summarizer: Summarizer | undefined;
  /** A live session's state; undefined when there is none. */
  session(id: string): Promise<SessionState | undefined>;
  /** Keeps the drift the policy measured in a live session. */
  setDrift(id: string, drift: number): Promise<void>;
  /** Tells a live session of the compaction (`SessionMonitor.recordCompaction`). */
  recordCompaction(id: string, report: CompactionReport): Promise<unknown>;
  /** Tells the subscribers of a compaction made (recap and flush, or eviction). */
  compacted(compaction: CompactedHistory): void;
}

/**
 * Compacts a history (recap and flush, or eviction of completed tasks; or as the eviction policy decides), archiving
 * what it replaces first; then, when `sessionId` names a live session, records the compaction in it.
 * @throws BarometerValidationError for a malformed history or options
 */
export async function compactForSession(
  request: CompactRequest,
  sessions: CompactionSessions,
): Promise<CompactAnswer> {
  if (request.policy !== undefined) return compactByPolicy(request, request.policy, sessions);
  const result = await compactOpenAIMessages(request.history, {
    ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
    ...(request.keepTurns === undefined ? {} : { keepTurns: request.keepTurns }),
    ...(request.keepTokens === undefined ? {} : { keepTokens: request.keepTokens }),
    ...(request.minGainPercent === undefined ? {} : { minGainPercent: request.minGainPercent }),
    ...(request.summarizer
      ? { summarizer: request.summarizer }
      : sessions.summarizer
        ? { summarizer: sessions.summarizer, summarizerFallback: true }
        : {}),
    ...(request.counter ? { counter: request.counter } : {}),
    ...(sessions.archive ? { archive: sessions.archive } : {}),
  });
  if (result.ok) {
    sessions.compacted({
      id: request.sessionId,
      mode: result.mode,
      evictedItems: result.evicted.reduce((sum, task) => sum + task.items, 0),
    });
  }
  if (!result.ok || request.sessionId === undefined) return { ...result, sessionRecorded: false };
  if (!(await sessions.session(request.sessionId))) return { ...result, sessionRecorded: false };
  await sessions.recordCompaction(request.sessionId, {
    before: Math.max(result.before.tokens, result.after.tokens),
    after: result.after.tokens,
    trigger: 'barometer',
  });
  return { ...result, sessionRecorded: true };
}

/** The eviction policy's compaction: the live session's last prompt and window feed it, and it keeps the drift. */
async function compactByPolicy(
  request: CompactRequest,
  policy: EvictionPolicy | EvictionPolicyOptions,
  sessions: CompactionSessions,
): Promise<CompactAnswer> {
  const { archive } = sessions;
  if (!archive) {
    throw new BarometerValidationError(
      [
        {
          field: 'policy',
          value: 'policy',
          message: 'the eviction policy needs an archive to write to first',
        },
      ],
      'compaction options',
    );
  }
  const live = request.sessionId === undefined ? undefined : await sessions.session(request.sessionId);
  const promptTokens = live?.lastPrompt ?? undefined;
  const contextWindow = live?.thresholds.limit ?? undefined;
  const result = await compactWithPolicy(request.history, {
    policy,
    archive,
    ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
    ...(request.policyState ? { state: request.policyState } : {}),
    ...(request.signals ? { signals: request.signals } : {}),
    ...(promptTokens === undefined || promptTokens === null ? {} : { promptTokens }),
    ...(contextWindow === undefined || contextWindow === null ? {} : { contextWindow }),
    ...(request.counter ? { counter: request.counter } : {}),
  });
  if (!live || request.sessionId === undefined) return { ...result, sessionRecorded: false };
  const id = request.sessionId;
  // The measured drift replaces "drift not measured" in the regulator from the next usage on.
  await sessions.setDrift(id, Math.min(100, Math.max(0, result.policy.driftPercent)));
  if (result.policy.evicted === 0 && !result.policy.recapped) return { ...result, sessionRecorded: false };
  await sessions.recordCompaction(id, {
    before: Math.max(result.before.tokens, result.after.tokens),
    after: result.after.tokens,
    trigger: 'barometer',
  });
  return { ...result, sessionRecorded: true };
}
