import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = `${ROOT}dist/cli/main.js`;
const INPUT = readFileSync(new URL('../examples/statusline-input.json', import.meta.url));
/** The same input without `context_window`: the statusline reads the 3 MB recorded transcript's tail instead. */
const TRANSCRIPT_INPUT = Buffer.from(
  JSON.stringify({
    ...JSON.parse(INPUT.toString('utf8')),
    context_window: undefined,
    transcript_path: `${ROOT}test/fixtures/traces/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl`,
  }),
);

export interface StatuslineFigures {
  runs: number;
  baselineMedianMs: number;
  statuslineMedianMs: number;
  transcriptMedianMs: number;
  baselineMinMs: number;
  statuslineMinMs: number;
  output: string;
}

function timed(args: string[], input?: Buffer): { ms: number; stdout: string } {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    ...(input ? { input } : {}),
    env: { ...process.env, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, stdout: result.stdout };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/**
 * Wall time of `barometer statusline` (the built CLI, a new process each time, as Claude Code runs it) against a
 * bare `node -e 0`, alternating so that both see the same machine load; medians of `runs` each. A third series
 * reads the usage from the transcript's tail (a Claude Code version that sends no `context_window`).
 */
export function benchStatusline(runs = 21): StatuslineFigures {
  if (!existsSync(CLI)) throw new Error('run npm run build first: dist/cli/main.js is missing');
  const baseline: number[] = [];
  const statusline: number[] = [];
  const transcript: number[] = [];
  let output = '';
  // One warm-up of each fills the file system cache.
  timed(['-e', '0']);
  timed([CLI, 'statusline'], INPUT);
  for (let run = 0; run < runs; run++) {
    baseline.push(timed(['-e', '0']).ms);
    const measured = timed([CLI, 'statusline'], INPUT);
    statusline.push(measured.ms);
    output = measured.stdout.trim();
    transcript.push(timed([CLI, 'statusline'], TRANSCRIPT_INPUT).ms);
  }
  return {
    runs,
    baselineMedianMs: median(baseline),
    statuslineMedianMs: median(statusline),
    transcriptMedianMs: median(transcript),
    baselineMinMs: Math.min(...baseline),
    statuslineMinMs: Math.min(...statusline),
    output,
  };
}
