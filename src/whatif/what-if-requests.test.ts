import { describe, expect, it } from 'vitest';
import type { HistoryItem } from '../compaction/history-item.js';
import { agentCacheTtl, WhatIfRequests } from './what-if-requests.js';

const MODEL = 'claude-sonnet-4-5'; // Anthropic's cache model: minimum cacheable 1,024 tokens
const text = (id: string): HistoryItem => ({ kind: 'user', id, text: id });

const writes = (oneHour: number, fiveMinutes: number) => ({
  usage: {
    promptTokens: 0,
    cacheReadTokens: 0,
    cacheWrite5mTokens: fiveMinutes,
    cacheWrite1hTokens: oneHour,
    completionTokens: 0,
    reasoningTokens: 0,
  },
});

describe('agentCacheTtl', () => {
  it('takes the lifetime the agent wrote more of, 5 minutes on a tie or without writes', () => {
    expect(agentCacheTtl([writes(500, 0), writes(0, 300)])).toBe('1h');
    expect(agentCacheTtl([writes(300, 0), writes(0, 300)])).toBe('5m');
    expect(agentCacheTtl([{ usage: null }])).toBe('5m');
  });
});

describe('the two request streams', () => {
  it('rounds the base and each item’s tokens, none below 0', () => {
    const requests = new WhatIfRequests('anthropic', '5m');
    const sent = requests.sendUnedited(
      {
        model: MODEL,
        baseTokens: 9_999.5,
        items: [text('a'), text('b'), text('c')],
        sizes: [999.6, -5, 1_000.4],
      },
      0,
    );
    // 10,000 + 1,000 + 0 + 1,000, all written (nothing cached yet).
    expect(sent).toEqual({
      promptTokens: 12_000,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 12_000,
      cacheWrite1hTokens: 0,
    });
  });

  it('caches each stream apart: what the agent’s stream wrote is not read by barometer’s', () => {
    const requests = new WhatIfRequests('anthropic', '5m');
    const items = [text('a'), text('b'), text('c')];
    const content = { model: MODEL, baseTokens: 10_000, items, sizes: [1_000, 1_000, 1_000] };
    requests.sendUnedited(content, 0);
    // A minute later the agent's stream reads its prefix back, and writes only the new item.
    const again = requests.sendUnedited(
      { ...content, items: [...items, text('d')], sizes: [1_000, 1_000, 1_000, 1_000] },
      60_000,
    );
    expect(again).toEqual({
      promptTokens: 14_000,
      cacheReadTokens: 13_000,
      cacheWrite5mTokens: 1_000,
      cacheWrite1hTokens: 0,
    });
    // barometer's stream has its own cache: its first request writes everything.
    expect(requests.sendWhatIf(content, 60_000)).toMatchObject({
      cacheReadTokens: 0,
      cacheWrite5mTokens: 13_000,
    });
  });

  it('gives an edited item (a new object) a new identity: the prefix breaks there', () => {
    const requests = new WhatIfRequests('anthropic', '5m');
    const items = [text('a'), text('b'), text('c')];
    requests.sendWhatIf({ model: MODEL, baseTokens: 10_000, items, sizes: [1_000, 1_000, 1_000] }, 0);
    const edited = [items[0] as HistoryItem, { ...(items[1] as HistoryItem) }, items[2] as HistoryItem];
    // Only the system prompt's entry still matches: the three items are written again.
    expect(
      requests.sendWhatIf(
        { model: MODEL, baseTokens: 10_000, items: edited, sizes: [1_000, 1_000, 1_000] },
        60_000,
      ),
    ).toEqual({
      promptTokens: 13_000,
      cacheReadTokens: 10_000,
      cacheWrite5mTokens: 3_000,
      cacheWrite1hTokens: 0,
    });
  });
});

describe('the proxy’s breakpoint', () => {
  it('moves to a batch’s last tombstone one call after the batch, and is dropped with the history', () => {
    const requests = new WhatIfRequests('anthropic', '5m');
    expect(requests.breakpoint).toBeNull();
    requests.placeBreakpoint(4);
    // The request carrying the batch first keeps the previous breakpoint (none).
    expect(requests.breakpoint).toBeNull();
    requests.advanceBreakpoint();
    expect(requests.breakpoint).toBe(4);
    // No new batch: it stays.
    requests.advanceBreakpoint();
    expect(requests.breakpoint).toBe(4);
    requests.placeBreakpoint(9);
    requests.dropBreakpoints();
    requests.advanceBreakpoint();
    expect(requests.breakpoint).toBeNull();
  });
});
