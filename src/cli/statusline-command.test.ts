import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { replayLogText } from '../session/replay.js';
import { exitOf, spawnCli } from '../test-helpers/spawn-cli.js';

const EXAMPLE = readFileSync(new URL('../../examples/statusline-input.json', import.meta.url), 'utf8');

// The status line keeps each transcript's cost so far in the user's cache folder: here, a folder of the test's own.
// The data folder's statusline/ keeps each transcript's checkpoint: the state folder under this XDG_STATE_HOME.
const STATE = mkdtempSync(join(tmpdir(), 'barometer-statusline-state-'));
afterAll(() => rmSync(STATE, { recursive: true, force: true }));

async function statusline(input: string, env: Record<string, string> = {}, args: string[] = []) {
  const child = spawnCli(['statusline', ...args], { XDG_STATE_HOME: STATE, ...env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return { code: await exitOf(child), stdout, stderr };
}

describe('barometer statusline', () => {
  it('prints one line for the documented sample input, coloured through a pipe unless NO_COLOR is set', async () => {
    const plain = await statusline(EXAMPLE);
    expect(plain).toEqual({
      code: 0,
      stdout: '● 73% of 167k · 121,615 tokens · compress\n',
      stderr: '',
    });
    const coloured = await statusline(EXAMPLE, { NO_COLOR: '' });
    expect(coloured.stdout).toBe('\u001b[33m●\u001b[0m 73% of 167k · 121,615 tokens · compress\n');
  });

  it('prints a one-line explanation in the bar, exit 0, for input it cannot read (Claude Code blanks the bar on exit 2)', async () => {
    const bad = await statusline('{"session_id":"x"}');
    expect(bad).toEqual({
      code: 0,
      stdout: '● barometer: status line input not understood (model: is required (an object))\n',
      stderr: '',
    });
    const notJson = await statusline('{');
    expect(notJson.code).toBe(0);
    expect(notJson.stdout).toMatch(
      /^● barometer: status line input not understood \(the status line input is not JSON\)\n$/,
    );
    const empty = await statusline('');
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/^● barometer: no input: /);
    expect(empty.stdout.split('\n')).toHaveLength(2);
  });

  it("measures against the window Claude Code states: a 1M-context model is not shown 'of 167k'", async () => {
    const payload = JSON.parse(EXAMPLE);
    payload.model = { id: 'claude-opus-4-6[1m]', display_name: 'Opus (1M context)' };
    payload.context_window.context_window_size = 1_000_000;
    const result = await statusline(JSON.stringify(payload));
    // 1,000,000 less the 33,000 Claude Code keeps for its compaction: 121,615 is 12.6% of 967,000 (still over the
    // optimal 100,000: caution, compress).
    expect(result.stdout).toBe('● 13% of 967k · 121,615 tokens · compress\n');
    payload.model = { id: 'claude-opus-4-6', display_name: 'Opus' };
    expect((await statusline(JSON.stringify(payload))).stdout).toBe(result.stdout);
  });

  it("shows barometer's own cost of the transcript's calls, as replay prices them, not Claude Code's total_cost_usd", async () => {
    const transcript = fileURLToPath(
      new URL(
        '../../test/fixtures/traces/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
        import.meta.url,
      ),
    );
    const payload = { ...JSON.parse(EXAMPLE), transcript_path: transcript };
    const replay = replayLogText(readFileSync(transcript, 'utf8'), {
      subagents: [
        {
          name: 'agent-acompact-e1f845.jsonl',
          text: readFileSync(
            transcript.replace(/\.jsonl$/, '/subagents/agent-acompact-e1f845.jsonl'),
            'utf8',
          ),
        },
      ],
    });
    const result = await statusline(JSON.stringify(payload));
    expect(result.stdout).toBe(
      `● 73% of 167k · 121,615 tokens · compress · $${replay.summary.total.costUsd!.toFixed(2)}\n`,
    );
    expect(result.stdout).not.toContain('$4.27');
    // The cost so far of the transcript and of its sub-agent's file is kept for the next refresh, which reads only
    // what was appended (nothing here) and shows the same cost.
    expect(
      readdirSync(join(STATE, 'barometer', 'statusline')).filter((name) => name.endsWith('.json')),
    ).toHaveLength(2);
    expect((await statusline(JSON.stringify(payload))).stdout).toBe(result.stdout);
  });

  it('reads barometer.config.json overrides when given one', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'barometer-statusline-'));
    try {
      const config = join(folder, 'barometer.config.json');
      writeFileSync(
        config,
        JSON.stringify({ models: { 'claude-opus-4-6': { optimal_max_tokens: 150000 } } }),
      );
      const result = await statusline(EXAMPLE, {}, ['--config', config]);
      // Healthy below the raised optimal size; the regulator (73% of the window: MODERATE) still says optimize.
      expect(result.stdout).toBe('● 73% of 167k · 121,615 tokens · optimize\n');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('adds the plan windows of a subscriber’s rate_limits, and keeps their figures for the next refresh', async () => {
    const state = mkdtempSync(join(tmpdir(), 'barometer-statusline-windows-'));
    try {
      const payload = JSON.parse(
        readFileSync(new URL('../../examples/statusline-input-subscription.json', import.meta.url), 'utf8'),
      );
      // The 5-hour window began 3 hours ago and resets in 2: 30% used in 180 min lasts well past the reset.
      const reset = Math.floor(Date.now() / 60_000) * 60 + 120 * 60;
      payload.rate_limits.five_hour = { used_percentage: 30, resets_at: reset };
      payload.transcript_path = join(state, 'absent.jsonl');
      const result = await statusline(JSON.stringify(payload), { XDG_STATE_HOME: state, TZ: 'UTC' });
      const clock = new Date(reset * 1000).toISOString().slice(11, 16);
      expect(result).toEqual({
        code: 0,
        stdout: `● 24% of 167k · 40,310 tokens · continue · 5h 30% · resets ${clock} · 7d 41%\n`,
        stderr: '',
      });
      const kept = readdirSync(join(state, 'barometer', 'statusline'));
      expect(kept).toEqual([`windows-${payload.session_id}.json`]);
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });
});
