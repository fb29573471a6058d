import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvictionPolicy } from '../compaction/eviction-policy.js';
import { findModel } from '../models/find-model.js';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { readClaudeCodeHistory } from './read-claude-code-history.js';
import { simulateWhatIf } from './simulate-what-if.js';

const counter = createTokenCounter();
const price = findModel('claude-opus-4-6')?.price ?? null;
let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-rereads-'));
  archive = new ArchiveStore({ root, durable: false });
});
afterAll(() => rm(root, { recursive: true, force: true }));

const textOf = (name: string) => `defmodule ${name} do\n${'  def f(x), do: x + 1\n'.repeat(300)}end\n`;

/**
 * A Claude Code log of five calls: read a.ts and b.ts (one message, two reads), commit, answer, then a new request
 * whose one message edits both files (two Edit calls, as Claude Code sends parallel tool calls).
 */
function sessionLog(): { text: string; prompts: number[] } {
  const lines: object[] = [];
  let minute = 0;
  const at = () => `2026-02-12T16:${String(minute++).padStart(2, '0')}:00.000Z`;
  const user = (content: unknown) =>
    lines.push({ type: 'user', timestamp: at(), message: { role: 'user', content } });
  const assistant = (id: string, blocks: object[], usage: object) =>
    lines.push({
      type: 'assistant',
      timestamp: at(),
      message: { id, role: 'assistant', model: 'claude-opus-4-6', content: blocks, usage },
    });
  const prompts: number[] = [];
  const items: string[] = [];
  // A 10,000-token base, then what the log holds at o200k's count: the calibration finds scale 1.
  const prompt = () => 10_000 + items.reduce((sum, text) => sum + counter.count(text), 0);
  const usage = (index: number) => ({
    input_tokens: 3,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: prompts[index]! - 3,
    cache_creation: { ephemeral_5m_input_tokens: prompts[index]! - 3, ephemeral_1h_input_tokens: 0 },
    output_tokens: 40,
  });
  const read = (id: string, path: string) => ({
    type: 'tool_use',
    id,
    name: 'Read',
    input: { file_path: path },
  });
  items.push('Fix the off-by-one in a.ts and b.ts');
  prompts.push(prompt());
  user('Fix the off-by-one in a.ts and b.ts');
  assistant('m1', [read('r1', '/r/a.ts'), read('r2', '/r/b.ts')], usage(0));
  items.push(
    `Read ${JSON.stringify({ file_path: '/r/a.ts' })}`,
    `Read ${JSON.stringify({ file_path: '/r/b.ts' })}`,
  );
  items.push(textOf('A'), textOf('B'));
  prompts.push(prompt());
  user([
    { type: 'tool_result', tool_use_id: 'r1', content: textOf('A') },
    { type: 'tool_result', tool_use_id: 'r2', content: textOf('B') },
  ]);
  const commit = { command: 'git commit -am fix' };
  assistant('m2', [{ type: 'tool_use', id: 'g1', name: 'Bash', input: commit }], usage(1));
  items.push(`Bash ${JSON.stringify(commit)}`, '[main 1a2b] fix');
  prompts.push(prompt());
  user([{ type: 'tool_result', tool_use_id: 'g1', content: '[main 1a2b] fix' }]);
  assistant('m3', [{ type: 'text', text: 'Committed.' }], usage(2));
  items.push('Committed.', 'Now rename f to g in both');
  prompts.push(prompt());
  user('Now rename f to g in both');
  const edit = (path: string) => ({ file_path: path, old_string: 'def f', new_string: 'def g' });
  assistant(
    'm4',
    [
      { type: 'tool_use', id: 'e1', name: 'Edit', input: edit('/r/a.ts') },
      { type: 'tool_use', id: 'e2', name: 'Edit', input: edit('/r/b.ts') },
    ],
    usage(3),
  );
  items.push(`Edit ${JSON.stringify(edit('/r/a.ts'))}`, `Edit ${JSON.stringify(edit('/r/b.ts'))}`);
  items.push('The file has been updated.', 'The file has been updated.');
  prompts.push(prompt());
  user([
    { type: 'tool_result', tool_use_id: 'e1', content: 'The file has been updated.' },
    { type: 'tool_result', tool_use_id: 'e2', content: 'The file has been updated.' },
  ]);
  assistant('m5', [{ type: 'text', text: 'Renamed.' }], usage(4));
  return { text: `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`, prompts };
}

describe('re-reads of evicted files', () => {
  it('reads back every file one call needs in one extra call, as an agent sends parallel reads', async () => {
    const { text, prompts } = sessionLog();
    const report = await simulateWhatIf(readClaudeCodeHistory(text), {
      policy: new EvictionPolicy({ minFreedTokens: 0, evictWhenCold: false }),
      archive,
      reader: { readFile: readArchiveFile },
      sessionId: 'parallel',
      counter,
      priceOf: () => price,
      compactionPoint: 167_000,
      source: 'claude-code',
    });
    expect(report.evictions).toEqual([expect.objectContaining({ beforeCallIndex: 3, items: 2 })]);
    const freed = report.evictions[0]!.tokensFreed;
    // Both texts are back before call 3: two reads, each its call and the file's text.
    const readBack = (path: string, name: string) =>
      counter.count(`Read ${JSON.stringify({ file_path: path })}`) + counter.count(textOf(name));
    const back = readBack('/r/a.ts', 'A') + readBack('/r/b.ts', 'B');
    expect(report.calls[3]?.rereads).toBe(2);
    expect(report.policy.rereads).toBe(2);
    expect(report.policy.rereadTokens).toBe(counter.count(textOf('A')) + counter.count(textOf('B')));
    expect(report.calls[3]?.whatIfPromptTokens).toBe(prompts[3]! - freed + back);
    expect(report.calls[4]?.whatIfPromptTokens).toBe(prompts[4]! - freed + back);
    // Five recorded calls and ONE extra call (the history with both tombstones), not one per file.
    expect(report.policy.promptTokens).toBe(
      prompts[0]! +
        prompts[1]! +
        prompts[2]! +
        (prompts[3]! - freed) +
        (prompts[3]! - freed + back) +
        (prompts[4]! - freed + back),
    );
    expect(report.archiveVerified).toBe(true);
  });
});
