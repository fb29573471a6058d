import type { Receipt } from '../session/proxy-receipt.js';
import type { LogReport, ReportSlot } from './log-report.js';
import { blockAt, type ReportBlock, reportBlocks } from './report-blocks.js';

/** How a report groups the calls. */
export const REPORT_VIEWS = ['daily', 'session', 'project', 'model', 'blocks'] as const;
export type ReportView = (typeof REPORT_VIEWS)[number];

export interface ReportFilter {
  /** First day included, `YYYY-MM-DD` (in the report's time zone). */
  since?: string;
  /** Last day included, `YYYY-MM-DD`. */
  until?: string;
  project?: string;
  agent?: string;
}

/** One row of a report: the calls of one day, session, project or model, added up. */
export interface ReportRow {
  /** The day (`YYYY-MM-DD`), session, project or model; `total` for the total row. */
  key: string;
  /** The agents and projects of the row's calls (for a session: its agent and project). */
  agents: string[];
  projects: string[];
  /** Days of the first and last call, `YYYY-MM-DD`. */
  firstDay: string;
  lastDay: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** US dollars of the calls with a known price. */
  costUsd: number;
  /**
   * The part of `costUsd` priced at a family estimate: calls of models the registry does not list, priced as the
   * newest known model of their family (`barometer models <name>` says which). The text output marks such a cost.
   */
  estimatedCostUsd: number;
  /** Calls whose cost is unknown (not in `costUsd`). */
  unpricedCalls: number;
  /** Compactions the agent ran by itself, and the ones the user asked for. */
  autoCompactions: number;
  manualCompactions: number;
  peakPromptTokens: number | null;
  /** Share of the calls whose prompt was in caution, and in critical, in percent (one decimal). */
  cautionPercent: number;
  criticalPercent: number;
  /**
   * What ccusage would leave out of the row's Claude Code calls: the output tokens after each streamed message's
   * first line, and their cost (ccusage's cost for the same calls is `costUsd − streamedCostUsd`).
   */
  streamedOutputTokens: number;
  streamedCostUsd: number;
  /** barometer's what-if over the sessions of the row that have one. */
  whatIf: {
    sessions: number;
    savedPromptTokens: number;
    /** Null when none of the row's what-ifs could be priced. */
    savedCostUsd: number | null;
    compactionsAvoided: number;
  };
  /**
   * What an acting barometer proxy measured on the sessions of the row it forwarded (their receipts: the requests as
   * the agents sent them priced by the cache model, against what the provider billed), beside the what-if's forecast.
   */
  proxy: {
    sessions: number;
    calls: number;
    wouldHaveCostUsd: number;
    costUsd: number;
    /** `wouldHaveCostUsd − costUsd`, net of the cache writes barometer caused; negative when acting cost more. */
    savedUsd: number;
    /** Calls where the provider's cache reads departed from the model's prediction. */
    departures: number;
  };
}

export interface Report {
  view: ReportView;
  rows: ReportRow[];
  total: ReportRow;
  /** The blocks view's 5-hour blocks (gaps included), in time order; one row per block with calls. */
  blocks?: ReportBlock[];
}

class RowBuilder {
  readonly agents = new Set<string>();
  readonly projects = new Set<string>();
  firstDay = '';
  lastDay = '';
  calls = 0;
  inputTokens = 0;
  outputTokens = 0;
  cacheReadTokens = 0;
  cacheWriteTokens = 0;
  costUsd = 0;
  estimatedCostUsd = 0;
  unpricedCalls = 0;
  autoCompactions = 0;
  manualCompactions = 0;
  peakPromptTokens: number | null = null;
  caution = 0;
  critical = 0;
  streamedOutputTokens = 0;
  streamedCostUsd = 0;
  whatIfSessions = 0;
  savedPromptTokens = 0;
  savedCostUsd: number | null = null;
  compactionsAvoided = 0;
  readonly proxy = { sessions: 0, calls: 0, wouldHaveCostUsd: 0, costUsd: 0, savedUsd: 0, departures: 0 };

  constructor(readonly key: string) {}

  day(day: string): void {
    if (this.firstDay === '' || day < this.firstDay) this.firstDay = day;
    if (day > this.lastDay) this.lastDay = day;
  }

  add(slot: ReportSlot, day: string, log: LogReport): void {
    this.agents.add(log.agent);
    this.projects.add(log.project);
    this.day(day);
    this.calls += slot.calls;
    this.inputTokens += slot.inputTokens;
    this.outputTokens += slot.outputTokens;
    this.cacheReadTokens += slot.cacheReadTokens;
    this.cacheWriteTokens += slot.cacheWriteTokens;
    this.costUsd += slot.costUsd;
    this.estimatedCostUsd += slot.estimatedCostUsd;
    this.unpricedCalls += slot.unpricedCalls;
    if (
      slot.peakPromptTokens !== null &&
      (this.peakPromptTokens === null || slot.peakPromptTokens > this.peakPromptTokens)
    )
      this.peakPromptTokens = slot.peakPromptTokens;
    this.caution += slot.cautionCalls;
    this.critical += slot.criticalCalls;
    this.streamedOutputTokens += slot.streamedOutputTokens;
    this.streamedCostUsd += slot.streamedCostUsd;
  }

  addWhatIf(log: LogReport): void {
    if (!log.whatIf) return;
    this.whatIfSessions++;
    this.savedPromptTokens += log.whatIf.savedPromptTokens;
    this.compactionsAvoided += log.whatIf.compactionsAvoided;
    if (log.whatIf.savedCostUsd !== null)
      this.savedCostUsd = (this.savedCostUsd ?? 0) + log.whatIf.savedCostUsd;
  }

  addReceipt(receipt: Receipt | undefined): void {
    if (!receipt) return;
    this.proxy.sessions++;
    this.proxy.calls += receipt.calls;
    this.proxy.wouldHaveCostUsd += receipt.wouldHaveCostUsd;
    this.proxy.costUsd += receipt.costUsd;
    this.proxy.savedUsd += receipt.savedUsd;
    this.proxy.departures += receipt.departures;
  }

  merge(other: RowBuilder): void {
    for (const agent of other.agents) this.agents.add(agent);
    for (const project of other.projects) this.projects.add(project);
    if (other.firstDay !== '') this.day(other.firstDay);
    if (other.lastDay !== '') this.day(other.lastDay);
    this.calls += other.calls;
    this.inputTokens += other.inputTokens;
    this.outputTokens += other.outputTokens;
    this.cacheReadTokens += other.cacheReadTokens;
    this.cacheWriteTokens += other.cacheWriteTokens;
    this.costUsd += other.costUsd;
    this.estimatedCostUsd += other.estimatedCostUsd;
    this.unpricedCalls += other.unpricedCalls;
    this.autoCompactions += other.autoCompactions;
    this.manualCompactions += other.manualCompactions;
    if (
      other.peakPromptTokens !== null &&
      (this.peakPromptTokens === null || other.peakPromptTokens > this.peakPromptTokens)
    )
      this.peakPromptTokens = other.peakPromptTokens;
    this.caution += other.caution;
    this.critical += other.critical;
    this.streamedOutputTokens += other.streamedOutputTokens;
    this.streamedCostUsd += other.streamedCostUsd;
    this.whatIfSessions += other.whatIfSessions;
    this.savedPromptTokens += other.savedPromptTokens;
    this.compactionsAvoided += other.compactionsAvoided;
    if (other.savedCostUsd !== null) this.savedCostUsd = (this.savedCostUsd ?? 0) + other.savedCostUsd;
    for (const key of Object.keys(this.proxy) as (keyof RowBuilder['proxy'])[])
      this.proxy[key] += other.proxy[key];
  }

  row(): ReportRow {
    const percent = (count: number) => (this.calls === 0 ? 0 : Math.round((count / this.calls) * 1000) / 10);
    return {
      key: this.key,
      agents: [...this.agents].sort(),
      projects: [...this.projects].sort(),
      firstDay: this.firstDay,
      lastDay: this.lastDay,
      calls: this.calls,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      cacheReadTokens: this.cacheReadTokens,
      cacheWriteTokens: this.cacheWriteTokens,
      costUsd: this.costUsd,
      estimatedCostUsd: this.estimatedCostUsd,
      unpricedCalls: this.unpricedCalls,
      autoCompactions: this.autoCompactions,
      manualCompactions: this.manualCompactions,
      peakPromptTokens: this.peakPromptTokens,
      cautionPercent: percent(this.caution),
      criticalPercent: percent(this.critical),
      streamedOutputTokens: this.streamedOutputTokens,
      streamedCostUsd: this.streamedCostUsd,
      whatIf: {
        sessions: this.whatIfSessions,
        savedPromptTokens: this.savedPromptTokens,
        savedCostUsd: this.savedCostUsd,
        compactionsAvoided: this.compactionsAvoided,
      },
      proxy: { ...this.proxy },
    };
  }
}

/** The session's key: its agent's session id, with the project for logs that share a name across projects. */
const sessionKey = (log: LogReport) => log.session;

/** The model a session mostly ran on (the most calls), for the model view's what-if and compactions. */
function mainModel(slots: readonly ReportSlot[]): string {
  const counts = new Map<string, number>();
  let best = slots[0]?.model ?? 'unknown';
  for (const slot of slots) {
    const count = (counts.get(slot.model) ?? 0) + slot.calls;
    counts.set(slot.model, count);
    if (count > (counts.get(best) ?? 0)) best = slot.model;
  }
  return best;
}

/**
 * Adds the calls of many logs up by day, session, project, model or 5-hour block (`reportBlocks`, at `now`), with a
 * total row. Pure: `dayOf` turns a
 * call's ISO time into its day (`YYYY-MM-DD`, in the time zone the caller chose). The calls come added up by
 * quarter hour and model (`ReportSlot`), which puts each on the same day as alone.
 *
 * - A call counts on its own day, in its own session, project and model.
 * - A compaction counts on its own day; in the model view, under the model its session mostly ran on.
 * - A session's what-if counts once: on the day of its first call in range, and in the model view under its main
 *   model. Sessions with no call in range are left out, and so is their what-if. So does its proxy receipt
 *   (`receipts`, by session id): the proxy's measure of the whole session.
 * - Rows are sorted by day (daily) or by cost, the highest first (the others).
 */
export function aggregateReport(
  logs: readonly LogReport[],
  view: ReportView,
  filter: ReportFilter,
  dayOf: (iso: string) => string,
  now: number = Date.now(),
  receipts: ReadonlyMap<string, Receipt> = new Map(),
): Report {
  const rows = new Map<string, RowBuilder>();
  const rowFor = (key: string) => {
    let row = rows.get(key);
    if (!row) {
      row = new RowBuilder(key);
      rows.set(key, row);
    }
    return row;
  };
  const inRange = (day: string) =>
    (filter.since === undefined || day >= filter.since) &&
    (filter.until === undefined || day <= filter.until);
  const kept = (log: LogReport) =>
    (filter.project === undefined || log.project === filter.project) &&
    (filter.agent === undefined || log.agent === filter.agent);
  // The blocks view: each slot's block (its start) is its row's key; a compaction counts in the block it falls in.
  const blocked =
    view === 'blocks' ? reportBlocks(logs.filter(kept), (slot) => inRange(dayOf(slot.time)), now) : undefined;
  for (const log of logs) {
    if (!kept(log)) continue;
    const main = mainModel(log.slots);
    const fixedKey =
      view === 'session'
        ? sessionKey(log)
        : view === 'project'
          ? log.project
          : view === 'model'
            ? main
            : undefined;
    let firstDay: string | undefined;
    let firstBlock: string | undefined;
    for (const slot of log.slots) {
      const day = dayOf(slot.time);
      if (!inRange(day)) continue;
      firstDay ??= day;
      const key =
        view === 'daily'
          ? day
          : view === 'model'
            ? slot.model
            : view === 'blocks'
              ? (blocked?.keyOf.get(slot) as string)
              : (fixedKey as string);
      firstBlock ??= key;
      rowFor(key).add(slot, day, log);
    }
    if (firstDay === undefined) continue;
    for (const compaction of log.compactions) {
      const day = dayOf(compaction.time);
      if (!inRange(day)) continue;
      const key =
        view === 'daily'
          ? day
          : view === 'blocks'
            ? blockAt(blocked?.blocks ?? [], compaction.time)
            : (fixedKey as string);
      if (key === undefined) continue;
      const row = rowFor(key);
      if (compaction.kind === 'manual') row.manualCompactions++;
      else row.autoCompactions++;
    }
    const first = rowFor(
      view === 'daily' ? firstDay : view === 'blocks' ? (firstBlock as string) : (fixedKey as string),
    );
    first.addWhatIf(log);
    first.addReceipt(receipts.get(log.session));
  }
  const sorted = [...rows.values()].sort((a, b) =>
    view === 'daily' || view === 'blocks'
      ? a.key.localeCompare(b.key)
      : b.costUsd - a.costUsd || a.key.localeCompare(b.key),
  );
  const total = new RowBuilder('total');
  for (const row of sorted) total.merge(row);
  return {
    view,
    rows: sorted.map((row) => row.row()),
    total: total.row(),
    ...(blocked ? { blocks: blocked.blocks } : {}),
  };
}
