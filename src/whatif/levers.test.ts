import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvictionPolicy } from '../compaction/eviction-policy.js';
import { findModel } from '../models/find-model.js';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { readClaudeCodeHistory } from './read-claude-code-history.js';
import { simulateWhatIf, trimNotice } from './simulate-what-if.js';

const counter = createTokenCounter();
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-levers-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const MARK = 'FAILED src/deep/module_0042.test.ts';
/** A test run's output: 400 passing lines with one failure in the middle. */
const output = Array.from({ length: 400 }, (_, line) =>
  line === 200 ? `${MARK} expected 2 got 3` : `ok ${line} tests/unit/case_${line}.test.ts passed`,
).join('\n');

/**
 * A Claude Code log of five calls: run the tests (a long output), answer, a question, an answer quoting the failure
 * from the middle of the output, a last answer. Its prompts are a 10,000-token base and what the log holds at
 * o200k's count (the calibration finds scale 1).
 */
function sessionLog(): string {
  const lines: object[] = [];
  let minute = 0;
  const at = () => `2026-02-12T16:${String(minute++).padStart(2, '0')}:00.000Z`;
  const items: string[] = [];
  const prompt = () => 10_000 + items.reduce((sum, text) => sum + counter.count(text), 0);
  let previous = 0;
  const assistant = (id: string, block: object, text: string) => {
    const now = prompt();
    lines.push({
      type: 'assistant',
      timestamp: at(),
      message: {
        id,
        role: 'assistant',
        model: 'claude-opus-4-6',
        content: [block],
        usage: {
          input_tokens: 3,
          cache_read_input_tokens: previous,
          cache_creation_input_tokens: now - previous - 3,
          output_tokens: 40,
        },
      },
    });
    previous = now;
    items.push(text);
  };
  const user = (content: unknown, text: string) => {
    lines.push({ type: 'user', timestamp: at(), message: { role: 'user', content } });
    items.push(text);
  };
  user('Run the tests', 'Run the tests');
  const run = { command: 'npm test' };
  assistant('m1', { type: 'tool_use', id: 't1', name: 'Bash', input: run }, `Bash ${JSON.stringify(run)}`);
  user([{ type: 'tool_result', tool_use_id: 't1', content: output }], output);
  assistant('m2', { type: 'text', text: 'One test fails.' }, 'One test fails.');
  user('Which one?', 'Which one?');
  const quote = `It is ${MARK}.`;
  assistant('m3', { type: 'text', text: quote }, quote);
  user('Thanks', 'Thanks');
  assistant('m4', { type: 'text', text: 'You are welcome.' }, 'You are welcome.');
  user('Bye', 'Bye');
  assistant('m5', { type: 'text', text: 'Bye.' }, 'Bye.');
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

describe('(c) trim at arrival', () => {
  it('sends a long result as a notice from its first call on, and reads the whole back when the agent quotes its middle', async () => {
    const log = readClaudeCodeHistory(sessionLog());
    const result = log.items.find((entry) => entry.item.kind === 'tool-result')!.item;
    const report = await simulateWhatIf(log, {
      policy: new EvictionPolicy(
        { boundaries: [], evictWhenCold: false, trimResultsAboveTokens: 1000 },
        counter,
      ),
      archive: new ArchiveStore({ root, durable: false }),
      reader: { readFile: readArchiveFile },
      sessionId: 'trim',
      counter,
      priceOf: () => findModel('claude-opus-4-6')?.price ?? null,
      compactionPoint: 167_000,
      source: 'claude-code',
      tombstonePath: (taskId) => `.barometer/archives/trim/${taskId}.log`,
    });
    expect(report.calibration.meanAbsErrorPercent).toBeLessThan(1e-6);
    const whole = counter.count(output);
    expect(whole).toBeGreaterThan(1000);
    const notice = trimNotice(output, whole, 1000, `.barometer/archives/trim/arrivals.log#${result.id}`);
    expect(notice).not.toContain(MARK);
    // The first call that sends the result sends the notice instead: the prompt is smaller by the difference, and
    // the call reads from the cache what it read (the notice was never cached in full).
    const recorded = log.calls.map((call) => call.usage!);
    expect(report.calls[1]!.whatIfPromptTokens).toBe(
      recorded[1]!.promptTokens - whole + counter.count(notice),
    );
    expect(report.calls[1]!.whatIfCacheReadTokens).toBe(recorded[1]!.cacheReadTokens);
    // The third call quotes the failure from the middle: one extra call reads the whole back first, and it stays.
    expect(report.calls[2]!.rereads).toBe(1);
    expect(report.policy.rereads).toBe(1);
    expect(report.policy.rereadTokens).toBe(whole);
    expect(report.calls[3]!.whatIfPromptTokens).toBeGreaterThan(recorded[3]!.promptTokens);
    expect(report.policy.trimmedAtArrival).toBe(1);
    expect(report.archiveVerified).toBe(true);
    expect(report.policy.archivedItems).toBe(1);
  });
});

const fileText = `defmodule A do\n${'  def f(x), do: x + 1\n'.repeat(300)}end\n`;

/**
 * A Claude Code log of four calls a minute apart but for a 30-minute pause before the third: read a file, commit, then
 * (after the pause, its prompt the first to hold the commit's result) answer, and a last answer. Each call reads the
 * previous call's prompt from the cache but the third, which finds it expired (Anthropic's 5 minutes) and writes all.
 */
function pausedLog(): { text: string; prompts: number[] } {
  const lines: object[] = [];
  const minutes = [0, 1, 2, 3, 33, 34, 35];
  let step = 0;
  const at = () => `2026-02-12T16:${String(minutes[step++]).padStart(2, '0')}:00.000Z`;
  const items: string[] = [];
  const prompts: number[] = [];
  const prompt = () => 10_000 + items.reduce((sum, text) => sum + counter.count(text), 0);
  const assistant = (id: string, block: object, text: string, cold = false) => {
    const now = prompt();
    // The cache holds what the call before wrote or read: its prompt but its 3 uncached input tokens.
    const read = cold || prompts.length === 0 ? 0 : prompts.at(-1)! - 3;
    prompts.push(now);
    lines.push({
      type: 'assistant',
      timestamp: at(),
      message: {
        id,
        role: 'assistant',
        model: 'claude-opus-4-6',
        content: [block],
        usage: {
          input_tokens: 3,
          cache_read_input_tokens: read,
          cache_creation_input_tokens: now - read - 3,
          output_tokens: 40,
        },
      },
    });
    items.push(text);
  };
  const user = (content: unknown, text: string) => {
    lines.push({ type: 'user', timestamp: at(), message: { role: 'user', content } });
    items.push(text);
  };
  user('Fix a.ts', 'Fix a.ts');
  const read = { file_path: '/r/a.ts' };
  assistant('m1', { type: 'tool_use', id: 'r1', name: 'Read', input: read }, `Read ${JSON.stringify(read)}`);
  user([{ type: 'tool_result', tool_use_id: 'r1', content: fileText }], fileText);
  const commit = { command: 'git commit -am fix' };
  assistant(
    'm2',
    { type: 'tool_use', id: 'g1', name: 'Bash', input: commit },
    `Bash ${JSON.stringify(commit)}`,
  );
  user([{ type: 'tool_result', tool_use_id: 'g1', content: '[main 1a2b] fix' }], '[main 1a2b] fix');
  assistant('m3', { type: 'text', text: 'Committed.' }, 'Committed.', true);
  user('Thanks', 'Thanks');
  assistant('m4', { type: 'text', text: 'You are welcome.' }, 'You are welcome.');
  return { text: `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`, prompts };
}

describe('evictOnColdArrival', () => {
  const price = findModel('claude-opus-4-6')?.price ?? null;
  const replay = (evictOnColdArrival: boolean, sessionId: string) =>
    simulateWhatIf(readClaudeCodeHistory(pausedLog().text), {
      policy: new EvictionPolicy({ evictOnColdArrival }, counter),
      archive: new ArchiveStore({ root, durable: false }),
      reader: { readFile: readArchiveFile },
      sessionId,
      counter,
      priceOf: () => price,
      compactionPoint: 167_000,
      source: 'claude-code',
      // The tombstone names the same address in every run (a temporary folder's name would change its size).
      tombstonePath: (taskId) => `.barometer/archives/cold/${taskId}.log`,
    });

  it('puts the batch on the cold call that shows its boundary, which writes its whole prompt anyway', async () => {
    const { prompts } = pausedLog();
    const on = await replay(true, 'arrival-on');
    expect(on.evictions).toEqual([
      expect.objectContaining({ beforeCallIndex: 2, boundary: 'command', items: 1 }),
    ]);
    const freed = on.evictions[0]!.tokensFreed;
    expect(freed).toBeGreaterThan(counter.count(fileText) - 200);
    // The cold call sends the tombstone and, as recorded, reads nothing; the call after it reads all it wrote.
    expect(on.calls[2]!.whatIfPromptTokens).toBe(prompts[2]! - freed);
    expect(on.calls[2]!.whatIfCacheReadTokens).toBe(0);
    expect(on.calls[3]!.whatIfPromptTokens).toBe(prompts[3]! - freed);
    // (Within the few tokens the cache model's whole-token blocks round away.)
    expect(Math.abs(on.calls[3]!.whatIfCacheReadTokens! - (prompts[2]! - freed - 3))).toBeLessThanOrEqual(8);
    expect(on.archiveVerified).toBe(true);
  });

  it('off (the proxy today), puts it on the next call, which rewrites what the cold call had just written', async () => {
    const { prompts } = pausedLog();
    const off = await replay(false, 'arrival-off');
    expect(off.evictions).toEqual([expect.objectContaining({ beforeCallIndex: 3, items: 1 })]);
    expect(off.calls[2]!.whatIfPromptTokens).toBe(prompts[2]!);
    const on = await replay(true, 'arrival-compared');
    // The same tokens freed one call earlier, and no second write of the prompt: cheaper.
    expect(on.policy.promptTokens).toBe(off.policy.promptTokens - off.evictions[0]!.tokensFreed);
    expect(on.policy.costUsd!).toBeLessThan(off.policy.costUsd!);
  });
});
