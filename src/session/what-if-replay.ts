import type { ArchiveSink } from '../compaction/archive-sink.js';
import { EvictionPolicy, type EvictionPolicyOptions } from '../compaction/eviction-policy.js';
import { BarometerValidationError } from '../errors/validation.js';
import type { ModelPrice } from '../models/model-price.js';
import { resolveProfile } from '../models/resolve-profile.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { readSessionLog } from '../usage/read-session-log.js';
import type { SessionLog } from '../usage/session-log.js';
import type { LogHistory } from '../whatif/log-history.js';
import { readClaudeCodeHistory } from '../whatif/read-claude-code-history.js';
import { readCodexHistory } from '../whatif/read-codex-history.js';
import { simulateWhatIf, type WhatIfReport } from '../whatif/simulate-what-if.js';
import type { ArchiveReader } from '../whatif/verify-archive.js';
import { type ReplayOptions, type ReplayResult, replaySessionLog, sessionOptionsForLog } from './replay.js';
import { createSessionState } from './session-state.js';

export interface WhatIfReplayOptions extends Omit<ReplayOptions, 'driftOf'> {
  /** The eviction policy (or its options, e.g. from a policy file). @default new EvictionPolicy() */
  policy?: EvictionPolicy | EvictionPolicyOptions;
  /** Where the evicted content is archived. */
  archive: ArchiveSink;
  /** Reads the archive back, to check every archived item against the log. */
  reader: ArchiveReader;
  /** The archive's session folder. @default 'whatif' */
  sessionId?: string;
  /** @default o200k_base */
  counter?: TokenCounter;
  /**
   * Size tombstones as if the archive were this directory (relative to the working directory), not where `archive`
   * really writes: a temporary directory's random name would change the figures from one run to the next.
   * @default the archive's real paths
   */
  tombstoneArchiveDir?: string;
}

/** `whatIf` of `barometer replay --what-if --json`: the recorded session against barometer's policy. */
export type WhatIfSummary = Omit<WhatIfReport, 'calls'>;

export type WhatIfReplayResult = ReplayResult & { whatIf: WhatIfSummary };

/** The log formats whose logs hold the messages (the others hold usage only). */
export const WHAT_IF_FORMATS = ['claude-code', 'codex'] as const;

/** The history a log holds, call by call, for the formats that log their messages. */
export function logHistoryOf(text: string, log: SessionLog): LogHistory {
  if (log.format !== 'claude-code' && log.format !== 'codex') {
    throw new BarometerValidationError([
      {
        field: 'whatIf',
        value: log.format,
        message: `the what-if replay needs the messages, which only ${WHAT_IF_FORMATS.join(' and ')} logs hold`,
        allowed: { values: [...WHAT_IF_FORMATS] },
      },
    ]);
  }
  const history = log.format === 'claude-code' ? readClaudeCodeHistory(text) : readCodexHistory(text);
  if (history.calls.length !== log.calls.length) {
    throw new BarometerValidationError([
      {
        field: 'whatIf',
        value: history.calls.length,
        message: `the history read ${history.calls.length} calls where the usage read ${log.calls.length}: the log cannot be replayed as a what-if`,
      },
    ]);
  }
  return history;
}

/**
 * `barometer replay --what-if`: the recorded session replayed twice — as it happened (the usual timeline, with the
 * drift measured on its history fed to the regulator) and as barometer's eviction policy would have managed it
 * (see `simulateWhatIf`): the prompt and the cost of every call, the evictions, the archive checked byte for
 * byte against the log. The agent's compaction point is its lowest recorded compaction, else its window.
 * @throws BarometerValidationError for a log that does not hold its messages (Gemini CLI, OpenHands), an unreadable
 * log, an unknown model
 */
export async function replayWhatIf(text: string, options: WhatIfReplayOptions): Promise<WhatIfReplayResult> {
  const log = readSessionLog(text, {
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(options.onProgress
      ? { onProgress: (done: number, total: number) => options.onProgress?.('read', done, total) }
      : {}),
  });
  const history = logHistoryOf(text, log);
  const counter = options.counter ?? createTokenCounter();
  const policy =
    options.policy instanceof EvictionPolicy ? options.policy : new EvictionPolicy(options.policy, counter);
  const initial = createSessionState(sessionOptionsForLog(log, options), {
    now: () => 0,
    ...(options.config ? { config: options.config } : {}),
  });
  const window = initial.thresholds.limit;
  const recorded = log.compactions
    .filter((compaction) => compaction.trigger === 'auto' && compaction.preTokens !== undefined)
    .map((compaction) => compaction.preTokens as number);
  const points = [...recorded, ...(window === null ? [] : [window])];
  const compactionPoint = points.length > 0 ? Math.min(...points) : null;
  const prices = new Map<string, ModelPrice | null>();
  function priceOf(model: string | undefined): ModelPrice | null {
    const id = options.model ?? model ?? log.model ?? '';
    if (!prices.has(id)) {
      prices.set(id, resolveProfile(id, options.config ? { config: options.config } : {})?.price ?? null);
    }
    return prices.get(id) ?? null;
  }
  const report = await simulateWhatIf(history, {
    policy,
    archive: options.archive,
    reader: options.reader,
    sessionId: options.sessionId ?? 'whatif',
    counter,
    priceOf,
    compactionPoint,
    source: log.format === 'codex' ? 'codex' : 'claude-code',
    ...(options.tombstoneArchiveDir === undefined
      ? {}
      : {
          tombstonePath: (taskId: string) =>
            `${options.tombstoneArchiveDir}/${options.sessionId ?? 'whatif'}/${taskId}.log`,
        }),
  });
  const { calls: whatIfCalls, ...summary } = report;
  const result = replaySessionLog(log, {
    ...options,
    driftOf: (index) => whatIfCalls[index]?.driftPercent,
  });
  for (const call of result.calls) {
    const whatIf = whatIfCalls[call.index];
    call.driftPercent = whatIf?.driftPercent ?? null;
    call.reconstructedPromptTokens = whatIf?.reconstructedPromptTokens ?? null;
    call.whatIfPromptTokens = whatIf?.whatIfPromptTokens ?? null;
    call.whatIfCostUsd = whatIf?.whatIfCostUsd ?? null;
  }
  return { ...result, whatIf: summary };
}
