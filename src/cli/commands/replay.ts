import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../models/load-config.js';
import { type ReplayResult, replayLogText } from '../../session/replay.js';
import { LOG_FORMATS } from '../../usage/session-log.js';
import { type Color, type Paint, painter } from '../colors.js';
import { type CliIo, UsageError } from '../io.js';

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

function formatTimeline(result: ReplayResult, paint: Paint): string {
  const window = result.contextWindow;
  const lines = [
    `${result.format} session, model ${result.model}, window ${window ?? 'unknown'} tokens`,
    '',
    `${'#'.padStart(4)}  ${'time (UTC)'.padEnd(19)}  ${'prompt'.padStart(8)}  ${'window'.padStart(6)}  ${'health'.padEnd(8)}  ${'regulator'.padEnd(9)}  verdict`,
  ];
  let compaction = 0;
  for (const call of result.calls) {
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
    lines.push(
      `${String(call.index).padStart(4)}  ${call.timestamp.slice(0, 19).replace('T', ' ')}  ${String(call.promptTokens ?? '—').padStart(8)}  ` +
        `${percent.padStart(6)}  ${paint(HEALTH_COLORS[call.health] ?? 'gray', call.health.padEnd(8))}  ${call.regulatorLevel.padEnd(9)}  ` +
        paint(ACTION_COLORS[call.action] ?? 'gray', call.action),
    );
  }
  const summary = result.summary;
  lines.push(
    '',
    `Summary: ${summary.calls} calls, ${summary.compactions} recorded compaction${summary.compactions === 1 ? '' : 's'}, ` +
      `peak ${summary.peakPromptTokens ?? '—'} prompt tokens, first compress verdict at call ${summary.firstCompressCallIndex ?? '—'}`,
    `Cost: ${
      summary.costUsd === null
        ? `unknown (no price for ${result.model}: set one in headroom.config.json)`
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
  return `${lines.join('\n')}\n`;
}

/** `headroom replay <file>`: a recorded session through a Session, in recorded time. */
export function registerReplayCommand(program: Command, io: CliIo): void {
  program
    .command('replay')
    .description('Replay a recorded agent session log: a timeline of health, regulator level and verdicts')
    .argument('<file>', 'a Claude Code JSONL, Codex rollout, Gemini CLI log or OpenHands trajectory')
    .option('--format <format>', `auto|${LOG_FORMATS.join('|')}`, 'auto')
    .option('--model <id>', "override the log's model (looked up in the registry)")
    .option(
      '--context-window <tokens>',
      "override the window (default: the log's own, or the agent's effective window)",
    )
    .option(
      '--config <path>',
      'headroom.config.json/.yaml overriding model limits (default: the one in the working directory, if any)',
    )
    .option('--json', 'print the replay as JSON (as POST /api/v1/replay answers)')
    .addHelpText(
      'after',
      `
Example:
  headroom replay ~/.claude/projects/my-project/4d5611e5.jsonl
  headroom replay rollout.jsonl --format codex --json | jq .summary`,
    )
    .action(
      async (
        file: string,
        flags: { format: string; model?: string; contextWindow?: string; config?: string; json?: boolean },
      ) => {
        if (flags.format !== 'auto' && !(LOG_FORMATS as readonly string[]).includes(flags.format)) {
          throw new UsageError(
            `--format must be one of auto, ${LOG_FORMATS.join(', ')}; got ${JSON.stringify(flags.format)}`,
          );
        }
        let contextWindow: number | undefined;
        if (flags.contextWindow !== undefined) {
          if (!/^\d+$/.test(flags.contextWindow) || Number(flags.contextWindow) < 1) {
            throw new UsageError(
              `--context-window must be a whole number of tokens ≥ 1; got ${JSON.stringify(flags.contextWindow)}`,
            );
          }
          contextWindow = Number(flags.contextWindow);
        }
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
        const text = await readFile(resolve(io.cwd, file), 'utf8');
        const progress =
          size >= PROGRESS_BYTES
            ? (phase: 'read' | 'replay', done: number, total: number) => {
                if (done === total || phase === 'replay') {
                  io.stderr.write(
                    `replay: ${phase === 'read' ? 'parsed' : 'replayed'} ${done}/${total}${phase === 'read' ? ' lines' : ' calls'}\n`,
                  );
                }
              }
            : undefined;
        const config = await loadConfig(flags.config === undefined ? io.cwd : resolve(io.cwd, flags.config));
        const result = replayLogText(text, {
          config,
          format: flags.format as 'auto',
          ...(flags.model ? { model: flags.model } : {}),
          ...(contextWindow === undefined ? {} : { contextWindow }),
          ...(progress ? { onProgress: progress } : {}),
        });
        io.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatTimeline(result, painter(io)),
        );
      },
    );
}
