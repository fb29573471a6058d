import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WhatIfCorpusSchema } from '../contract/replay.js';
import type { WhatIfCorpusRow } from '../session/what-if-corpus.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { readTrace, TRACES } from '../usage/test-helpers/traces.js';
import { run } from './program.js';

const trace = (path: string) => fileURLToPath(new URL(path, TRACES));
const SONNET = trace('claude-code/small-sonnet-session.jsonl');

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'barometer-whatif-cli-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

async function cli(args: string[]) {
  const terminal = memoryIo();
  terminal.io.cwd = directory;
  const code = await run(args, { io: terminal.io });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

describe('barometer replay --what-if', () => {
  it('adds the what-if prompt and the drift to the timeline, and ends with the totals and the savings', async () => {
    const { code, stdout } = await cli(['replay', SONNET, '--what-if']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/#\s+time \(UTC\)\s+prompt\s+window\s+what-if\s+drift\s+health/);
    expect(stdout).toMatch(/── barometer evicts subtask-1: \d+ items, \d+ tokens \(/);
    expect(stdout).toMatch(/prompt tokens {2}1192671 → \d+ \(−\d+\.\d%\)/);
    expect(stdout).toContain('every one read back and identical to the log');
    const last = stdout.trimEnd().split('\n').at(-1);
    expect(last).toMatch(
      /^barometer would have sent \d+(\.\d)?% fewer prompt tokens \(\$0\.76 → \$0\.\d\d\), no forced compaction$/,
    );
  });

  it('prints the whatIf object and each call’s whatIfPromptTokens with --json', async () => {
    const { code, stdout } = await cli(['replay', SONNET, '--what-if', '--json']);
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
      'whatIf',
    ]);
    expect(result.whatIf).toMatchObject({
      real: {
        promptTokens: 1_192_671,
        costUsd: expect.any(Number),
        peakPromptTokens: 75_387,
        compactions: 0,
      },
      policy: {
        promptTokens: expect.any(Number),
        costUsd: expect.any(Number),
        peakPromptTokens: expect.any(Number),
        compactions: 0,
        evictions: expect.any(Number),
        archivedItems: expect.any(Number),
        archivedBytes: expect.any(Number),
      },
      savedPercent: expect.any(Number),
      costSavedPercent: expect.any(Number),
      archiveVerified: true,
    });
    expect(result.whatIf.savedPercent).toBeGreaterThan(25);
    expect(
      result.calls.every(
        (call: { whatIfPromptTokens: unknown }) => typeof call.whatIfPromptTokens === 'number',
      ),
    ).toBe(true);
    expect(result.calls[0].whatIfPromptTokens).toBe(result.calls[0].promptTokens);
    expect(result.calls.at(-1).whatIfPromptTokens).toBeLessThan(result.calls.at(-1).promptTokens);
  });

  it('keeps the archive under --archive-dir, where barometer archive reads it back as the log has it', async () => {
    const archives = join(directory, 'kept');
    const { code, stdout } = await cli(['replay', SONNET, '--what-if', '--json', '--archive-dir', archives]);
    expect(code).toBe(0);
    expect(await readdir(archives)).toEqual(['whatif']);
    const eviction = JSON.parse(stdout).whatIf.evictions[0];
    const records = JSON.parse(
      (await cli(['archive', 'whatif', eviction.taskId, '--archive-dir', archives, '--json'])).stdout,
    );
    const result = records.find((record: { field: string }) => record.field === 'content');
    const item = await cli([
      'archive',
      'whatif',
      eviction.taskId,
      '--archive-dir',
      archives,
      '--item',
      result.itemId,
    ]);
    const callId = result.itemId.replace(/:result$/, '');
    const line = readTrace('claude-code/small-sonnet-session.jsonl')
      .split('\n')
      .find(
        (candidate) =>
          candidate.includes(`"tool_use_id": "${callId}"`) || candidate.includes(`"tool_use_id":"${callId}"`),
      );
    const block = JSON.parse(line ?? '{}').message.content.find(
      (part: { tool_use_id?: string }) => part.tool_use_id === callId,
    );
    expect(item.stdout).toBe(
      typeof block.content === 'string' ? block.content : JSON.stringify(block.content),
    );
    // A second replay into the same directory takes a fresh folder.
    await cli(['replay', SONNET, '--what-if', '--archive-dir', archives]);
    expect((await readdir(archives)).sort()).toEqual(['whatif', 'whatif-2']);
  });

  it('takes the policy from --policy (JSON or YAML)', async () => {
    await writeFile(
      join(directory, 'never.json'),
      JSON.stringify({ boundaries: [], trimResultsAboveTokens: 0 }),
    );
    const none = JSON.parse(
      (await cli(['replay', SONNET, '--what-if', '--json', '--policy', 'never.json'])).stdout,
    );
    expect(none.whatIf.policy.evictions).toBe(0);
    expect(none.whatIf.savedPercent).toBe(0);
    await writeFile(join(directory, 'policy.yaml'), 'minFreedTokens: 100000\nevictWhenCold: false\n');
    const late = JSON.parse(
      (await cli(['replay', SONNET, '--what-if', '--json', '--policy', 'policy.yaml'])).stdout,
    );
    expect(late.whatIf.policy.evictions).toBe(0);
  });

  it.each([
    [['--policy', 'never.json'], '--policy, --archive-dir and --window-policy go with --what-if'],
    [['--what-if', '--policy', 'missing.json'], 'cannot read the policy file missing.json: ENOENT'],
    [['--what-if', '--policy', 'typo.json'], 'minFreedToken'],
    [['--what-if', '--policy', 'range.json'], 'recapAbovePercent'],
  ])('exits 2 with a clear message for %j', async (flags, message) => {
    await writeFile(join(directory, 'never.json'), JSON.stringify({ boundaries: [] }));
    await writeFile(join(directory, 'typo.json'), JSON.stringify({ minFreedToken: 5 }));
    await writeFile(join(directory, 'range.json'), JSON.stringify({ recapAbovePercent: 0 }));
    const { code, stderr } = await cli(['replay', SONNET, ...flags]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it('says which logs it can replay when the log does not hold its messages', async () => {
    const { code, stderr } = await cli(['replay', trace('gemini/small-gemini-session.jsonl'), '--what-if']);
    expect(code).toBe(2);
    expect(stderr).toContain('only claude-code, codex, pi, openhands logs hold');
  });

  describe('several logs: the corpus at a glance', () => {
    const EXCERPT = trace('claude-code/fa812bfe-compaction-excerpt.jsonl');

    async function corpusDirectory() {
      const folder = join(directory, 'corpus');
      await mkdir(join(folder, 'nested'), { recursive: true });
      await copyFile(SONNET, join(folder, 'small-sonnet-session.jsonl'));
      await copyFile(EXCERPT, join(folder, 'nested', 'fa812bfe-compaction-excerpt.jsonl'));
      return folder;
    }

    it('gives each sub-agent a row of its own under its session, counted in the aggregate and the worst row', async () => {
      const folder = join(directory, 'corpus-sub-agents');
      await mkdir(folder, { recursive: true });
      // Its two sub-agents are sidechains in the session's own log.
      await copyFile(
        trace('claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
        join(folder, 'viewer.jsonl'),
      );
      const json = await cli(['replay', folder, '--what-if', '--json']);
      expect(json.code).toBe(0);
      const corpus = WhatIfCorpusSchema.parse(JSON.parse(json.stdout));
      const session = join(folder, 'viewer.jsonl');
      expect(corpus.sessions.map((row) => [basename(row.file), row.parent])).toEqual([
        ['viewer.jsonl', null],
        ['viewer.jsonl#1', session],
        ['viewer.jsonl#2', session],
      ]);
      const single = JSON.parse((await cli(['replay', session, '--what-if', '--json'])).stdout);
      // The rows are the session's own what-if and each child's: together, the single replay's total.
      expect(corpus.sessions.map((row) => row.calls)).toEqual([
        single.summary.calls,
        ...single.children.map((child: { summary: { calls: number } }) => child.summary.calls),
      ]);
      expect(corpus.aggregate.calls).toBe(single.summary.total.calls);
      expect(corpus.aggregate.sessions).toBe(3);
      expect(corpus.sessions.map((row) => row.file)).toContain(corpus.aggregate.worstFile);
      const text = await cli(['replay', folder, '--what-if']);
      expect(text.stdout).toMatch(/^ {2}viewer\.jsonl#1\s+claude-code/m);
      expect(text.stdout).toMatch(/^all 3 \(2 sub-agents\)\s/m);
      expect(text.stdout).toMatch(
        /over 3 sessions and sub-agents \(2 sub-agents\); the worst (session|sub-agent)'s cost change: \S+ \(viewer\.jsonl(#\d)?\)/,
      );
    });

    it('gives each trajectory of an evaluation output a row of its own, its calls counted and in the worst row', async () => {
      const folder = join(directory, 'corpus-trajectories');
      await mkdir(folder, { recursive: true });
      const log = join(folder, 'output.jsonl');
      await copyFile(trace('openhands/multi-swe-bench-output-2.jsonl'), log);
      const single = JSON.parse((await cli(['replay', log, '--what-if', '--json'])).stdout);
      const children = single.children as Array<{ summary: { calls: number } }>;
      expect(children.length).toBeGreaterThan(1);
      expect(single.summary.calls).toBe(0);
      const json = await cli(['replay', folder, '--what-if', '--json']);
      expect(json.code).toBe(0);
      const corpus = WhatIfCorpusSchema.parse(JSON.parse(json.stdout));
      // Each trajectory is a session run on its own: no row of the file's (which has no call of its own).
      expect(corpus.sessions.map((row) => [basename(row.file), row.parent])).toEqual(
        children.map((_, index) => [`output.jsonl#${index + 1}`, null]),
      );
      expect(corpus.sessions.map((row) => row.calls)).toEqual(children.map((child) => child.summary.calls));
      expect(corpus.aggregate.calls).toBe(single.summary.total.calls);
      expect(corpus.aggregate.calls).toBeGreaterThan(0);
      expect(corpus.aggregate.sessions).toBe(children.length);
      expect(corpus.sessions.map((row) => row.file)).toContain(corpus.aggregate.worstFile);
      const text = await cli(['replay', folder, '--what-if']);
      expect(text.stdout).toMatch(new RegExp(`^all ${children.length} sessions\\s`, 'm'));
    });

    it('prints one row a session and the aggregate, and --json the same figures (WhatIfCorpus)', async () => {
      const folder = await corpusDirectory();
      const text = await cli(['replay', folder, '--what-if']);
      expect(text.code).toBe(0);
      // Not a terminal: no progress bar.
      expect(text.stderr).toBe('');
      const lines = text.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(
        /^session\s+agent\s+calls\s+tokens real → policy\s+cost real → policy\s+peak real → policy\s+compactions\s+re-reads\s+archive$/,
      );
      expect(lines[1]).toMatch(/^fa812bfe-compaction-excerpt\.jsonl\s+claude-code\s+10 /);
      expect(lines[2]).toMatch(/^small-sonnet-session\.jsonl\s+claude-code\s+31 .* 0 → 0 .*verified$/);
      expect(lines[3]).toMatch(/^all 2 sessions\s+41 /);
      expect(lines[4]).toMatch(
        /^barometer would have sent \d+(\.\d)?% (fewer|more) prompt tokens and cost \d+(\.\d)?% (less|more) over 2 sessions/,
      );

      const json = await cli(['replay', folder, '--what-if', '--json']);
      expect(json.code).toBe(0);
      const corpus = WhatIfCorpusSchema.parse(JSON.parse(json.stdout));
      expect(corpus.sessions.map((row) => [row.agent, row.calls, row.skipped])).toEqual([
        ['claude-code', 10, null],
        ['claude-code', 31, null],
      ]);
      // The single-file what-if gives the same figures as the row.
      const single = JSON.parse((await cli(['replay', SONNET, '--what-if', '--json'])).stdout).whatIf;
      expect(corpus.sessions[1]).toMatchObject({
        realPromptTokens: single.real.promptTokens,
        policyPromptTokens: single.policy.promptTokens,
        realCompactions: 0,
        archiveVerified: true,
      });
      // The aggregate is the sum of the rows.
      const [a, b] = corpus.sessions as [WhatIfCorpusRow, WhatIfCorpusRow];
      const real = a.realPromptTokens + b.realPromptTokens;
      const policy = a.policyPromptTokens + b.policyPromptTokens;
      expect(corpus.aggregate).toMatchObject({
        sessions: 2,
        skipped: 0,
        calls: 41,
        realPromptTokens: real,
        policyPromptTokens: policy,
        savedPercent: Math.round(((real - policy) / real) * 1000) / 10,
        archiveVerified: true,
      });
      expect(corpus.aggregate.realCostUsd).toBeCloseTo(a.realCostUsd! + b.realCostUsd!, 10);
    });

    it('names a log it cannot replay in its row, and draws a progress bar on a terminal only', async () => {
      const terminal = memoryIo();
      terminal.io.cwd = directory;
      terminal.io.stderr.isTTY = true;
      const gemini = trace('gemini/small-gemini-session.jsonl');
      const code = await run(['replay', SONNET, gemini, '--what-if'], { io: terminal.io });
      expect(code).toBe(0);
      expect(terminal.stdout).toMatch(
        /small-gemini-session\.jsonl\s+skipped: .*the what-if replay needs the messages, which only claude-code, codex, pi, openhands logs hold/,
      );
      expect(terminal.stdout).toMatch(/^all 1 sessions \(1 skipped\)/m);
      expect(terminal.stderr).toContain('replay [');
      expect(terminal.stderr).toContain('2/2');
    });

    it('reports the calibration of each stretch between compactions on one log', async () => {
      const { code, stdout } = await cli(['replay', EXCERPT, '--what-if']);
      expect(code).toBe(0);
      expect(stdout).toMatch(
        /^ {2}calibrated by stretch: calls 0–4 \(start, claude-opus-4-6\) \d+\.\d% mean, \d+\.\d% at worst; calls 5–9 \(compaction, claude-opus-4-6\) \d+\.\d% mean, \d+\.\d% at worst$/m,
      );
      // One stretch: no such line (the single-log output is as it was).
      expect((await cli(['replay', SONNET, '--what-if'])).stdout).not.toContain('calibrated by stretch');
    });

    it('exits 2 when several logs come without --what-if', async () => {
      const { code, stderr } = await cli(['replay', SONNET, SONNET]);
      expect(code).toBe(2);
      expect(stderr).toContain('several logs, or a directory of them, go with --what-if');
    });
  });
});
