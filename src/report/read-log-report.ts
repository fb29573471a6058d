import { join } from 'node:path';
import type { ArchiveEntry, ArchiveSink } from '../compaction/archive-sink.js';
import { BarometerValidationError } from '../errors/validation.js';
import { healthLevel } from '../health/health-level.js';
import { healthThresholds } from '../health/health-thresholds.js';
import type { BarometerConfig } from '../models/barometer-config.js';
import { AgentNameSchema, type ModelProfile } from '../models/model-profile.js';
import { resolveProfile } from '../models/resolve-profile.js';
import type { UsageWindow } from '../quota/windows/usage-window.js';
import { defaultStateFolder } from '../store/state-folder.js';
import { readSessionLog } from '../usage/read-session-log.js';
import type { SessionLog } from '../usage/session-log.js';
import { usageCost } from '../usage/usage-cost.js';
import type { UsageRecord } from '../usage/usage-record.js';
import type { ArchiveReader } from '../whatif/verify-archive.js';
import type { LogReport, ReportCall, ReportCompaction, ReportWhatIf } from './log-report.js';
import { reportSlots } from './report-slots.js';

/** Where the log sits: the views group by these. */
export interface LogPlace {
  path: string;
  project: string;
  session: string;
}

export interface ReadLogReportOptions {
  /** Run barometer's what-if on the logs that hold their messages (Claude Code, Codex). @default true */
  whatIf?: boolean;
  /** A loaded config file whose model entries override the registry (prices, windows). */
  config?: BarometerConfig;
  /**
   * The archive folder the what-if's tombstones name, as the proxy's would (they are sized with it).
   * @default `<the user's state folder>/archives`
   */
  archiveDir?: string;
}

/**
 * The model profiles of one report, resolved once per model and agent: the price every call is costed at and the
 * window its health is judged against. The one place a call is priced, so that every view costs it the same way.
 */
export class ReportPricing {
  readonly #profiles = new Map<string, ModelProfile | null>();
  constructor(readonly config?: BarometerConfig) {}

  profile(model: string, agent: string): ModelProfile | null {
    const key = `${agent}\u0000${model}`;
    let profile = this.#profiles.get(key);
    if (profile === undefined) {
      const parsedAgent = AgentNameSchema.safeParse(agent);
      profile =
        resolveProfile(model, {
          ...(parsedAgent.success ? { agent: parsedAgent.data } : {}),
          ...(this.config ? { config: this.config } : {}),
        }) ?? null;
      this.#profiles.set(key, profile);
    }
    return profile;
  }

  /** The cost of one call's usage at its model's price, or null when unknown (never a guess). */
  costUsd(usage: UsageRecord, model: string, agent: string): number | null {
    const cost = usageCost(usage, this.profile(model, agent)?.price);
    return cost.known ? cost.usd : null;
  }

  /** Whether a model's price is a family estimate's (its costs are estimates). */
  estimated(model: string, agent: string): boolean {
    return this.profile(model, agent)?.priceSource === 'family-estimate';
  }
}

function reportCall(call: SessionLog['calls'][number], agent: string, pricing: ReportPricing): ReportCall {
  const model = call.model ?? call.usage.model ?? 'unknown';
  const usage = call.usage;
  const profile = pricing.profile(model, agent);
  const thresholds = healthThresholds(profile ?? {});
  if (!usage.available) {
    return {
      time: call.timestamp,
      model,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: null,
      estimated: false,
      promptTokens: null,
      health: 'unknown',
      streamedOutputTokens: 0,
      streamedCostUsd: 0,
    };
  }
  const cost = pricing.costUsd(usage, model, agent);
  // ccusage keeps a Claude Code message's first streamed line (docs/rules.md, "barometer report against ccusage").
  const first = agent === 'claude-code' && call.firstUsage?.available ? call.firstUsage : undefined;
  const firstCost = first ? pricing.costUsd(first, model, agent) : null;
  return {
    time: call.timestamp,
    model,
    inputTokens: Math.max(0, usage.promptTokens - usage.cachedReadTokens - usage.cachedWriteTokens),
    outputTokens: usage.completionTokens,
    cacheReadTokens: usage.cachedReadTokens,
    cacheWriteTokens: usage.cachedWriteTokens,
    costUsd: cost,
    estimated: cost !== null && pricing.estimated(model, agent),
    promptTokens: usage.promptTokens,
    health: healthLevel(usage.promptTokens, thresholds),
    streamedOutputTokens: first ? Math.max(0, usage.completionTokens - first.completionTokens) : 0,
    streamedCostUsd: cost !== null && firstCost !== null ? cost - firstCost : 0,
  };
}

/** An archive kept in memory: the what-if archives what it evicts and reads it back to check it. */
function memoryArchive(): { archive: ArchiveSink; reader: ArchiveReader } {
  const files = new Map<string, ArchiveEntry[]>();
  return {
    archive: {
      async append(sessionId, taskId, entries) {
        const path = `${sessionId}/${taskId}.log`;
        const list = files.get(path) ?? [];
        list.push(...entries);
        files.set(path, list);
        return { path, records: entries.length };
      },
      async has(sessionId, taskId) {
        return files.has(`${sessionId}/${taskId}.log`);
      },
    },
    reader: {
      async readFile(path) {
        return (files.get(path) ?? []).map((entry) => ({ itemId: entry.itemId, content: entry.content }));
      },
    },
  };
}

async function whatIfOf(
  text: string,
  log: SessionLog,
  config: BarometerConfig | undefined,
  archiveDir: string,
): Promise<ReportWhatIf | string> {
  // Loaded on demand: the what-if brings the tokenizer, which a report without it never needs.
  const { replayWhatIf, WHAT_IF_FORMATS } = await import('../session/what-if-replay.js');
  if (!(WHAT_IF_FORMATS as readonly string[]).includes(log.format)) {
    return `${log.format} logs do not hold the messages the what-if replays`;
  }
  try {
    const { archive, reader } = memoryArchive();
    const result = await replayWhatIf(text, {
      format: log.format,
      archive,
      reader,
      tombstoneArchiveDir: archiveDir,
      ...(config ? { config } : {}),
    });
    const { real, policy } = result.whatIf;
    return {
      savedPromptTokens: real.promptTokens - policy.promptTokens,
      savedCostUsd:
        real.costUsd === null || policy.costUsd === null || result.whatIf.unpricedCalls > 0
          ? null
          : real.costUsd - policy.costUsd,
      compactionsAvoided: real.compactions - policy.compactions,
    };
  } catch (error) {
    if (error instanceof BarometerValidationError) return error.issues[0]?.message ?? error.message;
    throw error;
  }
}

/** The windows a log records, each figure that differs from the last of the same window (the blocks view reads them). */
function recordedWindows(log: SessionLog): UsageWindow[] {
  const figures: UsageWindow[] = [];
  const last = new Map<string, UsageWindow>();
  for (const call of log.calls) {
    for (const window of call.windows ?? []) {
      const before = last.get(window.id);
      if (before && before.usedPercent === window.usedPercent && before.resetsAt === window.resetsAt)
        continue;
      last.set(window.id, window);
      figures.push(window);
    }
  }
  return figures;
}

/**
 * What one session log contributes to a report: each call's tokens by kind, cost and context health, the
 * compactions it records, and (unless turned off) barometer's what-if on it.
 * @throws BarometerValidationError when the text is not a session log of a known agent
 */
export async function readLogReport(
  text: string,
  place: LogPlace,
  pricing: ReportPricing,
  options: ReadLogReportOptions = {},
): Promise<LogReport> {
  const log = readSessionLog(text);
  const agent = log.format;
  // A session's calls and compactions with those of the sub-agents it ran inline (Claude Code sidechains, the
  // trajectories of an OpenHands output): they are billed to the session, as ccusage counts them too.
  const sessions: SessionLog[] = [];
  const gather = (session: SessionLog) => {
    sessions.push(session);
    for (const child of session.children ?? []) gather(child);
  };
  gather(log);
  const compactions: ReportCompaction[] = sessions.flatMap((session) =>
    session.compactions.map((compaction) => ({
      time: compaction.timestamp,
      kind: compaction.trigger === 'manual' ? ('manual' as const) : ('auto' as const),
    })),
  );
  const report: LogReport = {
    ...place,
    agent,
    slots: reportSlots(
      sessions.flatMap((session) => session.calls.map((call) => reportCall(call, agent, pricing))),
    ),
    compactions,
    whatIf: null,
  };
  const windows = recordedWindows(log);
  if (windows.length > 0) report.windows = windows;
  if (options.whatIf !== false && report.slots.length > 0) {
    const whatIf = await whatIfOf(
      text,
      log,
      pricing.config,
      options.archiveDir ?? join(defaultStateFolder(), 'archives'),
    );
    if (typeof whatIf === 'string') report.whatIfProblem = whatIf;
    else report.whatIf = whatIf;
  }
  return report;
}
