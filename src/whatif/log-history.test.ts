import { describe, expect, it } from 'vitest';
import { readSessionLog } from '../usage/read-session-log.js';
import { readTrace } from '../usage/test-helpers/traces.js';
import { redactedLength } from './log-history.js';
import { readClaudeCodeHistory } from './read-claude-code-history.js';
import { readCodexHistory } from './read-codex-history.js';

const CLAUDE = 'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const CODEX = 'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

describe('redactedLength', () => {
  it('reads the stated length of a redacted text, and nothing from a text as it was', () => {
    expect(redactedLength('[REDACTED_OUTPUT len=4045 sha=a6bf75ee]')).toBe(4045);
    expect(redactedLength('[REDACTED_TEXT len=0 sha=e3b0c442]')).toBe(0);
    expect(redactedLength('[REDACTED_TEXT] and more')).toBeUndefined();
    expect(redactedLength('ls -la')).toBeUndefined();
  });
});

describe('readClaudeCodeHistory', () => {
  const text = readTrace(CLAUDE);
  const history = readClaudeCodeHistory(text);
  const log = readSessionLog(text);

  it('finds the calls the usage reader finds, with the same ids and prompts', () => {
    expect(history.calls).toHaveLength(139);
    expect(history.calls.map((call) => call.id)).toEqual(log.calls.map((call) => call.id));
    for (const call of history.calls) {
      const usage = log.calls[call.index]?.usage;
      expect(usage?.available && usage.promptTokens).toBe(call.usage?.promptTokens);
    }
  });

  it('gives each call the items logged before its first line, and splits the cache writes by lifetime', () => {
    const first = history.calls[0];
    expect(first?.itemsBefore).toBe(1);
    expect(history.items[0]?.item).toMatchObject({
      kind: 'user',
      text: expect.stringContaining('bead spotter-dov'),
    });
    expect(first?.usage).toEqual({
      promptTokens: 26_450,
      cacheReadTokens: 11_442,
      cacheWrite5mTokens: 15_005,
      cacheWrite1hTokens: 0,
      completionTokens: expect.any(Number),
      reasoningTokens: 0,
    });
  });

  it('starts a segment at the compaction, whose summary is carried', () => {
    const after = history.calls[61];
    expect(history.calls[60]?.segment).toBe(0);
    expect(after?.segment).toBe(1);
    const firstOfSegment = history.items.find((entry) => entry.segment === 1);
    expect(firstOfSegment?.carried).toBe(true);
    expect(firstOfSegment?.item).toMatchObject({
      kind: 'user',
      text: expect.stringContaining('continued from a previous'),
    });
  });

  it('keeps where each item is logged, and tool pairs with their ids', () => {
    const result = history.items.find((entry) => entry.item.kind === 'tool-result');
    expect(result?.item).toMatchObject({ id: 'toolu_01UwLnYYWGBvukzh1QE6JpfM:result' });
    expect(text.split('\n')[(result?.line ?? 0) - 1]).toContain('toolu_01UwLnYYWGBvukzh1QE6JpfM');
    expect(history.items.some((entry) => entry.reasoning)).toBe(true);
  });
});

describe('readCodexHistory', () => {
  const text = readTrace(CODEX);
  const history = readCodexHistory(text);
  const log = readSessionLog(text);

  it('finds the calls the usage reader finds, with the same prompts', () => {
    expect(history.calls).toHaveLength(log.calls.length);
    expect(history.calls).toHaveLength(286);
    for (const call of history.calls) {
      const usage = log.calls[call.index]?.usage;
      expect(usage?.available && usage.promptTokens).toBe(call.usage?.promptTokens);
    }
  });

  it('ends a call’s prompt before the first item the model wrote for it', () => {
    // Lines 1–9: two developer messages, two user messages, two developer messages, the request; then the model's
    // reasoning (line 14) starts the first call's output.
    expect(history.calls[0]?.itemsBefore).toBe(7);
    expect(history.items[7]?.reasoning).toBe(true);
    expect(history.calls[0]?.signals).toEqual(['user-request']);
  });

  it('sizes redacted texts by their stated length and keeps the placeholder as content', () => {
    const output = history.items.find((entry) => entry.item.kind === 'tool-result');
    expect(output?.redactedChars).toBe(136);
    expect(output?.item).toMatchObject({ content: '[REDACTED_OUTPUT len=136 sha=b8890189]' });
  });

  it('carries the replacement history of the compaction into the next segment', () => {
    const carried = history.items.filter((entry) => entry.carried);
    const line = text.split('\n').find((candidate) => candidate.includes('"type":"compacted"')) ?? '';
    const replacement = JSON.parse(line).payload.replacement_history as Array<{ content?: unknown[] }>;
    expect(replacement).toHaveLength(40);
    // One item per content part of each message; the encrypted summary is one opaque item.
    const parts = replacement.reduce((sum, entry) => sum + (entry.content?.length ?? 1), 0);
    expect(carried).toHaveLength(parts);
    expect(new Set(carried.map((entry) => entry.segment))).toEqual(new Set([1]));
    expect(history.calls[184]?.segment).toBe(1);
    expect(history.calls[183]?.segment).toBe(0);
  });

  it('gives the next call the task_complete and user_message events logged since the last', () => {
    const signalled = history.calls.filter((call) => call.signals.includes('task-complete'));
    expect(signalled.length).toBeGreaterThan(25);
  });
});
