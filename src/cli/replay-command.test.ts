import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memoryIo } from '../test-helpers/memory-io.js';
import { TRACES } from '../usage/test-helpers/traces.js';
import { run } from './program.js';

const trace = (path: string) => fileURLToPath(new URL(path, TRACES));
const CLAUDE = trace('claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');

async function cli(args: string[]) {
  const terminal = memoryIo();
  const code = await run(args, { io: terminal.io });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

describe('barometer replay', () => {
  it('prints a timeline with the recorded compaction and a summary, with progress on stderr for a large file', async () => {
    const { code, stdout, stderr } = await cli(['replay', CLAUDE]);
    expect(code).toBe(0);
    expect(stdout).toContain('claude-code session, model claude-opus-4-6, window 167000 tokens');
    expect(stdout).toContain('recorded compaction (auto)');
    expect(stdout).toContain('170251 tokens before');
    expect(stdout).toMatch(/^\s+61 {2}2026-02-12 20:30:31 +36081 +21\.6% {2}healthy/m);
    expect(stdout).toContain('Summary: 139 calls, 1 recorded compaction');
    expect(stdout).toContain('Cost: $9.53, cache hits 96% of prompt tokens');
    expect(stderr).toContain('replayed 139/139 calls');
  });

  it('prints the documented JSON with --json', async () => {
    const { code, stdout } = await cli(['replay', CLAUDE, '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(Object.keys(result)).toEqual([
      'format',
      'id',
      'skippedLines',
      'recoveredLines',
      'model',
      'contextWindow',
      'calls',
      'compactions',
      'summary',
      // The compaction agent's transcript beside it (subagents/agent-acompact-e1f845.jsonl).
      'children',
    ]);
    expect(Object.keys(result.calls[0])).toEqual([
      'index',
      'timestamp',
      'promptTokens',
      'completionTokens',
      'health',
      'regulatorLevel',
      'action',
      'reasons',
      'model',
      'contextWindow',
      'taskCompleted',
      'costUsd',
    ]);
    expect(result.compactions).toEqual([
      { timestamp: expect.any(String), trigger: 'auto', preTokens: 170251, beforeCallIndex: 61 },
    ]);
    expect(Object.keys(result.summary)).toEqual([
      'calls',
      'compactions',
      'tasksCompleted',
      'costUsd',
      'unpricedCalls',
      'cacheHitPercent',
      'firstCompressCallIndex',
      'peakPromptTokens',
      'promptTokens',
      'completionTokens',
      'total',
    ]);
  });

  it('replays the sub-agents beside a session as its children, their calls in its total (text and --json)', async () => {
    // The subagents/ folder holds the compaction agent's transcript: one call of 173,514 prompt tokens
    // (input 3 + cache write 8,681 + cache read 164,830) and 8 output tokens of claude-opus-4-6.
    const json = await cli(['replay', CLAUDE, '--json']);
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result.children).toHaveLength(1);
    const [child] = result.children;
    expect(child).toMatchObject({
      id: 'acompact-e1f845',
      parentId: '4d5611e5-241a-462a-8d15-5122611a9569',
      file: 'agent-acompact-e1f845.jsonl',
      model: 'claude-opus-4-6',
      summary: { calls: 1, promptTokens: 173_514, completionTokens: 8 },
    });
    // claude-opus-4-6 at $5 input, $6.25 5-minute write, $0.50 cache read, $25 output per million (Anthropic's
    // pricing page): $0.13688625.
    const childCost = (3 * 5 + 8681 * 6.25 + 164_830 * 0.5 + 8 * 25) / 1e6;
    expect(child.summary.costUsd).toBeCloseTo(childCost, 6);
    expect(result.summary.calls).toBe(139);
    expect(result.summary.total).toEqual({
      calls: 140,
      promptTokens: result.summary.promptTokens + 173_514,
      completionTokens: result.summary.completionTokens + 8,
      costUsd: expect.closeTo(result.summary.costUsd + childCost, 5),
      unpricedCalls: 0,
    });
    const text = await cli(['replay', CLAUDE]);
    expect(text.stdout).toMatch(
      /acompact-e1f845 \(agent-acompact-e1f845\.jsonl\) +1 +173514 +173514 +\$0\.14/,
    );
    expect(text.stdout).toContain('Total with its child sessions: 140 calls');
    expect(text.stdout).toContain('(this session alone: 139 calls, $9.53)');
  });

  it('names every line it could not parse, and reads the record a broken fragment was merged with', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'barometer-replay-broken-'));
    try {
      const lines = (await readFile(trace('claude-code/small-sonnet-session.jsonl'), 'utf8'))
        .trimEnd()
        .split('\n');
      const call = lines.findIndex((line) => line.includes('"usage"'));
      // A crash left half of the line before the call, and the call was appended to it; a stray line at the end.
      lines[call - 1] = `${lines[call - 1]!.slice(0, 40)}${lines[call]}`;
      lines.splice(call, 1);
      lines.push('not json');
      const file = join(dir, 'broken.jsonl');
      await writeFile(file, `${lines.join('\n')}\n`);
      const { code, stdout, stderr } = await cli(['replay', file, '--json']);
      expect(code).toBe(0);
      const result = JSON.parse(stdout);
      expect(result.summary.calls).toBe(31);
      expect(result.recoveredLines).toEqual([call]);
      expect(result.skippedLines).toEqual([lines.length]);
      expect(stderr).toContain(`${file}: 1 line not parsed, skipped: line ${lines.length}`);
      expect(stderr).toContain(
        `${file}: 1 line began with a broken fragment (dropped; the record after it was read): line ${call}`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('shows the windows a Codex rollout records at each call, and when one would run out at the pace measured', async () => {
    const { code, stdout } = await cli([
      'replay',
      trace('codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl'),
    ]);
    expect(code).toBe(0);
    // The period's first minutes: 13% of the 5-hour window 14 minutes after it began, 26%/h over the lookback.
    expect(stdout).toMatch(/^\s+0 {2}2026-02-23 11:54:58 .* wait {2}5h 13% runs out 15:15Z · 7d 4%$/m);
    expect(stdout).toMatch(/^\s+4 {2}2026-02-23 12:18:22 .* continue {2}5h 18% · 7d 6%$/m);
  });

  it('replays a log of a model nobody knows (aide-gpt-5): window and health unknown, never a refusal', async () => {
    const { code, stdout } = await cli(['replay', trace('codex/small-codex-session.jsonl')]);
    expect(code).toBe(0);
    expect(stdout).toContain('codex session, model aide-gpt-5, window unknown\n');
    expect(stdout).toMatch(/^\s+0 {2}2025-09-19 09:02:27 +5645 +— {2}unknown/m);
  });

  it('takes --format, --model and --context-window', async () => {
    const small = trace('codex/small-codex-session.jsonl');
    const { code, stdout } = await cli([
      'replay',
      small,
      '--format',
      'codex',
      '--model',
      'gpt-5',
      '--context-window',
      '100000',
      '--json',
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      format: 'codex',
      model: 'gpt-5',
      contextWindow: 100000,
      summary: { calls: 19 },
    });
  });

  it('applies a barometer.config.json found in the working directory, and --config', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'barometer-config-'));
    try {
      await writeFile(
        join(directory, 'barometer.config.json'),
        JSON.stringify({
          models: { 'claude-opus-4-6': { optimal_max_tokens: 140000, critical_max_tokens: 160000 } },
        }),
      );
      const terminal = memoryIo();
      terminal.io.cwd = directory;
      expect(await run(['replay', CLAUDE, '--json'], { io: terminal.io })).toBe(0);
      const configured = JSON.parse(terminal.stdout);
      const plain = JSON.parse((await cli(['replay', CLAUDE, '--json'])).stdout);
      // Caution now starts above 140,000 instead of 100,000: the first compress verdict comes later.
      expect(configured.summary.firstCompressCallIndex).toBeGreaterThan(plain.summary.firstCompressCallIndex);
      const flagged = memoryIo();
      expect(
        await run(['replay', CLAUDE, '--json', '--config', join(directory, 'barometer.config.json')], {
          io: flagged.io,
        }),
      ).toBe(0);
      expect(JSON.parse(flagged.stdout).summary).toEqual(configured.summary);
      const bad = memoryIo();
      await writeFile(join(directory, 'bad.json'), JSON.stringify({ models: { x: { context_length: -5 } } }));
      expect(await run(['replay', CLAUDE, '--config', join(directory, 'bad.json')], { io: bad.io })).toBe(2);
      expect(bad.stderr).toContain('models.x.context_length');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it.each([
    [['replay', '/no/such/file.jsonl'], 'cannot read /no/such/file.jsonl: ENOENT'],
    [['replay', CLAUDE, '--format', 'cursor'], '--format must be one of'],
    [['replay', '/tmp'], 'several logs, or a directory of them, go with --what-if'],
    [['replay', CLAUDE, '--context-window', 'big'], '--context-window must be a whole number'],
    [
      ['replay', CLAUDE, '--context-window', '0'],
      '--context-window must be a whole number of tokens ≥ 1; got "0"',
    ],
    [['replay', CLAUDE, '--model', ''], '--model'],
    [['replay', fileURLToPath(new URL('../../package.json', import.meta.url))], 'not a session log'],
  ])('exits 2 with a clear message for %j', async (args, message) => {
    const { code, stderr } = await cli(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});
