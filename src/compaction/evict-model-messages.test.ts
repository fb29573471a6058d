import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { evictModelMessages, withModelMessageEvictions } from './evict-model-messages.js';
import { EvictionPolicy } from './eviction-policy.js';

let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-evict-model-messages-'));
  archive = new ArchiveStore({ root });
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** One token per character: thresholds and sizes can be read off the texts. */
const chars: TokenCounter = { name: 'chars', estimate: true, count: (text) => text.length };
const policy = new EvictionPolicy({}, chars);

const LOG = 'line of build output\n'.repeat(300);
const PATCH = { file_path: 'src/a.ts', content: 'const a = 1;\n'.repeat(40) };
const cacheMark = { anthropic: { cacheControl: { type: 'ephemeral' } } };

/** A language model prompt: a build run and a write in a finished sub-task, closed by `git commit`, then more work. */
function prompt(log = LOG) {
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Fix the build.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Building.' },
        { type: 'tool-call', toolCallId: 'b1', toolName: 'bash', input: { command: 'npm run build' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'b1',
          toolName: 'bash',
          output: { type: 'text', value: log },
          providerOptions: cacheMark,
        },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'write_file', input: PATCH }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'w1',
          toolName: 'write_file',
          output: { type: 'text', value: 'ok' },
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'g1', toolName: 'bash', input: { command: 'git commit -am fix' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'g1',
          toolName: 'bash',
          output: { type: 'text', value: '[main 1a2b3c] fix' },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Committed.' }] },
  ];
}

describe('evictModelMessages', () => {
  it('tombstones a finished sub-task’s output and large arguments in their parts, archived first', async () => {
    const given = prompt();
    // minFreedTokens lowered: the two items free about 6,300 + 600 characters, less two tombstones.
    const result = await evictModelMessages(given, {
      policy: new EvictionPolicy({ minFreedTokens: 1000 }, chars),
      archive,
      sessionId: 'mm-1',
    });
    const path = join(root, 'mm-1', 'subtask-1.log');
    const tombstone = (item: string) =>
      `[Task subtask-1 completed: output evicted to archive] ${path}#${item}`;
    expect(result.decision.boundary).toMatchObject({ kind: 'command', end: 9 });
    // The build log (6,300 characters: over minResultTokens 64) and the write's input (`write_file ` and its JSON,
    // about 600 characters: over minArgumentTokens 128) go, b1's short input stays; the
    // commit's own call and result are short and stay.
    expect(result.evicted.map((eviction) => eviction.itemId)).toEqual(['b1:result', 'w1']);
    expect(result.messages[3]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'b1',
          toolName: 'bash',
          output: { type: 'text', value: tombstone('b1:result') },
          providerOptions: cacheMark,
        },
      ],
    });
    expect(result.messages[4]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'w1', toolName: 'write_file', input: { evicted: tombstone('w1') } },
      ],
    });
    // Every other message is the caller's own object; the caller's messages are not changed.
    for (const index of [0, 1, 2, 5, 6, 7, 8]) expect(result.messages[index]).toBe(given[index]);
    expect(given).toEqual(prompt());
    const records = await readArchiveFile(path);
    expect(records.map((record) => [record.itemId, record.content])).toEqual([
      ['b1:result', LOG],
      ['w1', JSON.stringify(PATCH)],
    ]);
  });

  it('re-applies an eviction only to the content it archived', async () => {
    const first = await evictModelMessages(prompt(), {
      policy: new EvictionPolicy({ minFreedTokens: 1000 }, chars),
      archive,
      sessionId: 'mm-2',
    });
    const again = withModelMessageEvictions(prompt(), first.evictions);
    expect(again.messages).toEqual(first.messages);
    expect(again.applied).toBe(2);
    // Another conversation reusing the call id b1 with other output: that output is not in the archive, it stays.
    const other = withModelMessageEvictions(prompt('a different log\n'.repeat(300)), first.evictions);
    expect(other.applied).toBe(1);
    expect((other.messages[3] as { content: Array<{ output: unknown }> }).content[0]?.output).toEqual({
      type: 'text',
      value: 'a different log\n'.repeat(300),
    });
  });

  it('leaves the messages as they are between boundaries and without an archive', async () => {
    const given = prompt();
    const first = await evictModelMessages(given, {
      policy: new EvictionPolicy({ minFreedTokens: 1000 }, chars),
      archive,
      sessionId: 'mm-3',
    });
    // The next call: the agent's answer is added, no boundary.
    const next = [...given, { role: 'assistant', content: [{ type: 'text', text: 'Anything else?' }] }];
    const later = await evictModelMessages(next, {
      policy,
      state: first.state,
      evictions: first.evictions,
      archive,
      sessionId: 'mm-3',
    });
    expect(later.evicted).toEqual([]);
    expect(later.kept).toBe(2);
    expect(later.messages.slice(0, given.length)).toEqual(first.messages);
    expect(later.messages.at(-1)).toBe(next.at(-1));
    expect(await readdir(join(root, 'mm-3'))).toEqual(['subtask-1.log']);

    const unarchived = await evictModelMessages(given, {
      policy: new EvictionPolicy({ minFreedTokens: 1000 }, chars),
    });
    expect(unarchived.decision.evict).not.toBeNull();
    expect(unarchived.evicted).toEqual([]);
    for (const [index, message] of unarchived.messages.entries()) expect(message).toBe(given[index]);
  });
});
