import type { ArchiveSink } from '../compaction/archive-sink.js';
import { EvictionPolicy, type EvictionPolicyOptions } from '../compaction/eviction-policy.js';
import { BarometerValidationError } from '../errors/validation.js';
import type { ModelPrice } from '../models/model-price.js';
import { resolveProfile } from '../models/resolve-profile.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { attachSubagentLogs, type SubagentFile } from '../usage/attach-subagent-logs.js';
import { readSessionLog } from '../usage/read-session-log.js';
import type { SessionLog } from '../usage/session-log.js';
import type { LogHistory } from '../whatif/log-history.js';
import { readClaudeCodeHistory } from '../whatif/read-claude-code-history.js';
import { readCodexHistory } from '../whatif/read-codex-history.js';
import { readOpenHandsHistory } from '../whatif/read-openhands-history.js';
import { readPiHistory } from '../whatif/read-pi-history.js';
import { simulateWhatIf, type WhatIfReport } from '../whatif/simulate-what-if.js';
import type { ArchiveReader } from '../whatif/verify-archive.js';
import {
  type ReplayOptions,
  type ReplayResult,
  replaySessionLog,
  sessionOptionsForLog,
  totalsWithChildren,
} from './replay.js';
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
  /** The sub-agents' own transcripts beside a Claude Code session (`<session>/subagents/*.jsonl`). */
  subagents?: readonly SubagentFile[];
}

/** `whatIf` of `barometer replay --what-if --json`: the recorded session against barometer's policy. */
export type WhatIfSummary = Omit<WhatIfReport, 'calls'>;

export type WhatIfReplayResult = ReplayResult & { whatIf: WhatIfSummary };

/** The log formats whose logs hold the messages (the others hold usage only). */
export const WHAT_IF_FORMATS = ['claude-code', 'codex', 'pi', 'openhands'] as const;

/** Where a session's history is: the text of its file, and for a child, which part of it. */
interface HistorySource {
  text: string;
  /** An inline Claude Code sub-agent: its chain key. */
  chain?: string;
  /** An OpenHands trajectory of an evaluation output: its position among the file's trajectories. */
  trajectory?: number;
}

function readHistory(source: HistorySource, log: SessionLog): LogHistory {
  switch (log.format) {
    case 'claude-code':
      return readClaudeCodeHistory(source.text, source.chain === undefined ? {} : { chain: source.chain });
    case 'codex':
      return readCodexHistory(source.text);
    case 'pi':
      return readPiHistory(source.text);
    default: {
      const value = openHandsTrajectory(source.text, source.trajectory);
      return readOpenHandsHistory(value.events, value.metrics);
    }
  }
}

/** The events (and run metrics) of a saved trajectory, or of one line of an evaluation output. */
function openHandsTrajectory(
  text: string,
  trajectory: number | undefined,
): { events: unknown[]; metrics?: unknown } {
  const parse = (json: string): unknown => {
    try {
      return JSON.parse(json);
    } catch {
      return undefined;
    }
  };
  let value: unknown;
  if (trajectory === undefined) {
    value = parse(text);
    // An evaluation output of one trajectory is read as that trajectory.
    if (value === undefined) value = parse(text.split('\n').find((line) => line.trim() !== '') ?? '');
  } else {
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    value = parse(lines[trajectory] ?? '');
  }
  if (Array.isArray(value)) return { events: value };
  if (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { history?: unknown }).history)
  ) {
    const record = value as { history: unknown[]; metrics?: unknown };
    return { events: record.history, metrics: record.metrics };
  }
  return { events: [] };
}

/** The history a log holds, call by call, for the formats that log their messages. */
export function logHistoryOf(text: string | HistorySource, log: SessionLog): LogHistory {
  const source = typeof text === 'string' ? { text } : text;
  if (log.format === 'gemini-cli') {
    throw new BarometerValidationError([
      {
        field: 'whatIf',
        value: log.format,
        message: `the what-if replay needs the messages, which only ${WHAT_IF_FORMATS.join(', ')} logs hold`,
        allowed: { values: [...WHAT_IF_FORMATS] },
      },
    ]);
  }
  const history = readHistory(source, log);
  if (history.calls.length !== log.calls.length) {
    throw new BarometerValidationError([
      {
        field: 'whatIf',
        value: history.calls.length,
        message: `the history read ${history.calls.length} calls where the usage read ${log.calls.length}: the log cannot be replayed as a what-if`,
      },
    ]);
  }
  // Each call priced at the model the usage reader named (an OpenHands call through its route, say).
  history.calls.forEach((call, index) => {
    const model = log.calls[index]?.model;
    if (model !== undefined) call.model = model;
  });
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
  let log = readSessionLog(text, {
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(options.onProgress
      ? { onProgress: (done: number, total: number) => options.onProgress?.('read', done, total) }
      : {}),
  });
  if (options.subagents && options.subagents.length > 0) log = attachSubagentLogs(log, options.subagents);
  const texts = new Map((options.subagents ?? []).map((file) => [file.name, file.text]));
  return whatIfOfLog(log, { text }, options, options.sessionId ?? 'whatif', texts);
}

/**
 * One session's what-if, then each child's on its own (its own history, its own archive folder `<session>-<n>`),
 * with the parent's totals counting the children's calls.
 */
async function whatIfOfLog(
  log: SessionLog,
  source: HistorySource,
  options: WhatIfReplayOptions,
  sessionId: string,
  texts: ReadonlyMap<string, string>,
): Promise<WhatIfReplayResult> {
  const { children = [], ...own } = log;
  const replayed: WhatIfReplayResult[] = [];
  for (const [position, child] of children.entries()) {
    const childSource: HistorySource =
      child.file !== undefined
        ? { text: texts.get(child.file) ?? '' }
        : child.format === 'openhands'
          ? { text: source.text, trajectory: position }
          : { text: source.text, ...(child.id === undefined ? {} : { chain: child.id }) };
    replayed.push(
      await whatIfOfLog(
        child,
        childSource,
        { ...options, onProgress: undefined },
        `${sessionId}-${position + 1}`,
        texts,
      ),
    );
  }
  // A log that holds only its children's calls (an evaluation output's trajectories): its what-if is theirs, summed.
  const result =
    own.calls.length === 0 && children.length > 0
      ? { ...replaySessionLog(own, options), whatIf: summedWhatIf(replayed.map((child) => child.whatIf)) }
      : await whatIfOfSession(own, source, { ...options, sessionId });
  if (children.length === 0) return result;
  result.children = replayed;
  result.summary.total = totalsWithChildren(
    {
      calls: result.summary.calls,
      promptTokens: result.summary.promptTokens,
      completionTokens: result.summary.completionTokens,
      costUsd: result.summary.costUsd,
      unpricedCalls: result.summary.unpricedCalls,
    },
    replayed,
  );
  return result;
}

/** The what-ifs of sessions side by side, as one: their tokens, costs, evictions and archives added up. */
function summedWhatIf(parts: readonly WhatIfSummary[]): WhatIfSummary {
  const sum = (values: Array<number | null>) =>
    values.some((value) => value !== null)
      ? values.reduce<number>((total, value) => total + (value ?? 0), 0)
      : null;
  const peak = (values: Array<number | null>) =>
    values.some((value) => value !== null) ? Math.max(...values.map((value) => value ?? 0)) : null;
  const real = {
    promptTokens: parts.reduce((total, part) => total + part.real.promptTokens, 0),
    costUsd: sum(parts.map((part) => part.real.costUsd)),
    peakPromptTokens: peak(parts.map((part) => part.real.peakPromptTokens)),
    compactions: parts.reduce((total, part) => total + part.real.compactions, 0),
  };
  const added = (pick: (part: WhatIfSummary) => number) =>
    parts.reduce((total, part) => total + pick(part), 0);
  const policy = {
    promptTokens: added((part) => part.policy.promptTokens),
    costUsd: sum(parts.map((part) => part.policy.costUsd)),
    peakPromptTokens: peak(parts.map((part) => part.policy.peakPromptTokens)),
    compactions: added((part) => part.policy.compactions),
    evictions: added((part) => part.policy.evictions),
    recaps: added((part) => part.policy.recaps),
    quotedRereads: added((part) => part.policy.quotedRereads),
    trimmedAtArrival: added((part) => part.policy.trimmedAtArrival),
    archivedItems: added((part) => part.policy.archivedItems),
    archivedBytes: added((part) => part.policy.archivedBytes),
    rereads: added((part) => part.policy.rereads),
    rereadTokens: added((part) => part.policy.rereadTokens),
    callsAboveCompactionPoint: added((part) => part.policy.callsAboveCompactionPoint),
  };
  const percent = (from: number | null, to: number | null) =>
    from !== null && to !== null && from > 0 ? Math.round(((from - to) / from) * 1000) / 10 : null;
  return {
    real,
    policy,
    savedPercent: percent(real.promptTokens, policy.promptTokens) ?? 0,
    costSavedPercent: percent(real.costUsd, policy.costUsd),
    archiveVerified: parts.every((part) => part.archiveVerified),
    archiveFailures: parts.flatMap((part) => part.archiveFailures),
    compactionPoint: null,
    calibration: {
      baseTokens: 0,
      toolScale: 0,
      textScale: 0,
      reasoningScale: 0,
      itemTokens: 0,
      segmentOffsets: [],
      // Each session's stretches are in its own calibration (see children).
      segments: [],
      model: 'each session its own (see children)',
      calls: added((part) => part.calibration.calls),
      meanAbsErrorPercent: Math.max(0, ...parts.map((part) => part.calibration.meanAbsErrorPercent)),
      maxAbsErrorPercent: Math.max(0, ...parts.map((part) => part.calibration.maxAbsErrorPercent)),
      maxErrorCallIndex: null,
    },
    evictions: [],
    unpricedCalls: added((part) => part.unpricedCalls),
  };
}

async function whatIfOfSession(
  log: SessionLog,
  source: HistorySource,
  options: WhatIfReplayOptions,
): Promise<WhatIfReplayResult> {
  const history = logHistoryOf(source, log);
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
    source: log.format === 'gemini-cli' ? 'gemini-cli' : log.format,
    ...(options.tombstoneArchiveDir === undefined
      ? {}
      : {
          // Named by the session's own id where the log gives one (the proxy's archives are by session id: a
          // Claude Code UUID is 36 characters, which the tombstone carries).
          tombstonePath: (taskId: string) =>
            `${options.tombstoneArchiveDir}/${log.id ?? options.sessionId ?? 'whatif'}/${taskId}.log`,
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
