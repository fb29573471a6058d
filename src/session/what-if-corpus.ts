import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { BarometerError } from '../errors/barometer-error.js';
import type { WhatIfReplayResult } from './what-if-replay.js';

/** One session of `barometer replay <files or directories…> --what-if`: its figures, or why it was left out. */
export interface WhatIfCorpusRow {
  /** The log; a sub-agent's: its transcript (`<session>/subagents/<name>.jsonl`), or `<log>#<n>` inside its parent's. */
  file: string;
  /** The session a sub-agent's row belongs to (its log); null for a session's own row. */
  parent: string | null;
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
  /** The largest rise of a session's or a sub-agent's cost under the policy, in percent (≤ 0: none costs more). */
  worstCostChangePercent: number | null;
  /** The row of that rise (its `file`). */
  worstFile: string | null;
  /** Sessions whose what-if peak reached the agent's compaction point. */
  aboveCompactionPoint: number;
  rereads: number;
  /** Every archive of every session read back identical to its log. */
  archiveVerified: boolean;
}

const percent = (saved: number, of: number) => (of > 0 ? Math.round((saved / of) * 1000) / 10 : 0);

/**
 * A session's rows from its what-if replay: its own, then one for each of its sub-agents (their own contexts, their
 * own what-ifs), so that the aggregate and the worst row count every conversation. A log that holds only its
 * children's calls (an evaluation output's trajectories, each a session run on its own) gives one row a trajectory,
 * `<log>#<n>`, and none of its own: a row of their sum would hide the worst of them and count none of their calls.
 */
export function whatIfCorpusRows(file: string, result: WhatIfReplayResult): WhatIfCorpusRow[] {
  const children = result.children ?? [];
  if (children.length === 0) return [whatIfCorpusRow(file, result, null)];
  const trajectories = result.summary.calls === 0;
  const rows = trajectories ? [] : [whatIfCorpusRow(file, result, null)];
  for (const [position, child] of children.entries()) {
    if (!child.whatIf) continue;
    const name =
      child.file !== undefined
        ? join(dirname(file), basename(file, '.jsonl'), 'subagents', child.file)
        : `${file}#${position + 1}`;
    rows.push(whatIfCorpusRow(name, child as WhatIfReplayResult, trajectories ? null : file));
  }
  return rows;
}

/** One row: a session's, or a sub-agent's (`parent`: its session's log). */
export function whatIfCorpusRow(
  file: string,
  result: Pick<WhatIfReplayResult, 'whatIf' | 'format' | 'summary'>,
  parent: string | null = null,
): WhatIfCorpusRow {
  const { whatIf } = result;
  return {
    file,
    parent,
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
    parent: null,
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
    .map((row) => ({
      file: row.file,
      change: ((row.policyCostUsd! - row.realCostUsd!) / row.realCostUsd!) * 100,
    }));
  const worst = changes.reduce<(typeof changes)[number] | undefined>(
    (most, next) => (most === undefined || next.change > most.change ? next : most),
    undefined,
  );
  return {
    // Sessions and sub-agents alike: each row is a conversation of its own.
    sessions: kept.length,
    skipped: rows.length - kept.length,
    calls: sum(kept.map((row) => row.calls)),
    realPromptTokens,
    policyPromptTokens,
    savedPercent: percent(realPromptTokens - policyPromptTokens, realPromptTokens),
    realCostUsd,
    policyCostUsd,
    costSavedPercent: priced.length > 0 ? percent(realCostUsd - policyCostUsd, realCostUsd) : null,
    worstCostChangePercent: worst ? Math.round(worst.change * 10) / 10 : null,
    worstFile: worst?.file ?? null,
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
