import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { ArchiveStore } from '../store/archive.js';
import { fromAnthropicMessages, toAnthropicMessages } from './anthropic-messages.js';
import type { ArchiveEntry, ArchiveSink } from './archive-sink.js';
import { evictTask } from './evict-task.js';
import type { HistoryItem } from './history-item.js';
import { toModelMessages } from './model-messages.js';
import { toOpenAIMessages } from './openai-messages.js';
import { buildHistoryIndex } from './plan-eviction.js';

let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-evict-'));
  archive = new ArchiveStore({ root });
});
afterAll(() => rm(root, { recursive: true, force: true }));

const log = `npm test\n${'✓ passes 🦀 ünïcödé\n'.repeat(200)}`;
const fileBody = `export const value = 1;\n${'// filler line\n'.repeat(100)}`;

function sessionHistory(): HistoryItem[] {
  return [
    { kind: 'system', id: 's', text: 'You are a coding agent.' },
    { kind: 'user', id: 'u1', text: 'Run the tests and fix src/a.ts' },
    { kind: 'tool-call', id: 'c1', callId: 'c1', name: 'bash', input: { command: 'npm test' }, taskId: 't1' },
    { kind: 'tool-result', id: 'c1:result', callId: 'c1', name: 'bash', content: log, taskId: 't1' },
    {
      kind: 'tool-call',
      id: 'c2',
      callId: 'c2',
      name: 'write_file',
      input: { path: 'src/a.ts', content: fileBody },
      taskId: 't1',
    },
    {
      kind: 'tool-result',
      id: 'c2:result',
      callId: 'c2',
      name: 'write_file',
      content: '{"ok":true}',
      format: 'json',
      taskId: 't1',
    },
    {
      kind: 'tool-call',
      id: 'c3',
      callId: 'c3',
      name: 'read_file',
      input: { path: 'src/b.ts' },
      taskId: 't2',
    },
    { kind: 'tool-result', id: 'c3:result', callId: 'c3', name: 'read_file', content: log, taskId: 't2' },
    { kind: 'assistant', id: 'a1', text: 'Tests pass.' },
  ];
}

describe('evictTask', () => {
  it("archives the task's long contents and leaves tombstones that say where they live", async () => {
    const history = sessionHistory();
    const result = await evictTask(history, 't1', { archive, sessionId: 'sess-1' });
    const path = join(root, 'sess-1', 't1.log');
    expect(result.archived).toEqual([path]);
    expect(result.evicted).toBe(2);
    expect(result.history[3]).toEqual({
      kind: 'tool-result',
      id: 'c1:result',
      callId: 'c1',
      name: 'bash',
      content: `[Task t1 completed: output evicted to archive] ${path}#c1:result`,
      taskId: 't1',
      archivedTo: `${path}#c1:result`,
    });
    expect(result.history[4]).toMatchObject({
      input: { evicted: `[Task t1 completed: output evicted to archive] ${path}#c2` },
      archivedTo: `${path}#c2`,
    });
    const records = await archive.readArchive('sess-1', 't1');
    expect(records.map(({ itemId, field }) => [itemId, field])).toEqual([
      ['c1:result', 'content'],
      ['c2', 'input'],
    ]);
    expect(records[0]?.content === log).toBe(true);
    expect(JSON.parse(records[1]?.content ?? '')).toEqual({ path: 'src/a.ts', content: fileBody });
  });

  it('never removes or reorders items, shares the untouched ones and leaves the input history as it was', async () => {
    const history = sessionHistory();
    const snapshot = structuredClone(history);
    const result = await evictTask(history, 't1', { archive, sessionId: 'sess-2' });
    expect(history).toEqual(snapshot);
    expect(result.history.map((item) => item.id)).toEqual(history.map((item) => item.id));
    for (const position of [0, 1, 2, 5, 6, 7, 8]) expect(result.history[position]).toBe(history[position]);
  });

  it('keeps every tool call paired with its result for OpenAI, Anthropic and the AI SDK', async () => {
    const { history } = await evictTask(sessionHistory(), 't1', { archive, sessionId: 'sess-3' });
    const openai = toOpenAIMessages(history);
    const calls = openai.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [],
    );
    const results = openai.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : []));
    expect(results).toEqual(calls);
    const anthropic = toAnthropicMessages(history);
    expect(
      fromAnthropicMessages(anthropic)
        .filter((item) => item.kind === 'tool-result')
        .map((item) => item.id),
    ).toEqual(['c1:result', 'c2:result', 'c3:result']);
    const seen = new Set<string>();
    const parts = toModelMessages(history).flatMap((message) =>
      Array.isArray(message.content) ? message.content : [],
    );
    for (const part of parts) {
      if (part.type === 'tool-call') seen.add(part.toolCallId as string);
      if (part.type === 'tool-result') expect(seen.has(part.toolCallId as string)).toBe(true);
    }
    expect(seen).toEqual(new Set(['c1', 'c2', 'c3']));
  });

  it('does nothing the second time: archived items are not archived again', async () => {
    const first = await evictTask(sessionHistory(), 't1', { archive, sessionId: 'sess-4' });
    const second = await evictTask(first.history, 't1', { archive, sessionId: 'sess-4' });
    expect(second).toMatchObject({ evicted: 0, archived: [] });
    expect(second.history).toEqual(first.history);
    expect(await archive.readArchive('sess-4', 't1')).toHaveLength(2);
  });

  it('leaves the history untouched and propagates the error when the archive write fails', async () => {
    const failing: ArchiveSink = {
      append: async () => {
        throw new Error('disk full');
      },
    };
    const history = sessionHistory();
    const snapshot = structuredClone(history);
    await expect(evictTask(history, 't1', { archive: failing, sessionId: 's' })).rejects.toThrow('disk full');
    expect(history).toEqual(snapshot);
  });

  it('writes the archive before it builds a single tombstone', async () => {
    const order: string[] = [];
    const recording: ArchiveSink = {
      append: async (_session, _task, entries: readonly ArchiveEntry[]) => {
        order.push(`append ${entries.length}`);
        return { path: '/archive/s/t1.log', records: entries.length };
      },
    };
    const counter = {
      name: 'spy',
      estimate: true,
      count: (text: string) => {
        order.push('count');
        return text.length;
      },
    };
    await evictTask(sessionHistory(), 't1', { archive: recording, sessionId: 's', counter });
    expect(order[0]).toBe('append 2');
  });

  it('counts only the evicted items, before and after, when given a counter', async () => {
    let calls = 0;
    const counter = {
      name: 'chars',
      estimate: true,
      count: (text: string) => {
        calls += 1;
        return text.length;
      },
    };
    const sink: ArchiveSink = {
      append: async (_s, _t, entries) => ({ path: '/a/s/t1.log', records: entries.length }),
    };
    const history = sessionHistory();
    const result = await evictTask(history, 't1', {
      archive: sink,
      sessionId: 's',
      counter,
      index: buildHistoryIndex(history),
    });
    const resultTombstone = '[Task t1 completed: output evicted to archive] /a/s/t1.log#c1:result';
    const inputTombstone = '[Task t1 completed: output evicted to archive] /a/s/t1.log#c2';
    const inputBefore = `write_file ${JSON.stringify({ path: 'src/a.ts', content: fileBody })}`;
    const inputAfter = `write_file ${JSON.stringify({ evicted: inputTombstone })}`;
    expect(result.tokensBefore).toBe(log.length + inputBefore.length);
    expect(result.tokensAfter).toBe(resultTombstone.length + inputAfter.length);
    expect(calls).toBe(4);
  });

  it('rejects an invalid session or task id before anything is written', async () => {
    const sink: ArchiveSink = { append: async () => expect.unreachable() };
    await expect(
      evictTask(sessionHistory(), 't1', { archive: sink, sessionId: '../x' }),
    ).rejects.toBeInstanceOf(BarometerValidationError);
    await expect(evictTask(sessionHistory(), 'a/b', { archive: sink, sessionId: 's' })).rejects.toThrow(
      /taskId/,
    );
  });
});
