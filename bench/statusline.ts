import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  /** `ccusage statusline` on the same input, when `npx ccusage@18` is available offline; else why not. */
  ccusage: { medianMs: number; p90Ms: number; minMs: number; output: string } | { missing: string };
  baselineMedianMs: number;
  statuslineMedianMs: number;
  statuslineP90Ms: number;
  transcriptMedianMs: number;
  baselineMinMs: number;
  statuslineMinMs: number;
  output: string;
}

function timed(
  args: string[],
  input?: Buffer,
  env: Record<string, string> = {},
): { ms: number; stdout: string } {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    ...(input ? { input } : {}),
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, stdout: result.stdout };
}

/**
 * The script of `ccusage` (the peer status line) from npx's cache, found without the network; npx itself is not
 * timed (it costs more than either status line), only `node <ccusage> statusline --offline`, as a user would set it.
 */
function ccusageScript(): string | { missing: string } {
  const found = spawnSync('npx', ['--offline', '-y', '-p', 'ccusage@18', '-c', 'command -v ccusage'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  const path = found.stdout?.trim();
  if (found.status !== 0 || !path) return { missing: 'npx ccusage@18 is not available offline' };
  return realpathSync(path);
}

/** The value below which `share` of the runs fall (nearest rank). */
const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
};
const median = (values: number[]) => percentile(values, 0.5);

/**
 * Wall time of `barometer statusline` (the built CLI, a new process each time, as Claude Code runs it) against a
 * bare `node -e 0`, alternating so that both see the same machine load; medians of `runs` each. A third series
 * reads the usage from the transcript's tail (a Claude Code version that sends no `context_window`). A fourth
 * times `ccusage statusline --offline` on the same input (when npx has it), with an empty Claude config folder so
 * that it reads no local history either.
 */
export function benchStatusline(runs = 21): StatuslineFigures {
  if (!existsSync(CLI)) throw new Error('run npm run build first: dist/cli/main.js is missing');
  const baseline: number[] = [];
  const statusline: number[] = [];
  const transcript: number[] = [];
  const peer: number[] = [];
  let output = '';
  let peerOutput = '';
  const ccusage = ccusageScript();
  const home = mkdtempSync(join(tmpdir(), 'barometer-bench-ccusage-'));
  // ccusage refuses a config folder without `projects`: an empty one, so that it reads no local history.
  mkdirSync(join(home, '.claude', 'projects'), { recursive: true });
  const peerEnv = { CLAUDE_CONFIG_DIR: join(home, '.claude'), HOME: home };
  // One warm-up of each fills the file system cache.
  timed(['-e', '0']);
  timed([CLI, 'statusline'], INPUT);
  if (typeof ccusage === 'string') timed([ccusage, 'statusline', '--offline'], INPUT, peerEnv);
  for (let run = 0; run < runs; run++) {
    baseline.push(timed(['-e', '0']).ms);
    const measured = timed([CLI, 'statusline'], INPUT);
    statusline.push(measured.ms);
    output = measured.stdout.trim();
    transcript.push(timed([CLI, 'statusline'], TRANSCRIPT_INPUT).ms);
    if (typeof ccusage === 'string') {
      const theirs = timed([ccusage, 'statusline', '--offline'], INPUT, peerEnv);
      peer.push(theirs.ms);
      peerOutput = theirs.stdout.trim();
    }
  }
  rmSync(home, { recursive: true, force: true });
  return {
    runs,
    ccusage:
      typeof ccusage === 'string'
        ? {
            medianMs: median(peer),
            p90Ms: percentile(peer, 0.9),
            minMs: Math.min(...peer),
            output: peerOutput,
          }
        : ccusage,
    baselineMedianMs: median(baseline),
    statuslineMedianMs: median(statusline),
    statuslineP90Ms: percentile(statusline, 0.9),
    transcriptMedianMs: median(transcript),
    baselineMinMs: Math.min(...baseline),
    statuslineMinMs: Math.min(...statusline),
    output,
  };
}
