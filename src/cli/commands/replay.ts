import { access, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { EvictionPolicyOptions } from '../../compaction/eviction-policy.js';
import { ReplayQuerySchema } from '../../contract/replay.js';
import type { BarometerConfig } from '../../models/barometer-config.js';
import { loadConfig } from '../../models/load-config.js';
import { DEFAULT_PROXY_MAX_WAIT_SECONDS } from '../../proxy/proxy-options.js';
import type { WindowLever } from '../../quota/windows/window-lever-names.js';
import { type ReplayOptions, type ReplayResult, replayLogText } from '../../session/replay.js';
import {
  aggregateWhatIfRows,
  sessionLogFiles,
  skippedCorpusRow,
  type WhatIfCorpusAggregate,
  type WhatIfCorpusRow,
  whatIfCorpusRows,
} from '../../session/what-if-corpus.js';
import { replayWhatIf, type WhatIfReplayResult } from '../../session/what-if-replay.js';
import { type WindowPolicyWhatIf, windowPolicyWhatIf } from '../../session/window-policy-what-if.js';
import { ArchiveStore, readArchiveFile } from '../../store/archive.js';
import { createTokenCounter } from '../../tokens/create-token-counter.js';
import type { SubagentFile } from '../../usage/attach-subagent-logs.js';
import { attachSubagentLogs } from '../../usage/attach-subagent-logs.js';
import { readLogText, skippedLineNotes } from '../../usage/read-log-text.js';
import { readSessionLog } from '../../usage/read-session-log.js';
import { LOG_FORMATS } from '../../usage/session-log.js';
import { type Color, type Paint, painter } from '../colors.js';
import { archiveDirFor } from '../data-folder-for.js';
import { parseFlags } from '../flag-schema.js';
import { type CliIo, UsageError } from '../io.js';
import { readPolicyFile } from '../policy-file.js';
import { windowPolicyFrom } from '../proxy-flags.js';

const HEALTH_COLORS: Readonly<Record<string, Color>> = {
  healthy: 'green',
  caution: 'yellow',
  critical: 'red',
  unknown: 'gray',
};
const ACTION_COLORS: Readonly<Record<string, Color>> = {
  continue: 'green',
  optimize: 'cyan',
  compress: 'yellow',
  terminate: 'red',
};
/** Files above this size get progress lines on stderr. */
const PROGRESS_BYTES = 1024 * 1024;

/** The windows the log records at a call: `  5h 25% · 7d 20%`, `runs out HH:MMZ` after a window that binds. */
function windowsText(call: ReplayResult['calls'][number]): string {
  if (!call.windows?.length) return '';
  const parts = call.windows.map(
    (window) =>
      `${window.label} ${Math.round(window.usedPercent)}%${window.bindsBeforeReset && window.runsOutAt ? ` runs out ${window.runsOutAt.slice(11, 16)}Z` : ''}`,
  );
  return `  ${parts.join(' · ')}`;
}

function formatTimeline(result: ReplayResult | WhatIfReplayResult, paint: Paint): string {
  const window = result.contextWindow;
  const whatIf = 'whatIf' in result ? result.whatIf : undefined;
  const extra = whatIf ? `  ${'what-if'.padStart(8)}  ${'drift'.padStart(5)}` : '';
  const lines = [
    `${result.format} session, model ${result.model}, window ${window === null ? 'unknown' : `${window} tokens`}`,
    '',
    `${'#'.padStart(4)}  ${'time (UTC)'.padEnd(19)}  ${'prompt'.padStart(8)}  ${'window'.padStart(6)}${extra}  ${'health'.padEnd(8)}  ${'regulator'.padEnd(9)}  verdict`,
  ];
  let compaction = 0;
  let eviction = 0;
  for (const call of result.calls) {
    while (
      whatIf &&
      eviction < whatIf.evictions.length &&
      whatIf.evictions[eviction]!.beforeCallIndex <= call.index
    ) {
      const batch = whatIf.evictions[eviction++]!;
      lines.push(
        paint(
          'cyan',
          `  ── barometer evicts ${batch.taskId}: ${batch.items} items, ${batch.tokensFreed} tokens (${batch.boundary}${batch.detail ? `: ${batch.detail.replace(/\s+/g, ' ').slice(0, 60)}` : ''}) ──`,
        ),
      );
    }
    while (
      compaction < result.compactions.length &&
      result.compactions[compaction]!.beforeCallIndex <= call.index
    ) {
      const recorded = result.compactions[compaction++]!;
      lines.push(
        paint(
          'bold',
          `  ── recorded compaction (${recorded.trigger}) at ${recorded.timestamp.slice(0, 19).replace('T', ' ')}` +
            `${recorded.preTokens === null ? '' : `, ${recorded.preTokens} tokens before`} ──`,
        ),
      );
    }
    const percent =
      call.promptTokens === null || window === null
        ? '—'
        : `${((call.promptTokens / window) * 100).toFixed(1)}%`;
    const columns = whatIf
      ? `  ${String(call.whatIfPromptTokens ?? '—').padStart(8)}  ${(call.driftPercent === null || call.driftPercent === undefined ? '—' : `${Math.round(call.driftPercent)}%`).padStart(5)}`
      : '';
    lines.push(
      `${String(call.index).padStart(4)}  ${call.timestamp.slice(0, 19).replace('T', ' ')}  ${String(call.promptTokens ?? '—').padStart(8)}  ` +
        `${percent.padStart(6)}${columns}  ${paint(HEALTH_COLORS[call.health] ?? 'gray', call.health.padEnd(8))}  ${call.regulatorLevel.padEnd(9)}  ` +
        paint(ACTION_COLORS[call.action] ?? 'gray', call.action) +
        windowsText(call),
    );
  }
  const summary = result.summary;
  lines.push(
    '',
    `Summary: ${summary.calls} calls, ${summary.compactions} recorded compaction${summary.compactions === 1 ? '' : 's'}, ` +
      `peak ${summary.peakPromptTokens ?? '—'} prompt tokens, first compress verdict at call ${summary.firstCompressCallIndex ?? '—'}`,
    `Cost: ${
      summary.calls === 0
        ? 'no calls of its own'
        : summary.costUsd === null
          ? `unknown (no price for ${result.model}: set one in barometer.config.json)`
          : `$${summary.costUsd.toFixed(2)}${summary.unpricedCalls > 0 ? ` (${summary.unpricedCalls} calls without a price not included)` : ''}`
    }, cache hits ${summary.cacheHitPercent === null ? '—' : `${summary.cacheHitPercent}%`} of prompt tokens` +
      (summary.tasksCompleted > 0 ? `, ${summary.tasksCompleted} tasks completed` : ''),
  );
  for (const recorded of result.compactions) {
    const before = result.calls.filter((call) => call.index < recorded.beforeCallIndex);
    const warned =
      before.length -
      before.findLastIndex((call) => call.action === 'continue' || call.action === 'optimize') -
      1;
    lines.push(
      `  compaction before call ${recorded.beforeCallIndex}: compress or stronger for the ${warned} calls before it`,
    );
  }
  if (whatIf) lines.push('', ...whatIfLines(whatIf, paint));
  if (result.children && result.children.length > 0) lines.push('', ...childLines(result, paint));
  return `${lines.join('\n')}\n`;
}

/** One row per sub-agent session (and per child of those), then the parent's total with them. */
function childLines(result: ReplayResult | WhatIfReplayResult, paint: Paint): string[] {
  const whatIf = 'whatIf' in result;
  const lines = [
    paint(
      'bold',
      `Child sessions of ${result.id ?? 'this log'}: sub-agents or trajectories, each its own context; their calls count in the total`,
    ),
    `  ${'session'.padEnd(40)}  ${'calls'.padStart(5)}  ${'prompt tokens'.padStart(13)}  ${'peak'.padStart(7)}  ${'cost'.padStart(8)}${whatIf ? `  ${'what-if cost'.padStart(12)}` : ''}`,
  ];
  const row = (child: NonNullable<ReplayResult['children']>[number], depth: number) => {
    const name = `${'  '.repeat(depth)}${child.id ?? '—'}${child.file ? ` (${child.file})` : ''}`;
    const policy = child.whatIf ? dollars(child.whatIf.policy.costUsd) : '—';
    lines.push(
      `  ${name.padEnd(40)}  ${String(child.summary.calls).padStart(5)}  ${String(child.summary.promptTokens).padStart(13)}  ` +
        `${String(child.summary.peakPromptTokens ?? '—').padStart(7)}  ${dollars(child.summary.costUsd).padStart(8)}${whatIf ? `  ${policy.padStart(12)}` : ''}`,
    );
    for (const grandchild of child.children ?? []) row(grandchild, depth + 1);
  };
  for (const child of result.children ?? []) row(child, 0);
  const total = result.summary.total;
  lines.push(
    paint(
      'bold',
      `Total with its child sessions: ${total.calls} calls, ${total.promptTokens} prompt tokens, ${dollars(total.costUsd)}` +
        `${total.unpricedCalls > 0 ? ` (${total.unpricedCalls} calls without a price not included)` : ''}` +
        ` (this session alone: ${result.summary.calls} calls, ${dollars(result.summary.costUsd)})`,
    ),
  );
  return lines;
}

/** Up to this many line numbers are named; the rest are counted. */
const NAMED_LINES = 20;

/** Every line of the log (and of its sub-agents' files) that was not parsed, by file and line number, on stderr. */
function unparsedLines(result: ReplayResult, file: string): string[] {
  const out: string[] = [];
  const visit = (session: ReplayResult, where: string) => {
    const named = (numbers: number[]) =>
      `${numbers.slice(0, NAMED_LINES).join(', ')}${numbers.length > NAMED_LINES ? ` and ${numbers.length - NAMED_LINES} more` : ''}`;
    if (session.skippedLines.length > 0)
      out.push(
        `replay: ${where}: ${session.skippedLines.length} line${session.skippedLines.length === 1 ? '' : 's'} not parsed, skipped: line ${named(session.skippedLines)}`,
      );
    if (session.recoveredLines.length > 0)
      out.push(
        `replay: ${where}: ${session.recoveredLines.length} line${session.recoveredLines.length === 1 ? '' : 's'} began with a broken fragment (dropped; the record after it was read): line ${named(session.recoveredLines)}`,
      );
    for (const child of session.children ?? [])
      if (child.file !== undefined)
        visit(child, join(dirname(where), basename(where, '.jsonl'), 'subagents', child.file));
  };
  visit(result, file);
  return out;
}

/** The sub-agents' transcripts newer Claude Code writes beside a session: `<session>/subagents/*.jsonl`. */
async function subagentFiles(path: string): Promise<SubagentFile[]> {
  if (!path.endsWith('.jsonl')) return [];
  const folder = join(dirname(path), basename(path, '.jsonl'), 'subagents');
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith('.jsonl')).sort();
  } catch {
    return [];
  }
  return Promise.all(
    names.map(async (name) => ({ name, text: (await readLogText(join(folder, name))).text })),
  );
}

const dollars = (value: number | null) => (value === null ? 'unknown' : `$${value.toFixed(2)}`);

/** The what-if's summary; its last line is the totals and the savings. */
function whatIfLines(whatIf: WhatIfReplayResult['whatIf'], paint: Paint): string[] {
  const { real, policy, calibration } = whatIf;
  const change = (from: number, to: number) =>
    from > 0 ? `${to <= from ? '−' : '+'}${Math.abs(((from - to) / from) * 100).toFixed(1)}%` : '—';
  const forced =
    policy.callsAboveCompactionPoint === 0
      ? 'no forced compaction'
      : `${policy.callsAboveCompactionPoint} calls above the agent's compaction point (${whatIf.compactionPoint})`;
  const lines = [
    `What-if: barometer's eviction policy on the same calls (prompts calibrated on the recorded usage: ${calibration.meanAbsErrorPercent.toFixed(1)}% mean error per call, ${calibration.maxAbsErrorPercent.toFixed(1)}% at worst)`,
    ...(calibration.segments.length > 1
      ? [
          `  calibrated by stretch: ${calibration.segments
            .map(
              (segment) =>
                `calls ${segment.fromCall}–${segment.toCall} (${segment.start}${segment.model ? `, ${segment.model}` : ''}) ${segment.meanAbsErrorPercent.toFixed(1)}% mean, ${segment.maxAbsErrorPercent.toFixed(1)}% at worst`,
            )
            .join('; ')}`,
        ]
      : []),
    `  prompt tokens  ${real.promptTokens} → ${policy.promptTokens} (${change(real.promptTokens, policy.promptTokens)})`,
    `  cost           ${dollars(real.costUsd)} → ${dollars(policy.costUsd)}${real.costUsd !== null && policy.costUsd !== null ? ` (${change(real.costUsd, policy.costUsd)})` : ''}, with prompt caching`,
    `  peak prompt    ${real.peakPromptTokens ?? '—'} → ${policy.peakPromptTokens ?? '—'} (the agent compacts at ${whatIf.compactionPoint ?? 'an unknown point'}); compactions ${real.compactions} → ${policy.compactions}`,
    `  evictions ${policy.evictions}, ${policy.archivedItems} items (${policy.archivedBytes} bytes) archived, ` +
      (whatIf.archiveVerified
        ? 'every one read back and identical to the log'
        : paint('red', `archive NOT verified: ${whatIf.archiveFailures[0] ?? 'a record is missing'}`)),
    `  re-reads of evicted files the log shows: ${policy.rereads}${policy.rereads > 0 ? ` (${policy.rereadTokens} tokens)` : ''}`,
  ];
  const saved = whatIf.savedPercent;
  lines.push(
    paint(
      'bold',
      `barometer would have sent ${Math.abs(saved)}% ${saved >= 0 ? 'fewer' : 'more'} prompt tokens (${dollars(real.costUsd)} → ${dollars(policy.costUsd)}), ${forced}`,
    ),
  );
  return lines;
}

/** What the window policy's levers would have done, as `replay --what-if --window-policy` prints it. */
function windowPolicyLines(measure: WindowPolicyWhatIf, paint: Paint): string[] {
  const levers = measure.levers.length === 0 ? 'no lever' : measure.levers.join(', ');
  const head = `Window policy (${levers}; thinking budget lowered to ${measure.loweredBudgetTokens} tokens, holds of at most ${measure.maxHoldSeconds} s) on the windows this log records`;
  if (measure.callsWithWindows === 0)
    return [
      paint('bold', head),
      '  this log records no subscription window (Codex rollouts carry them, as rate_limits): no lever would have acted',
    ];
  const tally = (t: WindowPolicyWhatIf['subAgents']) =>
    `thinking lowered on ${t.callsLowered} call${t.callsLowered === 1 ? '' : 's'} (${t.conversationsLowered} conversation${t.conversationsLowered === 1 ? '' : 's'} lowered from its first call), ` +
    `at most ${t.reasoningTokensSavedAtMost === null ? 'an unknown number of' : t.reasoningTokensSavedAtMost} reasoning tokens saved (those over ${measure.loweredBudgetTokens} a call); ` +
    `held ${t.callsHeld} call${t.callsHeld === 1 ? '' : 's'}, ${t.heldSeconds} s in all`;
  return [
    paint('bold', head),
    `  ${measure.callsWithWindows} of ${measure.calls} calls carry window figures; the 5-hour window bound when ${measure.callsWhileBinding} of the calls went` +
      `, whose reasoning over ${measure.loweredBudgetTokens} tokens a call adds up to ${measure.reasoningOverBudgetWhileBinding} (the most reasoning of any call: ${measure.maxReasoningTokens ?? 'not recorded'})`,
    measure.subAgentCalls === 0
      ? '  sub-agents: none. This log holds no sub-agent’s calls, so no call would have had its thinking budget lowered or been held (the main conversation is never acted on)'
      : `  sub-agents: ${measure.subAgentConversations} conversation${measure.subAgentConversations === 1 ? '' : 's'}, ${measure.subAgentCalls} calls: ${tally(measure.subAgents)}`,
    `  were every conversation here a sub-agent's: ${tally(measure.ifEveryConversationWereASubAgent)}`,
  ];
}

/**
 * A session folder for this replay's archive that no earlier replay used: `whatif`, then `whatif-2`, … A short
 * name, because every tombstone carries the archive's path, and the what-if prompts pay for its tokens.
 */
async function freshSessionId(root: string): Promise<string> {
  const base = 'whatif';
  for (let suffix = 1; ; suffix++) {
    const candidate = suffix === 1 ? base : `${base}-${suffix}`;
    try {
      await access(join(root, candidate));
    } catch {
      return candidate;
    }
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

const tokens = (value: number | null) =>
  value === null
    ? '—'
    : value >= 1_000_000
      ? `${(value / 1_000_000).toFixed(1)}M`
      : `${Math.round(value / 1000)}K`;
const signed = (saved: number | null) =>
  saved === null ? '—' : `${saved >= 0 ? '−' : '+'}${Math.abs(saved).toFixed(1)}%`;

/** The corpus table: one row a session, then the aggregate. */
function formatCorpus(
  rows: readonly WhatIfCorpusRow[],
  aggregate: WhatIfCorpusAggregate,
  paint: Paint,
): string {
  const header = `${'session'.padEnd(34)} ${'agent'.padEnd(11)} ${'calls'.padStart(5)} ${'tokens real → policy'.padStart(22)} ${'cost real → policy'.padStart(27)} ${'peak real → policy'.padStart(19)} ${'compactions'.padStart(11)} ${'re-reads'.padStart(8)}  archive`;
  const lines = [header];
  for (const row of rows) {
    // A sub-agent's row under its session's, indented.
    const name = `${row.parent === null ? '' : '  '}${basename(row.file)}`.slice(0, 34).padEnd(34);
    if (row.skipped !== null) {
      lines.push(paint('gray', `${name} skipped: ${row.skipped.replace(/\s+/g, ' ').slice(0, 120)}`));
      continue;
    }
    const above = row.compactionPoint !== null && (row.policyPeakPromptTokens ?? 0) > row.compactionPoint;
    lines.push(
      `${name} ${String(row.agent).padEnd(11)} ${String(row.calls).padStart(5)} ` +
        `${`${tokens(row.realPromptTokens)} → ${tokens(row.policyPromptTokens)} ${signed(row.savedPercent)}`.padStart(22)} ` +
        `${`${dollars(row.realCostUsd)} → ${dollars(row.policyCostUsd)} ${signed(row.costSavedPercent)}`.padStart(27)} ` +
        `${`${tokens(row.realPeakPromptTokens)} → ${tokens(row.policyPeakPromptTokens)}`.padStart(19)}${above ? paint('red', '!') : ' '}` +
        `${`${row.realCompactions} → ${row.policyCompactions}`.padStart(10)} ${String(row.rereads).padStart(8)}  ` +
        (row.archiveVerified ? 'verified' : paint('red', 'NOT verified')),
    );
  }
  const a = aggregate;
  const subAgents = rows.filter((row) => row.parent !== null && row.skipped === null).length;
  const conversations =
    subAgents > 0
      ? `sessions and sub-agents (${subAgents} sub-agent${subAgents === 1 ? '' : 's'})`
      : 'sessions';
  const counted = [
    subAgents > 0 ? `${subAgents} sub-agents` : '',
    a.skipped > 0 ? `${a.skipped} skipped` : '',
  ]
    .filter((part) => part !== '')
    .join(', ');
  const worstKind = rows.find((row) => row.file === a.worstFile)?.parent ? 'sub-agent' : 'session';
  lines.push(
    paint(
      'bold',
      `${`all ${a.sessions}${subAgents === 0 ? ' sessions' : ''}${counted === '' ? '' : ` (${counted})`}`.padEnd(34)} ${''.padEnd(11)} ${String(a.calls).padStart(5)} ` +
        `${`${tokens(a.realPromptTokens)} → ${tokens(a.policyPromptTokens)} ${signed(a.savedPercent)}`.padStart(22)} ` +
        `${`${dollars(a.realCostUsd)} → ${dollars(a.policyCostUsd)} ${signed(a.costSavedPercent)}`.padStart(27)} ` +
        `${''.padStart(19)} ${''.padStart(10)} ${String(a.rereads).padStart(8)}  ${a.archiveVerified ? 'verified' : 'NOT verified'}`,
    ),
    `barometer would have sent ${Math.abs(a.savedPercent)}% ${a.savedPercent >= 0 ? 'fewer' : 'more'} prompt tokens and cost ${a.costSavedPercent === null ? 'an unknown amount' : `${Math.abs(a.costSavedPercent)}% ${a.costSavedPercent >= 0 ? 'less' : 'more'}`} over ${a.sessions} ${conversations}; ` +
      `the worst ${worstKind}'s cost change: ${a.worstCostChangePercent === null ? '—' : `${signed(-a.worstCostChangePercent)} (${basename(a.worstFile ?? '')})`}; ` +
      `sessions whose what-if peak reached the agent's compaction point: ${a.aboveCompactionPoint}`,
  );
  return `${lines.join('\n')}\n`;
}

/** `barometer replay <files or directories…> --what-if`: every session's what-if, one row each, and the aggregate. */
async function replayCorpus(
  io: CliIo,
  paths: readonly string[],
  flags: {
    format: NonNullable<ReplayOptions['format']>;
    config?: string;
    json?: boolean;
    policyOptions?: EvictionPolicyOptions;
  },
): Promise<void> {
  let files: string[];
  try {
    files = await sessionLogFiles(paths.map((path) => resolve(io.cwd, path)));
  } catch (error) {
    throw new UsageError(
      `cannot read ${(error as NodeJS.ErrnoException).path ?? paths.join(', ')}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const config = await loadConfig(flags.config === undefined ? io.cwd : resolve(io.cwd, flags.config));
  const counter = createTokenCounter();
  const bar = io.stderr.isTTY === true;
  const rows: WhatIfCorpusRow[] = [];
  for (const [index, file] of files.entries()) {
    if (bar) {
      const done = Math.round((index / files.length) * 30);
      io.stderr.write(
        `\rreplay [${'#'.repeat(done)}${'.'.repeat(30 - done)}] ${index}/${files.length} ${basename(file).slice(0, 40).padEnd(40)}`,
      );
    }
    const root = await mkdtemp(join(tmpdir(), 'barometer-whatif-'));
    try {
      const log = await readLogText(file);
      for (const note of skippedLineNotes(file, log.skipped)) io.stderr.write(`\nreplay: ${note}\n`);
      const subagents = await subagentFiles(file);
      const result = await replayWhatIf(log.text, {
        config,
        ...(subagents.length > 0 ? { subagents } : {}),
        format: flags.format,
        archive: new ArchiveStore({ root, durable: false }),
        reader: { readFile: readArchiveFile },
        sessionId: 'whatif',
        counter,
        tombstoneArchiveDir: archiveDirFor(io),
        ...(flags.policyOptions ? { policy: flags.policyOptions } : {}),
      });
      rows.push(...whatIfCorpusRows(file, result));
    } catch (error) {
      rows.push(skippedCorpusRow(file, error));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  if (bar) io.stderr.write(`\rreplay [${'#'.repeat(30)}] ${files.length}/${files.length}${' '.repeat(41)}\n`);
  const aggregate = aggregateWhatIfRows(rows);
  io.stdout.write(
    flags.json
      ? `${JSON.stringify({ sessions: rows, aggregate }, null, 2)}\n`
      : formatCorpus(rows, aggregate, painter(io)),
  );
}

/** The window levers of `--window-policy`, which goes with `--what-if` as `--policy` and `--archive-dir` do. */
function whatIfLevers(flags: {
  whatIf?: boolean;
  policy?: string;
  archiveDir?: string;
  windowPolicy?: string;
}): WindowLever[] | undefined {
  if (
    !flags.whatIf &&
    (flags.policy !== undefined || flags.archiveDir !== undefined || flags.windowPolicy !== undefined)
  )
    throw new UsageError('--policy, --archive-dir and --window-policy go with --what-if');
  return flags.windowPolicy === undefined
    ? undefined
    : windowPolicyFrom(flags.windowPolicy, '--window-policy');
}

/** Progress lines on stderr for a large log; none for a small one. */
function progressOf(io: CliIo, size: number): ReplayOptions['onProgress'] | undefined {
  if (size < PROGRESS_BYTES) return undefined;
  return (phase, done, total) => {
    if (done === total || phase === 'replay') {
      // Progress only: which lines could not be parsed is said once the log is read.
      io.stderr.write(
        `replay: ${phase === 'read' ? 'read' : 'replayed'} ${done}/${total}${phase === 'read' ? ' lines' : ' calls'}\n`,
      );
    }
  };
}

/** The window policy's levers measured on the log (and its sub-agents' transcripts), with the proxy's longest hold. */
function measuredWindowPolicy(
  text: string,
  format: NonNullable<ReplayOptions['format']>,
  subagents: SubagentFile[],
  levers: WindowLever[],
  config: BarometerConfig,
): WindowPolicyWhatIf {
  const log = readSessionLog(text, { format });
  return windowPolicyWhatIf(subagents.length > 0 ? attachSubagentLogs(log, subagents) : log, {
    levers,
    maxHoldSeconds: DEFAULT_PROXY_MAX_WAIT_SECONDS,
    config,
  });
}

/** The replay on stdout: JSON (with `windowPolicy` when measured), or the timeline and the window policy's lines. */
function writeReplay(
  io: CliIo,
  result: ReplayResult | WhatIfReplayResult,
  output: { json: boolean; windowPolicy?: WindowPolicyWhatIf },
): void {
  const { windowPolicy } = output;
  if (output.json) {
    io.stdout.write(`${JSON.stringify(windowPolicy ? { ...result, windowPolicy } : result, null, 2)}\n`);
    return;
  }
  const paint = painter(io);
  const policy = windowPolicy ? `\n${windowPolicyLines(windowPolicy, paint).join('\n')}\n` : '';
  io.stdout.write(`${formatTimeline(result, paint)}${policy}`);
}

/** `barometer replay <file>`: a recorded session through a Session, in recorded time. */
export function registerReplayCommand(program: Command, io: CliIo): void {
  program
    .command('replay')
    .description(
      "Replay a recorded agent session log: a timeline of health, regulator level and verdicts; --what-if replays barometer's eviction policy on it",
    )
    .argument(
      '<files...>',
      'a Claude Code JSONL, Codex rollout, Gemini CLI log or OpenHands trajectory; with --what-if, several logs or directories of them (one row a session)',
    )
    .option('--format <format>', `auto|${LOG_FORMATS.join('|')}`, 'auto')
    .option('--model <id>', "override the log's model (looked up in the registry)")
    .option(
      '--context-window <tokens>',
      "override the window (default: the log's own, or the agent's effective window)",
    )
    .option(
      '--config <path>',
      'barometer.config.json/.yaml overriding model limits (default: the one in the working directory, if any)',
    )
    .option('--json', 'print the replay as JSON (as POST /api/v1/replay answers)')
    .option(
      '--what-if',
      "replay barometer's eviction policy on the same calls: prompt tokens and cost saved, evictions, the archive checked against the log (Claude Code and Codex logs)",
    )
    .option('--policy <file>', 'the eviction policy options (JSON, or YAML for .yaml/.yml) for --what-if')
    .option(
      '--window-policy <levers>',
      "with --what-if: measure the proxy's window policy on the windows the log records (thinking, hold, or thinking,hold): the calls whose thinking budget it would have lowered, those it would have held and for how long",
    )
    .option(
      '--archive-dir <dir>',
      'keep what --what-if evicts under DIR/<log name>/ (default: a temporary directory, removed after the check)',
    )
    .addHelpText(
      'after',
      `
Example:
  barometer replay ~/.claude/projects/my-project/4d5611e5.jsonl
  barometer replay rollout.jsonl --format codex --json | jq .summary
  barometer replay 4d5611e5.jsonl --what-if
  barometer replay ~/.claude/projects ~/.codex/sessions --what-if
  barometer replay rollout.jsonl --what-if --policy policy.json --json | jq .whatIf`,
    )
    .action(
      async (
        files: string[],
        flags: {
          format: string;
          model?: string;
          contextWindow?: string;
          config?: string;
          json?: boolean;
          whatIf?: boolean;
          policy?: string;
          archiveDir?: string;
          windowPolicy?: string;
        },
      ) => {
        const levers = whatIfLevers(flags);
        const policy: EvictionPolicyOptions | undefined =
          flags.policy === undefined ? undefined : await readPolicyFile(io.cwd, flags.policy);
        // The flags of POST /api/v1/replay's query, checked by its schema.
        const { format, model, contextWindow } = parseFlags(
          ReplayQuerySchema.pick({ format: true, model: true, contextWindow: true }),
          { format: flags.format, model: flags.model, contextWindow: flags.contextWindow },
        );
        const corpus = files.length > 1 || (await isDirectory(resolve(io.cwd, files[0] ?? '')));
        if (corpus) {
          if (!flags.whatIf)
            throw new UsageError(
              'several logs, or a directory of them, go with --what-if (one row a session)',
            );
          if (flags.archiveDir !== undefined || levers !== undefined)
            throw new UsageError(
              `${flags.archiveDir !== undefined ? '--archive-dir' : '--window-policy'} takes one log: give one file, or leave it out`,
            );
          await replayCorpus(io, files, {
            ...flags,
            format: format ?? 'auto',
            ...(policy ? { policyOptions: policy } : {}),
          });
          return;
        }
        const file = files[0] as string;
        let size: number;
        try {
          const info = await stat(resolve(io.cwd, file));
          if (!info.isFile()) throw new UsageError(`${file} is not a file: give the path of a session log`);
          size = info.size;
        } catch (error) {
          if (error instanceof UsageError) throw error;
          throw new UsageError(
            `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          );
        }
        const { text, skipped } = await readLogText(resolve(io.cwd, file));
        for (const note of skippedLineNotes(file, skipped)) io.stderr.write(`replay: ${note}\n`);
        const progress = progressOf(io, size);
        const config = await loadConfig(flags.config === undefined ? io.cwd : resolve(io.cwd, flags.config));
        const subagents = await subagentFiles(resolve(io.cwd, file));
        const options = {
          config,
          ...(subagents.length > 0 ? { subagents } : {}),
          format: format ?? 'auto',
          ...(model ? { model } : {}),
          ...(contextWindow === undefined ? {} : { contextWindow }),
          ...(progress ? { onProgress: progress } : {}),
        };
        let result: ReplayResult | WhatIfReplayResult;
        if (flags.whatIf) {
          const root =
            flags.archiveDir === undefined
              ? await mkdtemp(join(tmpdir(), 'barometer-whatif-'))
              : resolve(io.cwd, flags.archiveDir);
          try {
            const archive = new ArchiveStore({ root, durable: flags.archiveDir !== undefined });
            result = await replayWhatIf(text, {
              ...options,
              archive,
              reader: { readFile: readArchiveFile },
              sessionId: await freshSessionId(root),
              // A temporary directory's random name must not change the figures: tombstones are sized as the
              // data folder's archives would write them.
              ...(flags.archiveDir === undefined ? { tombstoneArchiveDir: archiveDirFor(io) } : {}),
              ...(policy ? { policy } : {}),
            });
          } finally {
            if (flags.archiveDir === undefined) await rm(root, { recursive: true, force: true });
          }
        } else result = replayLogText(text, options);
        for (const line of unparsedLines(result, file)) io.stderr.write(`${line}\n`);
        writeReplay(io, result, {
          json: flags.json === true,
          ...(levers === undefined
            ? {}
            : { windowPolicy: measuredWindowPolicy(text, format ?? 'auto', subagents, levers, config) }),
        });
      },
    );
}
