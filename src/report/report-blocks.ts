import { forecastWindow } from '../quota/windows/window-forecast.js';
import { trackWindows, type WindowTrack } from '../quota/windows/window-track.js';
import type { WindowForecastView } from '../session/session-schemas.js';
import { windowView } from '../session/session-windows.js';
import type { LogReport, ReportSlot } from './log-report.js';

/** A block's length, as ccusage's `DEFAULT_SESSION_DURATION_HOURS`: the 5 hours of Claude's usage window. */
export const BLOCK_MS = 5 * 60 * 60 * 1000;

/** One 5-hour block of `barometer report --view blocks`, as ccusage's `blocks` command counts them. */
export interface ReportBlock {
  /** The block's start (ISO 8601): its first call's time floored to the UTC hour; a gap's: last call + 5 hours. */
  start: string;
  /** start + 5 hours; a gap's: the next call's time. */
  end: string;
  /** The block's last call; null for a gap. */
  actualEnd: string | null;
  /** A stretch of more than 5 hours without calls. */
  gap: boolean;
  /** The last call is less than 5 hours old and the block has not ended. */
  active: boolean;
  models: string[];
  /**
   * ccusage's burn rate: input + output tokens (cache tokens aside) per minute and cost per hour, from the block's
   * first to its last call; null for a gap or a block whose calls share one time.
   */
  burn: { tokensPerMinute: number; costPerHour: number } | null;
  /** An active block's totals at its burn rate until its end; null otherwise. */
  projection: { totalTokens: number; totalCostUsd: number; remainingMinutes: number } | null;
  /**
   * The subscription windows the logs record in the block (Codex's `rate_limits`), each at the block's last figure
   * with its burn and forecast over the block's figures; empty when the logs record none.
   */
  windows: WindowForecastView[];
}

export interface Entry {
  slot: ReportSlot;
  log: LogReport;
  first: number;
  last: number;
}

function floorToHour(ms: number): number {
  return ms - (((ms % 3_600_000) + 3_600_000) % 3_600_000);
}

/**
 * Groups slots into 5-hour blocks as ccusage's `identifySessionBlocks` groups calls (ryoppippi/ccusage,
 * `src/_session-blocks.ts`): sorted by time, a block starts at its first call floored to the UTC hour, and a call
 * more than 5 hours after the block's start, or more than 5 hours after the call before, starts the next one; a
 * silence of more than 5 hours between calls is a gap block of its own. Calls come as quarter-hour slots with their
 * first and last times, so the gaps are measured between real calls.
 */
export function groupBlocks(
  entries: ReadonlyArray<{ slot: ReportSlot; log: LogReport }>,
): Array<{ start: number; entries: Entry[] } | { gapFrom: number; gapTo: number }> {
  const sorted: Entry[] = entries
    .map((entry) => ({
      ...entry,
      first: Date.parse(entry.slot.firstAt),
      last: Date.parse(entry.slot.lastAt),
    }))
    .filter((entry) => Number.isFinite(entry.first) && Number.isFinite(entry.last))
    .sort((a, b) => a.first - b.first);
  const groups: Array<{ start: number; entries: Entry[] } | { gapFrom: number; gapTo: number }> = [];
  let current: { start: number; entries: Entry[]; last: number } | undefined;
  for (const entry of sorted) {
    if (current !== undefined) {
      const sinceStart = entry.first - current.start;
      const sinceLast = entry.first - current.last;
      if (sinceStart <= BLOCK_MS && sinceLast <= BLOCK_MS) {
        current.entries.push(entry);
        current.last = Math.max(current.last, entry.last);
        continue;
      }
      groups.push({ start: current.start, entries: current.entries });
      if (sinceLast > BLOCK_MS) groups.push({ gapFrom: current.last + BLOCK_MS, gapTo: entry.first });
    }
    current = { start: floorToHour(entry.first), entries: [entry], last: entry.last };
  }
  if (current !== undefined) groups.push({ start: current.start, entries: current.entries });
  return groups;
}

/** The windows of the logs within [from, to): tracked over their figures, each forecast at its last. */
function blockWindows(logs: readonly LogReport[], from: number, to: number): WindowForecastView[] {
  const figures = logs
    .flatMap((log) => log.windows ?? [])
    .filter((window) => window.at >= from && window.at < to)
    .sort((a, b) => a.at - b.at);
  let tracks: WindowTrack[] = [];
  for (const figure of figures) tracks = trackWindows(tracks, [figure]);
  return tracks.map((track) => windowView(forecastWindow(track)));
}

/**
 * The block of a group of slots: its times, burn, projection at `now` (epoch ms), and the windows every log records
 * within it (`logs`: the account's logs, not only those with calls in the block).
 */
export function blockOf(
  start: number,
  entries: readonly Entry[],
  now: number,
  logs: readonly LogReport[],
): ReportBlock {
  const end = start + BLOCK_MS;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let tokens = 0;
  let costUsd = 0;
  const models = new Set<string>();
  for (const entry of entries) {
    first = Math.min(first, entry.first);
    last = Math.max(last, entry.last);
    tokens += entry.slot.inputTokens + entry.slot.outputTokens;
    costUsd += entry.slot.costUsd;
    models.add(entry.slot.model);
  }
  const active = now - last < BLOCK_MS && now < end;
  const minutes = (last - first) / 60_000;
  const burn =
    minutes > 0 ? { tokensPerMinute: tokens / minutes, costPerHour: (costUsd / minutes) * 60 } : null;
  const remainingMinutes = Math.max(0, (end - now) / 60_000);
  return {
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    actualEnd: new Date(last).toISOString(),
    gap: false,
    active,
    models: [...models].sort(),
    burn,
    projection:
      active && burn !== null
        ? {
            totalTokens: Math.round(tokens + burn.tokensPerMinute * remainingMinutes),
            totalCostUsd: Math.round((costUsd + (burn.costPerHour / 60) * remainingMinutes) * 100) / 100,
            remainingMinutes: Math.round(remainingMinutes),
          }
        : null,
    windows: blockWindows(logs, start, end),
  };
}

/** A gap block: no calls from `from` (the last call + 5 hours) to `to` (the next call). */
export function gapBlock(from: number, to: number): ReportBlock {
  return {
    start: new Date(from).toISOString(),
    end: new Date(to).toISOString(),
    actualEnd: null,
    gap: true,
    active: false,
    models: [],
    burn: null,
    projection: null,
    windows: [],
  };
}

/**
 * The blocks of a report's logs (only the slots `inRange` keeps), in time order with their gaps, and the block key
 * (its start) of every slot, compaction and log (the log's first block) for the rows.
 */
export function reportBlocks(
  logs: readonly LogReport[],
  keep: (slot: ReportSlot, log: LogReport) => boolean,
  now: number,
): { blocks: ReportBlock[]; keyOf: Map<ReportSlot, string> } {
  const entries: Array<{ slot: ReportSlot; log: LogReport }> = [];
  for (const log of logs) for (const slot of log.slots) if (keep(slot, log)) entries.push({ slot, log });
  const blocks: ReportBlock[] = [];
  const keyOf = new Map<ReportSlot, string>();
  for (const group of groupBlocks(entries)) {
    if ('gapFrom' in group) {
      blocks.push(gapBlock(group.gapFrom, group.gapTo));
      continue;
    }
    const block = blockOf(group.start, group.entries, now, logs);
    blocks.push(block);
    for (const entry of group.entries) keyOf.set(entry.slot, block.start);
  }
  return { blocks, keyOf };
}

/** The block (its start) whose 5 hours hold `iso`, among the blocks with calls; undefined when none does. */
export function blockAt(blocks: readonly ReportBlock[], iso: string): string | undefined {
  const at = Date.parse(iso);
  return blocks.find((block) => !block.gap && Date.parse(block.start) <= at && at < Date.parse(block.end))
    ?.start;
}
