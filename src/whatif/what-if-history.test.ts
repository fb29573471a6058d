import { describe, expect, it } from 'vitest';
import type { HistoryItem } from '../compaction/history-item.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { WhatIfHistory } from './what-if-history.js';

/** One token a character: every size below is checked by counting characters. */
const chars: TokenCounter = { name: 'chars', estimate: true, count: (text) => text.length };
/** Tool tokens count twice, text once, and every item costs 3 tokens of framing. */
const fit = { toolScale: 2, textScale: 1, reasoningScale: 1, itemTokens: 3 };

const call: HistoryItem = {
  kind: 'tool-call',
  id: 'c1',
  callId: 'c1',
  name: 'Bash',
  input: { command: 'ls' },
};
const result: HistoryItem = { kind: 'tool-result', id: 'r1', callId: 'c1', content: 'a'.repeat(100) };
const request: HistoryItem = { kind: 'user', id: 'u1', text: 'list the files' };

describe('sizes', () => {
  it('sizes a pushed item by its local size and the fit, and keeps the total the sum', () => {
    const history = new WhatIfHistory(chars, fit);
    history.push(result, { tokens: 100, sizeClass: 'tool' }, 4);
    history.push(request, { tokens: 10, sizeClass: 'text' }, 5);
    // 100 × 2 + 3 and 10 × 1 + 3.
    expect(history.tokens).toEqual([203, 13]);
    expect(history.total).toBe(216);
    expect(history.sources).toEqual([4, 5]);
    expect(history.sourceOf(request)).toBe(5);
  });

  it('counts an item it was given no size for from its text: a tool call its name and input, an opaque part nothing', () => {
    const history = new WhatIfHistory(chars, fit);
    // `Bash {"command":"ls"}` is 21 characters, a tool item: 21 × 2 + 3.
    expect(history.localOf(call)).toEqual({ tokens: 21, sizeClass: 'tool' });
    expect(history.sizeOf(call)).toBe(45);
    const image: HistoryItem = {
      kind: 'opaque',
      id: 'i1',
      role: 'user',
      provider: 'anthropic',
      value: { a: 1 },
    };
    expect(history.localOf(image)).toEqual({ tokens: 0, sizeClass: 'text' });
    expect(history.sizeOf(image)).toBe(3);
    expect(history.sourceOf(image)).toBe(-1);
  });

  it('sizes every item again under a new fit', () => {
    const history = new WhatIfHistory(chars, fit);
    history.push(result, { tokens: 100, sizeClass: 'tool' }, 0);
    history.push(request, { tokens: 10, sizeClass: 'text' }, 1);
    history.refit({ toolScale: 1, textScale: 0.5, reasoningScale: 1, itemTokens: 0 });
    expect(history.tokens).toEqual([100, 5]);
    expect(history.total).toBe(105);
  });
});

describe('edits', () => {
  it('resizes a position for its tombstone, answering the tokens freed, the items kept until replaced', () => {
    const history = new WhatIfHistory(chars, fit);
    history.push(call, { tokens: 21, sizeClass: 'tool' }, 0);
    history.push(result, { tokens: 100, sizeClass: 'tool' }, 1);
    const tombstone: HistoryItem = { ...result, content: '[evicted]' };
    // 203 before, 9 × 2 + 3 = 21 after.
    expect(history.resizeAt(1, tombstone, { tokens: 9, sizeClass: 'tool' })).toBe(182);
    expect(history.tokens).toEqual([45, 21]);
    expect(history.total).toBe(66);
    expect(history.items[1]).toBe(result);
    // The tombstone stands for the same logged item.
    expect(history.sourceOf(tombstone)).toBe(1);
    history.replaceItems([call, tombstone]);
    expect(history.items[1]).toBe(tombstone);
  });

  it('adopts a recap’s history: known items keep their sources, new ones have none', () => {
    const history = new WhatIfHistory(chars, fit);
    history.push(call, { tokens: 21, sizeClass: 'tool' }, 7);
    history.push(result, { tokens: 100, sizeClass: 'tool' }, 8);
    history.push(request, { tokens: 10, sizeClass: 'text' }, 9);
    const recap: HistoryItem = { kind: 'user', id: 'recap', text: 'recap', recap: true };
    history.adopt([recap, request]);
    expect(history.sources).toEqual([-1, 9]);
    // The recap counted from its text: 5 + 3; the request as pushed: 13.
    expect(history.tokens).toEqual([8, 13]);
    expect(history.total).toBe(21);
  });

  it('empties at a compaction the user asked for', () => {
    const history = new WhatIfHistory(chars, fit);
    history.push(result, { tokens: 100, sizeClass: 'tool' }, 0);
    history.clear();
    expect(history.items).toEqual([]);
    expect(history.tokens).toEqual([]);
    expect(history.sources).toEqual([]);
    expect(history.total).toBe(0);
  });
});
