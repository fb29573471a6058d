import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BarometerError } from '../errors/barometer-error.js';
import type { WhatIfReplayResult } from './what-if-replay.js';

/** One session of `barometer replay <files or directories…> --what-if`: its figures, or why it was left out. */
export interface WhatIfCorpusRow {
  file: string;
  /** The log's format (the agent), when it could be read. */
  agent: string | null;
  calls: number;
  realPromptTokens: number;
  policyPromptTokens: number;
  savedPercent: number;
  realCostUsd: number | null;
  policyCostUsd: number | null;
  costSavedPercent: number | null;
  realPeakPromptTokens: number | null;
  policyPeakPromptTokens: number | null;
  /** The lowest point the agent compacted at on its own (or its window): the policy's peak must stay below it. */
  compactionPoint: number | null;
  realCompactions: number;
  policyCompactions: number;
  rereads: number;
  archiveVerified: boolean;
  /** The calibration's mean error per call, in percent. */
  calibrationErrorPercent: number;
  /** Why the session has no figures (a log without messages, an unknown model); null when it has. */
  skipped: string | null;
}

/** The sessions with figures, summed: the corpus's savings. */
export interface WhatIfCorpusAggregate {
  sessions: number;
  skipped: number;
  calls: number;
  realPromptTokens: number;
  policyPromptTokens: number;
  savedPercent: number;
  /** Over the sessions whose both costs are known. */
  realCostUsd: number;
  policyCostUsd: number;
  costSavedPercent: number | null;
  /** The largest rise of a session's cost under the policy, in percent (≤ 0: none costs more). */
  worstCostChangePercent: number | null;
  /** Sessions whose what-if peak reached the agent's compaction point. */
  aboveCompactionPoint: number;
  rereads: number;
  /** Every archive of every session read back identical to its log. */
  archiveVerified: boolean;
}

const percent = (saved: number, of: number) => (of > 0 ? Math.round((saved / of) * 1000) / 10 : 0);

/** A session's row from its what-if replay. */
export function whatIfCorpusRow(file: string, result: WhatIfReplayResult): WhatIfCorpusRow {
  const { whatIf } = result;
  return {
    file,
    agent: result.format,
    calls: result.summary.calls,
    realPromptTokens: whatIf.real.promptTokens,
    policyPromptTokens: whatIf.policy.promptTokens,
    savedPercent: whatIf.savedPercent,
    realCostUsd: whatIf.real.costUsd,
    policyCostUsd: whatIf.policy.costUsd,
    costSavedPercent: whatIf.costSavedPercent,
    realPeakPromptTokens: whatIf.real.peakPromptTokens,
    policyPeakPromptTokens: whatIf.policy.peakPromptTokens,
    compactionPoint: whatIf.compactionPoint,
    realCompactions: whatIf.real.compactions,
    policyCompactions: whatIf.policy.compactions,
    rereads: whatIf.policy.rereads,
    archiveVerified: whatIf.archiveVerified,
    calibrationErrorPercent: Math.round(whatIf.calibration.meanAbsErrorPercent * 100) / 100,
    skipped: null,
  };
}

/** The row of a session the what-if could not replay, with the reason (a barometer error's message). */
export function skippedCorpusRow(file: string, error: unknown): WhatIfCorpusRow {
  if (!(error instanceof BarometerError)) throw error;
  return {
    file,
    agent: null,
    calls: 0,
    realPromptTokens: 0,
    policyPromptTokens: 0,
    savedPercent: 0,
    realCostUsd: null,
    policyCostUsd: null,
    costSavedPercent: null,
    realPeakPromptTokens: null,
    policyPeakPromptTokens: null,
    compactionPoint: null,
    realCompactions: 0,
    policyCompactions: 0,
    rereads: 0,
    archiveVerified: false,
    calibrationErrorPercent: 0,
    skipped: error.message,
  };
}

/** The sessions with figures, summed (skipped ones counted apart). */
export function aggregateWhatIfRows(rows: readonly WhatIfCorpusRow[]): WhatIfCorpusAggregate {
  const kept = rows.filter((row) => row.skipped === null);
  const priced = kept.filter((row) => row.realCostUsd !== null && row.policyCostUsd !== null);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const realPromptTokens = sum(kept.map((row) => row.realPromptTokens));
  const policyPromptTokens = sum(kept.map((row) => row.policyPromptTokens));
  const realCostUsd = sum(priced.map((row) => row.realCostUsd!));
  const policyCostUsd = sum(priced.map((row) => row.policyCostUsd!));
  const changes = priced
    .filter((row) => row.realCostUsd! > 0)
    .map((row) => ((row.policyCostUsd! - row.realCostUsd!) / row.realCostUsd!) * 100);
  return {
    sessions: kept.length,
    skipped: rows.length - kept.length,
    calls: sum(kept.map((row) => row.calls)),
    realPromptTokens,
    policyPromptTokens,
    savedPercent: percent(realPromptTokens - policyPromptTokens, realPromptTokens),
    realCostUsd,
    policyCostUsd,
    costSavedPercent: priced.length > 0 ? percent(realCostUsd - policyCostUsd, realCostUsd) : null,
    worstCostChangePercent: changes.length > 0 ? Math.round(Math.max(...changes) * 10) / 10 : null,
    aboveCompactionPoint: kept.filter(
      (row) =>
        row.compactionPoint !== null &&
        row.policyPeakPromptTokens !== null &&
        row.policyPeakPromptTokens > row.compactionPoint,
    ).length,
    rereads: sum(kept.map((row) => row.rereads)),
    archiveVerified: kept.every((row) => row.archiveVerified),
  };
}

/** Folders that hold a session's sub-agents (their own sessions, read with their parent), not sessions of their own. */
const SUBAGENT_FOLDERS = new Set(['subagents']);

/**
 * The session logs among the paths: a file as given, a directory's `.jsonl` and `.json` files at any depth (sorted;
 * `subagents/` folders left to their parent session).
 */
export async function sessionLogFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    const entries = await readdir(directory, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!SUBAGENT_FOLDERS.has(entry.name)) await walk(path);
      } else if (entry.isFile() && /\.jsonl?$/.test(entry.name)) files.push(path);
    }
  };
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) await walk(path);
    else files.push(path);
  }
  return files;
}
