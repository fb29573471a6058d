import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    await writeFile(join(directory, 'never.json'), JSON.stringify({ boundaries: [] }));
    const none = JSON.parse(
      (await cli(['replay', SONNET, '--what-if', '--json', '--policy', 'never.json'])).stdout,
    );
    expect(none.whatIf.policy.evictions).toBe(0);
    expect(none.whatIf.savedPercent).toBe(0);
    await writeFile(join(directory, 'policy.yaml'), 'minFreedTokens: 100000\n');
    const late = JSON.parse(
      (await cli(['replay', SONNET, '--what-if', '--json', '--policy', 'policy.yaml'])).stdout,
    );
    expect(late.whatIf.policy.evictions).toBe(0);
  });

  it.each([
    [['--policy', 'never.json'], '--policy and --archive-dir go with --what-if'],
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
});
