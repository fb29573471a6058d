import { describe, expect, it } from 'vitest';
import { type EvictionDecision, initialEvictionState } from '../compaction/eviction-policy.js';
import type { HistoryItem } from '../compaction/history-item.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { tombstoneBatch, tombstoned } from './tombstone-batch.js';
import { WhatIfHistory } from './what-if-history.js';

/** One token a character, and a fit of scale 1 without framing: an item's provider tokens are its characters. */
const chars: TokenCounter = { name: 'chars', estimate: true, count: (text) => text.length };
const fit = { toolScale: 1, textScale: 1, reasoningScale: 1, itemTokens: 0 };

const call: HistoryItem = {
  kind: 'tool-call',
  id: 'c1',
  callId: 'c1',
  name: 'Bash',
  input: { command: 'npm test' },
};
// 250 two-byte characters: 250 tokens here, 500 bytes in the archive.
const output = 'é'.repeat(250);
const result: HistoryItem = { kind: 'tool-result', id: 'r1', callId: 'c1', content: output };

function decision(): EvictionDecision & { evict: NonNullable<EvictionDecision['evict']> } {
  return {
    state: initialEvictionState(),
    boundary: { kind: 'command', end: 2, detail: 'git commit -m fix' },
    evict: {
      taskId: 'subtask-1',
      steps: [{ position: 1, itemId: 'r1', kind: 'tool-result', field: 'content', original: output }],
      freedTokens: 0,
      firstChanged: 1,
    },
    recap: null,
    driftPercent: 0,
    reasons: [],
  };
}

describe('tombstoneBatch', () => {
  it('puts the proxy’s tombstone in place of the evicted result, sized exactly, and answers the batch’s row', () => {
    const history = new WhatIfHistory(chars, fit);
    history.push(call, { tokens: 10, sizeClass: 'tool' }, 0);
    history.push(result, { tokens: 250, sizeClass: 'tool' }, 1);
    const archivedResult = { ...result, archivedTo: '/tmp/x/whatif/subtask-1.log#r1' };
    const seen: unknown[] = [];
    const { eviction, bytes, lastPosition } = tombstoneBatch({
      history,
      decision: decision(),
      applied: [call, archivedResult],
      archive: '/tmp/x/whatif/subtask-1.log',
      carriedBy: 7,
      counter: chars,
      tombstonePath: (taskId) => `/data/archive/whatif/${taskId}.log`,
      onEvicted: (original, item, source, field, shown) => {
        // Told before the history holds the batch.
        seen.push({ original, item, source, field, shown, held: history.items[1] });
      },
    });
    const text =
      '[barometer evicted the result of Bash npm test (250 tokens) when subtask-1 ended (command). ' +
      'Original: record "r1" in /data/archive/whatif/subtask-1.log]';
    const expected = { ...archivedResult, content: text };
    expect(history.items).toEqual([call, expected]);
    expect(history.tokens).toEqual([10, text.length]);
    expect(history.total).toBe(10 + text.length);
    expect(eviction).toEqual({
      beforeCallIndex: 7,
      taskId: 'subtask-1',
      boundary: 'command',
      detail: 'git commit -m fix',
      items: 1,
      bytes: 500,
      tokensFreed: 250 - text.length,
      archive: '/tmp/x/whatif/subtask-1.log',
    });
    expect(bytes).toBe(500);
    expect(lastPosition).toBe(1);
    expect(seen).toEqual([
      {
        original: result,
        item: expected,
        source: 1,
        field: 'content',
        shown: '/data/archive/whatif/subtask-1.log#r1',
        held: result,
      },
    ]);
  });

  it('names the archive written when no tombstone path is given', () => {
    const history = new WhatIfHistory(chars, fit);
    history.push(call, { tokens: 10, sizeClass: 'tool' }, 0);
    history.push(result, { tokens: 250, sizeClass: 'tool' }, 1);
    tombstoneBatch({
      history,
      decision: decision(),
      applied: [call, result],
      archive: '/tmp/x/whatif/subtask-1.log',
      carriedBy: 1,
      counter: chars,
    });
    const item = history.items[1];
    expect(item?.kind === 'tool-result' && item.content).toContain(
      'record "r1" in /tmp/x/whatif/subtask-1.log]',
    );
  });
});

describe('tombstoned', () => {
  it('replaces a result’s content and a call’s input, and leaves any other item as it is', () => {
    expect(tombstoned(result, '[t]')).toEqual({ ...result, content: '[t]' });
    expect(tombstoned(call, '[t]')).toEqual({ ...call, input: { evicted: '[t]' } });
    const request: HistoryItem = { kind: 'user', id: 'u1', text: 'hi' };
    expect(tombstoned(request, '[t]')).toBe(request);
  });
});
