import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvictionPolicy } from '../compaction/eviction-policy.js';
import { findModel } from '../models/find-model.js';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { callCost, whatIfCallCost } from './call-cost.js';
import { readClaudeCodeHistory } from './read-claude-code-history.js';
import { type SimulateWhatIfOptions, simulateWhatIf } from './simulate-what-if.js';

const counter = createTokenCounter();
const price = findModel('claude-opus-4-6')?.price ?? null;
let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-whatif-'));
  archive = new ArchiveStore({ root, durable: false });
});
afterAll(() => rm(root, { recursive: true, force: true }));

const fileText = `defmodule A do\n${'  def f(x), do: x + 1\n'.repeat(300)}end\n`;

/** A Claude Code log of five calls: read a file, commit, answer, then a new request that edits the file. */
function sessionLog(): string {
  const lines: object[] = [];
  let minute = 0;
  const at = () => `2026-02-12T16:${String(minute++).padStart(2, '0')}:00.000Z`;
  const user = (content: unknown) =>
    lines.push({ type: 'user', timestamp: at(), message: { role: 'user', content } });
  const assistant = (id: string, block: object, usage: object) =>
    lines.push({
      type: 'assistant',
      timestamp: at(),
      message: { id, role: 'assistant', model: 'claude-opus-4-6', content: [block], usage },
    });
  // Prompts: a 10,000-token base, then what the log holds, at o200k's count (the fit finds scale 1 exactly).
  const base = 10_000;
  const prompts: number[] = [];
  const usage = (read: number, index: number) => ({
    input_tokens: 3,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: prompts[index]! - read - 3,
    cache_creation: { ephemeral_5m_input_tokens: prompts[index]! - read - 3, ephemeral_1h_input_tokens: 0 },
    output_tokens: 40,
  });
  const items: string[] = [];
  const prompt = () => base + items.reduce((sum, text) => sum + counter.count(text), 0);
  items.push('Fix the off-by-one in a.ts');
  prompts.push(prompt());
  user('Fix the off-by-one in a.ts');
  assistant('m1', { type: 'tool_use', id: 'r1', name: 'Read', input: { file_path: '/r/a.ts' } }, usage(0, 0));
  items.push(`Read ${JSON.stringify({ file_path: '/r/a.ts' })}`, fileText);
  prompts.push(prompt());
  user([{ type: 'tool_result', tool_use_id: 'r1', content: fileText }]);
  assistant(
    'm2',
    { type: 'tool_use', id: 'g1', name: 'Bash', input: { command: 'git commit -am fix' } },
    usage(prompts[0]!, 1),
  );
  items.push(`Bash ${JSON.stringify({ command: 'git commit -am fix' })}`, '[main 1a2b] fix');
  prompts.push(prompt());
  user([{ type: 'tool_result', tool_use_id: 'g1', content: '[main 1a2b] fix' }]);
  assistant('m3', { type: 'text', text: 'Committed.' }, usage(prompts[1]!, 2));
  items.push('Committed.', 'Now rename f to g in a.ts');
  prompts.push(prompt());
  user('Now rename f to g in a.ts');
  const edit = { file_path: '/r/a.ts', old_string: 'def f', new_string: 'def g' };
  assistant('m4', { type: 'tool_use', id: 'e1', name: 'Edit', input: edit }, usage(prompts[2]!, 3));
  items.push(`Edit ${JSON.stringify(edit)}`, 'The file has been updated.');
  prompts.push(prompt());
  user([{ type: 'tool_result', tool_use_id: 'e1', content: 'The file has been updated.' }]);
  assistant('m5', { type: 'text', text: 'Renamed.' }, usage(prompts[3]!, 4));
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

function options(policy: EvictionPolicy, sessionId: string): SimulateWhatIfOptions {
  return {
    policy,
    archive,
    reader: { readFile: readArchiveFile },
    sessionId,
    counter,
    priceOf: () => price,
    compactionPoint: 167_000,
    source: 'claude-code',
  };
}

describe('simulateWhatIf', () => {
  const log = readClaudeCodeHistory(sessionLog());

  it('is the recorded session exactly when the policy evicts nothing', async () => {
    const report = await simulateWhatIf(log, options(new EvictionPolicy({ boundaries: [] }), 'identity'));
    expect(report.calibration.meanAbsErrorPercent).toBeLessThan(1e-6);
    for (const call of report.calls) {
      const recorded = log.calls[call.index]!.usage!;
      expect(call.whatIfPromptTokens).toBe(recorded.promptTokens);
      expect(call.whatIfCacheReadTokens).toBe(recorded.cacheReadTokens);
      expect(call.whatIfCostUsd).toBeCloseTo(callCost(recorded, price, 'claude-code')!, 12);
    }
    expect(report.policy.promptTokens).toBe(report.real.promptTokens);
    expect(report.savedPercent).toBe(0);
    expect(report.costSavedPercent).toBe(0);
    expect(report.archiveVerified).toBe(true);
    expect(report.policy.archivedItems).toBe(0);
  });

  it('evicts the read one request after the commit, rewrites the history from the system prompt, and reads the file again for the edit', async () => {
    const report = await simulateWhatIf(
      log,
      options(new EvictionPolicy({ minFreedTokens: 0, evictWhenCold: false }), 'evict'),
    );
    // The commit's result is in call 2's history: the batch changes the history from call 3 on, as the proxy's does.
    expect(report.evictions).toEqual([
      expect.objectContaining({ beforeCallIndex: 3, taskId: 'subtask-1', boundary: 'command', items: 1 }),
    ]);
    const freed = report.evictions[0]!.tokensFreed;
    expect(freed).toBeGreaterThan(counter.count(fileText) - 120);
    const recorded = log.calls.map((call) => call.usage!.promptTokens);
    for (const index of [0, 1, 2]) expect(report.calls[index]?.whatIfPromptTokens).toBe(recorded[index]);
    // Call 3's Edit needs the evicted file: an extra call (the history with the tombstone) reads it back first. That
    // call's request differs from the agent's at the third message block, and Claude Code's breakpoints are on the
    // system prompt and the last message block only: it reads the 10,000-token system prompt and writes the rest.
    // The edit's own call then reads all the extra call sent (its entry at its last block, 2 blocks back).
    expect(report.calls[3]?.rereads).toBe(1);
    expect(report.calls[3]?.whatIfCacheReadTokens).toBe(recorded[3]! - freed);
    const readBack =
      counter.count(`Read ${JSON.stringify({ file_path: '/r/a.ts' })}`) + counter.count(fileText);
    expect(report.policy.rereads).toBe(1);
    expect(report.policy.rereadTokens).toBe(counter.count(fileText));
    expect(report.calls[3]?.whatIfPromptTokens).toBe(recorded[3]! - freed + readBack);
    expect(report.calls[4]?.whatIfPromptTokens).toBe(recorded[4]! - freed + readBack);
    // Five recorded calls and one extra.
    expect(report.policy.promptTokens).toBe(
      recorded[0]! +
        recorded[1]! +
        recorded[2]! +
        (recorded[3]! - freed) +
        (recorded[3]! - freed + readBack) +
        (recorded[4]! - freed + readBack),
    );
    expect(report.archiveVerified).toBe(true);
    expect(report.policy.archivedItems).toBe(1);
    expect(report.policy.archivedBytes).toBe(Buffer.byteLength(fileText));
  });

  it('falls back to a recap above the threshold, archives what it replaced, and checks it against the log', async () => {
    const policy = new EvictionPolicy({ recapAbovePercent: 5, keepTokens: 50, boundaries: [] });
    // Off by default (the proxy makes no recap): nothing happens.
    const off = await simulateWhatIf(log, { ...options(policy, 'no-recap'), compactionPoint: 200_000 });
    expect(off.policy.recaps).toBe(0);
    expect(off.policy.promptTokens).toBe(off.real.promptTokens);
    const report = await simulateWhatIf(log, {
      ...options(policy, 'recap'),
      compactionPoint: 200_000,
      recap: true,
    });
    // The what-if's own recap, named as such: not a compaction of the agent's, never one "avoided".
    expect(report.policy.recaps).toBeGreaterThanOrEqual(1);
    expect(report.policy.compactions).toBe(0);
    expect(report.policy.archivedItems).toBeGreaterThan(0);
    expect(report.archiveVerified).toBe(true);
    // The recap replaced the file's text: later prompts are smaller than the recorded ones.
    expect(report.calls.at(-1)!.whatIfPromptTokens).toBeLessThan(log.calls.at(-1)!.usage!.promptTokens);
  });

  it('says the archive is not verified when a record read back differs from the log', async () => {
    const tampering = {
      readFile: async (path: string) =>
        (await readArchiveFile(path)).map((record) => ({ ...record, content: `${record.content} ` })),
    };
    const report = await simulateWhatIf(log, {
      ...options(new EvictionPolicy({ minFreedTokens: 0, evictWhenCold: false }), 'tampered'),
      reader: tampering,
    });
    expect(report.archiveVerified).toBe(false);
    expect(report.archiveFailures[0]).toMatch(/differ from line \d+ of the log/);
  });
});

describe('callCost', () => {
  it('prices 1-hour cache writes at twice the input price and 5-minute ones at the cache-write price', () => {
    const tokens = {
      promptTokens: 1_000_000,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 1_000_000,
      completionTokens: 0,
      reasoningTokens: 0,
    };
    // claude-opus-4-6: input 5, cache write (5 minutes) 6.25 USD per million.
    expect(callCost(tokens, price, 'claude-code')).toBeCloseTo(10, 10);
    expect(
      callCost({ ...tokens, cacheWrite5mTokens: 1_000_000, cacheWrite1hTokens: 0 }, price, 'claude-code'),
    ).toBeCloseTo(6.25, 10);
    expect(callCost(tokens, null, 'claude-code')).toBeNull();
  });
});

describe('whatIfCallCost', () => {
  // A price with no cached input (the OpenHands trajectories' llama-4-maverick through OpenRouter): 0.15 / 0.6.
  const uncachedPrice = { input: 0.15, output: 0.6 };
  const tokens = {
    promptTokens: 1_000_000,
    cacheReadTokens: 400_000,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    completionTokens: 100_000,
    reasoningTokens: 0,
  };

  it('bills the reads as input when the price has no cache-read price, so the call stays in the total', () => {
    // Regression: such a call had no cost (callCost is null), fell out of the what-if's total and kept its recorded
    // cost in the real one (an OpenHands trajectory 6.6% fewer tokens showed 73.9% lower cost with trim at arrival).
    expect(callCost(tokens, uncachedPrice, 'openhands')).toBeNull();
    // 1,000,000 input at 0.15 and 100,000 output at 0.6 per million.
    expect(whatIfCallCost(tokens, uncachedPrice, 'openhands')).toBeCloseTo(0.15 + 0.06, 10);
  });

  it('is callCost wherever that prices the call, and null without a price', () => {
    expect(whatIfCallCost(tokens, price, 'claude-code')).toBe(callCost(tokens, price, 'claude-code'));
    expect(whatIfCallCost(tokens, null, 'claude-code')).toBeNull();
  });
});
