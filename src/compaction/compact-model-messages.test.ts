import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import { RECAP_HEADING } from './build-recap.js';
import { compactModelMessages } from './compact-model-messages.js';
import { fromModelMessages, readModelMessages } from './model-messages.js';

let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-model-messages-'));
  archive = new ArchiveStore({ root });
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A language model prompt (spec v3 shape: every user and assistant content an array) of `turns` tool turns. */
function prompt(turns: number) {
  const messages: Array<Record<string, unknown> & { role: string }> = [
    { role: 'system', content: 'You are a careful coding agent.' },
  ];
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push(
      {
        role: 'user',
        content: [{ type: 'text', text: `Step ${turn}: read src/module${turn}.ts` }],
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading it.' },
          {
            type: 'tool-call',
            toolCallId: `c${turn}`,
            toolName: 'read_file',
            input: { path: `m${turn}.ts` },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${turn}`,
            toolName: 'read_file',
            output: {
              type: 'text',
              value: `export const f${turn} = (x: number) => x * ${turn};\n`.repeat(60),
            },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: `Module ${turn} multiplies by ${turn}.` }] },
    );
  }
  return messages;
}

describe('compactModelMessages', () => {
  it('keeps the system message and the last turns as the caller’s own objects, and puts a marked recap before them', async () => {
    const messages = prompt(6);
    const result = await compactModelMessages(messages, { archive, sessionId: 'ai-1', keepTurns: 2 });
    if (!result.ok) throw new Error(result.reason);
    expect(result.keptFrom).toBe(1 + 4 * 4);
    expect(result.messages[0]).toBe(messages[0]);
    expect(result.messages[1]).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: expect.stringContaining(RECAP_HEADING) }],
      providerOptions: { barometer: { recap: 'recap-1' } },
    });
    // The kept tail is the caller's objects, untouched (their cache marks included).
    expect(result.messages.slice(2)).toHaveLength(messages.length - result.keptFrom);
    result.messages.slice(2).forEach((message, offset) => {
      expect(message).toBe(messages[result.keptFrom + offset]);
    });
    expect(result.after.tokens).toBeLessThan(result.before.tokens);
  });

  it('archives every replaced message whole and as given, before answering', async () => {
    const messages = prompt(5);
    const result = await compactModelMessages(messages, { archive, sessionId: 'ai-2', keepTurns: 1 });
    if (!result.ok) throw new Error(result.reason);
    const records = await readArchiveFile(result.archives[0]!);
    expect(records.map((record) => record.itemId)).toEqual(
      Array.from({ length: result.keptFrom - 1 }, (_, index) => `message-${index + 1}`),
    );
    for (const record of records) {
      const index = Number(record.itemId.split('-')[1]);
      expect(JSON.parse(record.content)).toEqual(messages[index]);
    }
  });

  it('never keeps a tool result without its call', async () => {
    const messages = prompt(4);
    // A token budget so small that the kept tail must be shortened inside the last turn.
    const result = await compactModelMessages(messages, {
      archive,
      sessionId: 'ai-3',
      keepTurns: 1,
      keepTokens: 10,
    });
    if (!result.ok) throw new Error(result.reason);
    const kept = result.messages.slice(2);
    expect(kept[0]?.role).toBe('assistant');
    const calls = new Set(
      kept.flatMap((message) =>
        Array.isArray(message.content)
          ? (message.content as Array<{ type: string; toolCallId?: string }>)
              .filter((part) => part.type === 'tool-call')
              .map((part) => part.toolCallId)
          : [],
      ),
    );
    for (const message of kept.filter((candidate) => candidate.role === 'tool'))
      for (const part of message.content as Array<{ toolCallId: string }>)
        expect(calls).toContain(part.toolCallId);
  });

  it('reads its own recap back: a second compaction numbers past it and carries it over', async () => {
    const first = await compactModelMessages(prompt(6), { archive, sessionId: 'ai-4', keepTurns: 2 });
    if (!first.ok) throw new Error(first.reason);
    const grown = [...first.messages, ...prompt(8).slice(1 + 6 * 4)];
    const { items } = readModelMessages(grown);
    expect(items[1]).toMatchObject({ kind: 'user', id: 'recap-1', recap: true });
    const second = await compactModelMessages(grown, { archive, sessionId: 'ai-4', keepTurns: 1 });
    if (!second.ok) throw new Error(second.reason);
    expect(second.compactionId).toBe('compaction-2');
    expect(second.messages[1]).toMatchObject({ providerOptions: { barometer: { recap: 'recap-2' } } });
  });

  it('refuses a compaction that saves too little, and archives nothing', async () => {
    const result = await compactModelMessages(prompt(2), { archive, sessionId: 'ai-5', keepTurns: 2 });
    expect(result).toMatchObject({ ok: false, code: 'BR_ERR_COMPACTION_REFUSED' });
  });

  it('rewrites only a message the cut falls inside, from its kept parts', async () => {
    const messages = [
      ...prompt(4),
      {
        role: 'user',
        content: [
          { type: 'file', mediaType: 'image/png', data: new Uint8Array([137, 80, 78, 71]) },
          { type: 'text', text: 'What does this screenshot show?' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'A chart.' }] },
    ];
    const result = await compactModelMessages(messages, { archive, sessionId: 'ai-6', keepTurns: 1 });
    if (!result.ok) throw new Error(result.reason);
    // The image came before the turn's first text, so it is archived with its message; the text is kept.
    expect(result.messages.at(-2)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'What does this screenshot show?' }],
    });
    expect(result.messages.at(-1)).toBe(messages.at(-1));
    const records = await readArchiveFile(result.archives[0]!);
    const image = JSON.parse(records.at(-1)!.content) as { content: Array<{ data?: string }> };
    expect(image.content[0]?.data).toBe(Buffer.from([137, 80, 78, 71]).toString('base64'));
  });
});

describe('readModelMessages', () => {
  it('says which message each item came from, and reads tool approvals and denied executions', () => {
    const { items, sources } = readModelMessages([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 't', toolName: 'rm', input: { path: '/' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'a1', approved: false },
          {
            type: 'tool-result',
            toolCallId: 't',
            toolName: 'rm',
            output: { type: 'execution-denied', reason: 'not approved' },
          },
        ],
      },
    ]);
    expect(sources).toEqual([0, 1, 2]);
    expect(items[2]).toEqual({
      kind: 'tool-result',
      id: 't:result',
      callId: 't',
      name: 'rm',
      content: 'not approved',
      isError: true,
    });
    expect(fromModelMessages([{ role: 'user', content: 'x' }])).toEqual(
      readModelMessages([{ role: 'user', content: 'x' }]).items,
    );
  });
});
