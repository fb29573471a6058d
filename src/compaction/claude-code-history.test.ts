import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveStore } from '../store/archive.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { fromAnthropicMessages } from './anthropic-messages.js';
import { claudeCodeConversations } from './claude-code-history.js';
import { compactHistory } from './compact-history.js';
import { DEFAULT_KEEP_TOKENS } from './flush.js';
import { countHistoryTokens, type HistoryItem, isTurnStart } from './history-item.js';

// A Claude Code session on claude-opus-4-6 with one automatic compaction (test/fixtures/traces/SOURCES.md).
const LONG = new URL(
  '../../test/fixtures/traces/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  import.meta.url,
);
const SMALL = new URL('../../test/fixtures/traces/claude-code/small-sonnet-session.jsonl', import.meta.url);
const counter = createTokenCounter();

function toolUses(history: readonly HistoryItem[]): number {
  return history.filter((item) => item.kind === 'tool-call').length;
}

let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-cc-'));
  archive = new ArchiveStore({ root });
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('claudeCodeConversations', () => {
  it('splits a log at its compaction boundary and joins the lines of one API message', () => {
    const conversations = claudeCodeConversations(readFileSync(LONG, 'utf8'));
    expect(conversations).toHaveLength(2);
    const [first, second] = conversations.map((conversation) => fromAnthropicMessages(conversation));
    // Counted in the log with jq: 69 tool_use blocks before the compact_boundary line, 81 after.
    expect(toolUses(first ?? [])).toBe(69);
    expect(toolUses(second ?? [])).toBe(81);
    // Assistant lines sharing a message.id are one message: no two assistant messages in a row share an id,
    // and no assistant message follows another directly (a tool result or user text always comes between).
    for (const { messages } of conversations) {
      for (let index = 1; index < messages.length; index += 1) {
        expect(messages[index]?.role === 'assistant' && messages[index - 1]?.role === 'assistant').toBe(
          false,
        );
      }
    }
  });

  it('skips lines that are not JSON (a log still being written ends in a partial line)', () => {
    const text = `${readFileSync(SMALL, 'utf8')}{"type":"assistant","message":{"ro`;
    expect(claudeCodeConversations(text)).toHaveLength(1);
  });
});

describe('compacting recorded Claude Code histories (the kept tail is measured in tokens)', () => {
  const cases = [
    ['the long session before its compaction (2 user requests, 69 tool calls)', LONG, 0],
    ['the long session after its compaction (150 tool calls in all)', LONG, 1],
    ['the small sonnet session', SMALL, 0],
  ] as const;

  it.each(cases)('compacts %s with the default options, tool pairs intact', async (_name, file, index) => {
    const conversation = claudeCodeConversations(readFileSync(file, 'utf8'))[index];
    const history = fromAnthropicMessages(conversation);
    const sessionId = `cc-${index}-${history.length}`;
    const outcome = await compactHistory(history, { counter, sessionId, archive });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.after.tokens).toBeLessThan(outcome.before.tokens * 0.95);
    const recapAt = outcome.messages.findIndex((item) => item.kind === 'user' && item.recap === true);
    const tail = outcome.messages.slice(recapAt + 1);
    // The tail is within the token budget, unless it is a single step larger than the budget.
    const tailTokens = countHistoryTokens(tail, counter);
    const steps = tail.filter(
      (item, at) => item.kind !== 'tool-result' && tail[at - 1]?.kind === 'tool-result',
    );
    expect(tailTokens <= DEFAULT_KEEP_TOKENS || steps.length === 0).toBe(true);
    // No tool result without its call, no call without its result.
    const calls = new Set(tail.flatMap((item) => (item.kind === 'tool-call' ? [item.callId] : [])));
    const results = new Set(tail.flatMap((item) => (item.kind === 'tool-result' ? [item.callId] : [])));
    expect([...results].filter((id) => !calls.has(id))).toEqual([]);
    // Every replaced user request is listed in the recap with the archive record that holds it.
    const recap = outcome.messages[recapAt];
    const text = recap?.kind === 'user' ? recap.text : '';
    // Claude Code writes some user lines itself (command wrappers, interruption markers): not requests.
    const replacedRequests = history
      .slice(0, history.length - tail.length)
      .filter(
        (item) =>
          item.kind === 'user' &&
          isTurnStart(item) &&
          !/^(<[a-z-]+>|\[Request interrupted|Caveat: )/.test(item.text),
      );
    expect(replacedRequests.length).toBeGreaterThan(0);
    const records = await archive.readArchive(sessionId, outcome.compactionId);
    for (const request of replacedRequests) {
      expect(text).toContain(`[${request.id}] `);
      expect(records.some((record) => record.itemId === request.id)).toBe(true);
    }
    expect(text.length).toBeLessThan(20_000);
  });

  it("lists the small session's four real requests, its last plan and its files, and no command wrappers", async () => {
    const history = fromAnthropicMessages(claudeCodeConversations(readFileSync(SMALL, 'utf8'))[0]);
    const outcome = await compactHistory(history, { counter, sessionId: 'cc-small-recap' });
    if (!outcome.ok) throw new Error(outcome.reason);
    const recap = outcome.messages.find((item) => item.kind === 'user' && item.recap === true);
    const text = recap?.kind === 'user' ? recap.text : '';
    expect(text.match(/^- \[m\d+\.\d+\] /gm)).toEqual([
      '- [m0.0] ',
      '- [m13.0] ',
      '- [m45.0] ',
      '- [m53.0] ',
    ]);
    expect(text).not.toContain('<command-name>');
    expect(text).toContain('Plan (as last written):\n- [completed] ');
    expect(text).toContain('- /home/wei/repo/claude-code/go.mod');
  });

  it('with the tail counted in turns only, the long history cannot be compacted (the defect this fixes)', async () => {
    const history = fromAnthropicMessages(claudeCodeConversations(readFileSync(LONG, 'utf8'))[0]);
    const outcome = await compactHistory(history, {
      counter,
      sessionId: 'cc-turns-only',
      keepTokens: Number.MAX_SAFE_INTEGER,
    });
    expect(outcome).toMatchObject({ ok: false, reason: 'nothing older than the kept turns to replace' });
  });
});
