import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveStore } from '../store/archive.js';
import { compactOpenAIMessages } from './compact-messages.js';

let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-compact-messages-'));
  archive = new ArchiveStore({ root });
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** An agent session as a caller sends it, with fields barometer does not model and keys in an unusual order. */
function history(): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [
    { content: 'You are a careful coding agent.', role: 'system' },
  ];
  for (let turn = 0; turn < 4; turn += 1) {
    messages.push(
      { role: 'user', content: [{ type: 'text', text: `Step ${turn}: run the tests` }], name: 'dev' },
      {
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: [
          {
            id: `call_${turn}`,
            type: 'function',
            function: { name: 'run', arguments: '{"cmd": "npm test"}' },
          },
        ],
      },
      {
        tool_call_id: `call_${turn}`,
        role: 'tool',
        content: `FAIL src/invoice.test.ts turn ${turn}\n  expected "10.01" got "10.00"\n`.repeat(60),
      },
      { role: 'assistant', content: `Turn ${turn}: the rounding is per line.` },
    );
  }
  return messages;
}

describe('compactOpenAIMessages archive', () => {
  it('holds each replaced message as the caller sent it: grep finds a tool output, and it reads back deep-equal', async () => {
    // Regression: the archive held barometer's internal items, a tool output JSON inside JSON, escaped twice.
    const given = history();
    const result = await compactOpenAIMessages(given, { sessionId: 'as-sent', keepTurns: 1, archive });
    if (!result.ok) throw new Error(result.reason);
    const file = await readFile(result.archives[0] as string, 'utf8');
    expect(file).toContain('FAIL src/invoice.test.ts turn 0');
    expect(file).toContain(
      '{"tool_call_id":"call_0","role":"tool","content":"FAIL src/invoice.test.ts turn 0',
    );
    const records = await archive.readArchive('as-sent', 'compaction-1');
    expect(records.map((record) => record.itemId)).toEqual([
      'message-1',
      'message-2',
      'call_0:result',
      'message-4',
      'message-5',
      'message-6',
      'call_1:result',
      'message-8',
      'message-9',
      'message-10',
      'call_2:result',
      'message-12',
    ]);
    for (const [index, record] of records.entries()) {
      expect(record).toMatchObject({ kind: 'message', field: 'message', json: true });
      expect(record.content === JSON.stringify(given[index + 1])).toBe(true);
      expect(JSON.parse(record.content)).toEqual(given[index + 1]);
    }
  });

  it('gives a tool message whose call id repeats its own id, message-<index>', async () => {
    // Turns 0 and 1 (both replaced) reuse one call id, as some agents do.
    const reused = new Set(['call_0', 'call_1']);
    const given = history().map((message) => {
      if (message.role === 'tool' && reused.has(message.tool_call_id as string))
        return { ...message, tool_call_id: 'call_x' };
      const calls = message.tool_calls as Array<{ id: string }> | undefined;
      if (!calls?.some((call) => reused.has(call.id))) return message;
      return { ...message, tool_calls: calls.map((call) => ({ ...call, id: 'call_x' })) };
    });
    const result = await compactOpenAIMessages(given, { sessionId: 'dup-calls', keepTurns: 1, archive });
    if (!result.ok) throw new Error(result.reason);
    const ids = (await archive.readArchive('dup-calls', 'compaction-1')).map((record) => record.itemId);
    expect(ids.filter((id) => id === 'call_x:result')).toHaveLength(1);
    expect(ids).toContain('message-7');
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps eviction archives holding the tool outputs themselves', async () => {
    const given = history().map((message) =>
      message.role === 'tool' && message.tool_call_id === 'call_0'
        ? { ...message, task_id: 'tests' }
        : message,
    );
    const result = await compactOpenAIMessages(
      { messages: given, tasks: [{ id: 'tests', summary: 'The rounding happens per line.' }] },
      { sessionId: 'evict', archive },
    );
    if (!result.ok) throw new Error(result.reason);
    const [record] = await archive.readArchive('evict', 'tests');
    expect(record).toMatchObject({ itemId: 'call_0:result', kind: 'tool-result', field: 'content' });
    expect(record?.content).toBe(given[3]?.content);
    expect(record?.json).toBeUndefined();
  });
});
