import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveStore } from '../store/archive.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ArchiveSink } from './archive-sink.js';
import { compactHistory } from './compact-history.js';
import { countHistoryTokens, type HistoryItem } from './history-item.js';

const counter: TokenCounter = {
  name: 'o200k_base',
  estimate: false,
  count: (text) => countTokens(text, { disallowedSpecial: new Set() }),
};

let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-compact-'));
  archive = new ArchiveStore({ root });
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A session of `turns` turns, each reading a long file: what a coding agent's context fills up with. */
function session(turns: number): HistoryItem[] {
  const items: HistoryItem[] = [{ kind: 'system', id: 'sys', text: 'You are a careful coding agent.' }];
  for (let turn = 1; turn <= turns; turn += 1) {
    items.push(
      { kind: 'user', id: `u${turn}`, text: `Step ${turn}: look at src/module${turn}.ts` },
      {
        kind: 'tool-call',
        id: `c${turn}`,
        callId: `c${turn}`,
        name: 'read_file',
        input: { path: `src/module${turn}.ts` },
      },
      {
        kind: 'tool-result',
        id: `c${turn}:result`,
        callId: `c${turn}`,
        content: `export function f${turn}(value: number) {\n  return value * ${turn};\n}\n`.repeat(80),
      },
      {
        kind: 'assistant',
        id: `a${turn}`,
        text: `Module ${turn} multiplies by ${turn}.\nDecision: keep f${turn} pure`,
      },
    );
  }
  return items;
}

describe('compactHistory', () => {
  it('keeps the system items and the last turns, replaces the rest by a recap, and reports both sizes', async () => {
    const history = session(6);
    const outcome = await compactHistory(history, { counter, sessionId: 'sess', keepTurns: 2, archive });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.messages.map((item) => item.id)).toEqual([
      'sys',
      'recap-1',
      'u5',
      'c5',
      'c5:result',
      'a5',
      'u6',
      'c6',
      'c6:result',
      'a6',
    ]);
    expect(outcome.before).toEqual({
      messages: history.length,
      tokens: countHistoryTokens(history, counter),
    });
    expect(outcome.after).toEqual({ messages: 10, tokens: countHistoryTokens(outcome.messages, counter) });
    expect(outcome.after.tokens).toBeLessThan(outcome.before.tokens);
    const recap = outcome.messages[1];
    expect(recap?.kind === 'user' && recap.text).toContain('Decision: keep f1 pure');
    const text = recap?.kind === 'user' ? recap.text : '';
    // Every replaced request, with the archive record that holds it whole; the kept ones are not repeated.
    expect(text).toContain(`Archive: ${join(root, 'sess', 'compaction-1.log')} holds every replaced message`);
    expect(text).toContain(
      [
        'User requests (oldest first; each whole in the archive):',
        '- [u1] Step 1: look at src/module1.ts',
        '- [u2] Step 2: look at src/module2.ts',
        '- [u3] Step 3: look at src/module3.ts',
        '- [u4] Step 4: look at src/module4.ts',
      ].join('\n'),
    );
    expect(text).not.toContain('Step 5');
    expect(text).toContain('Last conclusion: Module 4 multiplies by 4. Decision: keep f4 pure');
  });

  it('archives every replaced item whole, byte for byte, as compaction-<n>', async () => {
    const history = session(4);
    const outcome = await compactHistory(history, { counter, sessionId: 'sess-arch', keepTurns: 1, archive });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.compactionId).toBe('compaction-1');
    expect(outcome.archives).toEqual([join(root, 'sess-arch', 'compaction-1.log')]);
    const records = await archive.readArchive('sess-arch', 'compaction-1');
    const replaced = history.slice(1, 13);
    expect(records.map((record) => JSON.parse(record.content))).toEqual(replaced);
    expect(records.every((record) => record.field === 'item')).toBe(true);
  });

  it('refuses a compaction that would not shrink the context, and archives nothing', async () => {
    let appended = false;
    const spy: ArchiveSink = {
      append: async (_s, _t, entries) => {
        appended = true;
        return { path: '/x', records: entries.length };
      },
    };
    const tiny: HistoryItem[] = [
      { kind: 'user', id: 'u1', text: 'hi' },
      { kind: 'assistant', id: 'a1', text: 'hello' },
      { kind: 'user', id: 'u2', text: 'bye' },
    ];
    const outcome = await compactHistory(tiny, { counter, sessionId: 's', keepTurns: 1, archive: spy });
    expect(outcome).toMatchObject({ ok: false, code: 'BR_ERR_COMPACTION_REFUSED' });
    if (outcome.ok) return;
    expect(outcome.after.tokens).toBeGreaterThanOrEqual(outcome.before.tokens);
    expect(outcome.before.tokens).toBe(countHistoryTokens(tiny, counter));
    expect(appended).toBe(false);
  });

  it('refuses a compaction that saves less than minGainPercent of the tokens, with the figures', async () => {
    // What an agent loop acting on every verdict did: 38 compactions of 1-5 tokens each. Here the replaced
    // turn is small next to the two kept ones, so the recap saves a little, well under 5%.
    const history: HistoryItem[] = [
      { kind: 'user', id: 'u0', text: 'Read the notes.' },
      { kind: 'tool-call', id: 'c0', callId: 'c0', name: 'read_file', input: { path: 'NOTES' } },
      { kind: 'tool-result', id: 'c0:result', callId: 'c0', content: 'The build is green. '.repeat(30) },
      { kind: 'assistant', id: 'a0', text: 'Noted.' },
      ...session(2).slice(1),
    ];
    let appended = false;
    const spy: ArchiveSink = {
      append: async (_s, _t, entries) => {
        appended = true;
        return { path: '/x', records: entries.length };
      },
    };
    const outcome = await compactHistory(history, { counter, sessionId: 's', keepTurns: 2, archive: spy });
    if (outcome.ok) throw new Error('expected a refusal');
    const saved = outcome.before.tokens - outcome.after.tokens;
    expect(saved).toBeGreaterThan(0);
    expect(saved / outcome.before.tokens).toBeLessThan(0.05);
    expect(outcome.reason).toBe(
      `the compaction would save ${saved} of ${outcome.before.tokens} tokens (${((saved / outcome.before.tokens) * 100).toFixed(1)}%), less than minGainPercent 5%`,
    );
    expect(appended).toBe(false);
    // The caller may accept any gain.
    const accepted = await compactHistory(history, {
      counter,
      sessionId: 's',
      keepTurns: 2,
      minGainPercent: 0,
    });
    expect(accepted.ok).toBe(true);
  });

  it('rejects a minGainPercent outside 0-100, naming it', async () => {
    await expect(
      compactHistory(session(3), { counter, sessionId: 's', minGainPercent: 101 }),
    ).rejects.toMatchObject({ issues: [{ field: 'minGainPercent' }] });
  });

  it('refuses when nothing lies before the kept turns', async () => {
    const outcome = await compactHistory(session(2), { counter, sessionId: 's', keepTurns: 2 });
    expect(outcome).toMatchObject({
      ok: false,
      code: 'BR_ERR_COMPACTION_REFUSED',
      reason: expect.stringMatching(/nothing/),
    });
  });

  it('uses a summarizer when given one, with the replaced items', async () => {
    let seen: readonly HistoryItem[] = [];
    const summarizer = {
      summarize: async (items: readonly HistoryItem[]) => {
        seen = items;
        return 'LLM summary of the first turns.';
      },
    };
    const history = session(3);
    const outcome = await compactHistory(history, { counter, sessionId: 's', keepTurns: 1, summarizer });
    expect(seen.map((item) => item.id)).toEqual([
      'u1',
      'c1',
      'c1:result',
      'a1',
      'u2',
      'c2',
      'c2:result',
      'a2',
    ]);
    expect(outcome.ok && outcome.messages[1]).toEqual({
      kind: 'user',
      id: 'recap-1',
      text: 'LLM summary of the first turns.',
      recap: true,
    });
    expect(outcome.ok && outcome.archives).toEqual([]);
  });

  it('never cuts between a call and its result', async () => {
    const history = session(3);
    // Move turn 2's result after turn 3's request: keeping turn 3 must keep turn 2 as well.
    const [result2] = history.splice(7, 1);
    history.splice(9, 0, result2 as HistoryItem);
    const outcome = await compactHistory(history, { counter, sessionId: 's', keepTurns: 1 });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.messages.map((item) => item.id).slice(0, 3)).toEqual(['sys', 'recap-1', 'u2']);
  });

  it('gives two compactions of one session running at once different archives, each with its own items only', async () => {
    // Regression: both read "compaction-1 does not exist" and appended to it, mixing their items.
    const other = new ArchiveStore({ root });
    const first = session(4);
    const second = session(5).map((item) =>
      item.kind === 'user' ? { ...item, text: `${item.text} (second)` } : item,
    );
    const [one, two] = await Promise.all([
      compactHistory(first, { counter, sessionId: 'sess-race', keepTurns: 1, archive }),
      compactHistory(second, { counter, sessionId: 'sess-race', keepTurns: 1, archive: other }),
    ]);
    if (!one?.ok || !two?.ok) throw new Error('a compaction was refused');
    expect(new Set([one.compactionId, two.compactionId])).toEqual(new Set(['compaction-1', 'compaction-2']));
    expect(one.archives[0]).not.toBe(two.archives[0]);
    // Each recap is numbered like its archive.
    expect(one.messages[1]?.id).toBe(`recap-${one.compactionId.slice('compaction-'.length)}`);
    const firstRecords = await archive.readArchive('sess-race', one.compactionId);
    const secondRecords = await archive.readArchive('sess-race', two.compactionId);
    expect(firstRecords.map((record) => JSON.parse(record.content))).toEqual(first.slice(1, 13));
    expect(secondRecords.map((record) => JSON.parse(record.content))).toEqual(second.slice(1, 17));
  });

  it('gives a repeated item id a suffix, so every record of one compaction is addressable on its own', async () => {
    const history = session(4).map((item) => (item.kind === 'assistant' ? { ...item, id: 'answer' } : item));
    const outcome = await compactHistory(history, { counter, sessionId: 'sess-dup', keepTurns: 1, archive });
    if (!outcome.ok) throw new Error(outcome.reason);
    const ids = (await archive.readArchive('sess-dup', outcome.compactionId)).map((record) => record.itemId);
    expect(ids.filter((id) => id.startsWith('answer'))).toEqual(['answer', 'answer~2', 'answer~3']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('takes no archive name for a refused compaction', async () => {
    const tiny: HistoryItem[] = [
      { kind: 'user', id: 'u1', text: 'hi' },
      { kind: 'assistant', id: 'a1', text: 'hello' },
      { kind: 'user', id: 'u2', text: 'bye' },
    ];
    const outcome = await compactHistory(tiny, { counter, sessionId: 'sess-tiny', keepTurns: 1, archive });
    expect(outcome.ok).toBe(false);
    expect(await archive.has('sess-tiny', 'compaction-1')).toBe(false);
  });

  it('propagates an archive failure', async () => {
    const failing: ArchiveSink = {
      append: async () => {
        throw new Error('EIO');
      },
    };
    await expect(
      compactHistory(session(4), { counter, sessionId: 's', keepTurns: 1, archive: failing }),
    ).rejects.toThrow('EIO');
  });
});
