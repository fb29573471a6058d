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
