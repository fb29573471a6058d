import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvictionPolicy } from '../compaction/eviction-policy.js';
import { findModel } from '../models/find-model.js';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { readTrace } from '../usage/test-helpers/traces.js';
import { readClaudeCodeHistory } from './read-claude-code-history.js';
import { readCodexHistory } from './read-codex-history.js';
import { simulateWhatIf } from './simulate-what-if.js';

const counter = createTokenCounter();
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-compactions-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/**
 * The excerpt of a real session around its compaction (test/fixtures/traces/SOURCES.md): calls 0–4 before it, 5–9
 * after. The recorded compaction is the agent's own (`trigger: auto`); the same lines with `trigger: manual` are the
 * session as it would read had the user typed `/compact` there (Claude Code writes nothing else differently).
 */
const EXCERPT = readTrace('claude-code/fa812bfe-compaction-excerpt.jsonl');
const MANUAL = EXCERPT.replace(
  '"compactMetadata":{"trigger":"auto"',
  '"compactMetadata":{"trigger":"manual"',
);

/**
 * The policy without its early recap (the excerpt starts at 99% of the window, where the default recaps at once):
 * what the history does at the compaction is what is looked at.
 */
async function whatIf(text: string, sessionId: string) {
  const log = readClaudeCodeHistory(text);
  const report = await simulateWhatIf(log, {
    policy: new EvictionPolicy({ recapAbovePercent: 100 }, counter),
    archive: new ArchiveStore({ root, durable: false }),
    reader: { readFile: readArchiveFile },
    sessionId,
    counter,
    priceOf: (model) => findModel(model ?? '')?.price ?? null,
    compactionPoint: 167_117,
    source: 'claude-code',
  });
  return { log, report };
}

describe('compactions in the what-if', () => {
  it('reads the trigger of each compaction: the user’s /compact is manual, the agent’s own is auto', () => {
    expect(MANUAL).not.toBe(EXCERPT);
    expect(readClaudeCodeHistory(EXCERPT).segmentStarts).toEqual([{ trigger: 'auto', line: 45 }]);
    expect(readClaudeCodeHistory(MANUAL).segmentStarts).toEqual([{ trigger: 'manual', line: 45 }]);
  });

  it('a manual compaction happens at the same call: the prompt falls there to the recorded one (the summary as history)', async () => {
    const { log, report } = await whatIf(MANUAL, 'manual');
    const first = log.calls.findIndex((call) => call.segment === 1);
    expect(first).toBe(5);
    const before = report.calls[first - 1]!.whatIfPromptTokens!;
    const after = report.calls[first]!.whatIfPromptTokens!;
    // Both histories are the recorded summary and what follows it: the same prompt as the recorded call.
    expect(after).toBe(log.calls[first]!.usage!.promptTokens);
    expect(after).toBeLessThan(before / 3);
    expect(report.policy.compactions).toBe(1);
    expect(report.real.compactions).toBe(1);
    expect(report.calibration.segments.map((segment) => segment.start)).toEqual([
      'start',
      'manual compaction',
    ]);
    expect(report.archiveVerified).toBe(true);
  });

  it('an automatic compaction does not happen: the history goes on, and its prompt stays above the summary’s', async () => {
    const { log, report } = await whatIf(EXCERPT, 'auto');
    const first = log.calls.findIndex((call) => call.segment === 1);
    expect(report.calls[first]!.whatIfPromptTokens!).toBeGreaterThan(
      log.calls[first]!.usage!.promptTokens * 3,
    );
    expect(report.calibration.segments.map((segment) => segment.start)).toEqual(['start', 'compaction']);
  });

  it('a Codex compaction is manual when it is a task of its own (/compact), automatic inside a working turn', () => {
    const line = (type: string, payload: object) =>
      JSON.stringify({ timestamp: '2026-02-24T09:00:00.000Z', type, payload });
    const compacted = line('compacted', { message: '', replacement_history: [] });
    const working = [
      line('event_msg', { type: 'task_started' }),
      line('event_msg', { type: 'user_message', message: 'go on' }),
      line('response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'go on' }],
      }),
      compacted,
    ];
    const own = [
      line('event_msg', { type: 'task_started' }),
      line('turn_context', { model: 'gpt-5.3-codex' }),
      compacted,
    ];
    expect(readCodexHistory(working.join('\n')).segmentStarts).toEqual([{ trigger: 'auto', line: 4 }]);
    expect(readCodexHistory(own.join('\n')).segmentStarts).toEqual([{ trigger: 'manual', line: 3 }]);
  });
});
