import { describe, expect, it } from 'vitest';
import { paybackCalls } from '../compaction/eviction-policy.js';
import { rewriteMultipliers, type WhatIfBlock, WhatIfCacheStream } from './what-if-cache.js';

/** A history of `count` blocks of `tokens` each, ids `m0…`; `changed` positions get another identity (a tombstone). */
function blocks(
  count: number,
  tokens: number,
  changed: ReadonlyMap<number, number> = new Map(),
): WhatIfBlock[] {
  return Array.from({ length: count }, (_, position) => ({
    id: changed.has(position) ? `t${position}` : `m${position}`,
    tokens: changed.get(position) ?? tokens,
    cacheable: true,
    role: position % 2 === 0 ? 'assistant' : 'tool',
  }));
}

const MODEL = 'claude-sonnet-4-5'; // minimum cacheable 1,024 tokens

describe('the what-if request through Anthropic’s cache model (Claude Code’s breakpoints)', () => {
  it('rewrites the whole history from the end of the system prompt after a far-back eviction', () => {
    const stream = new WhatIfCacheStream('anthropic', '5m');
    // Call N: system 10,000 + 30 blocks of 1,000, all written (no entry yet).
    const first = stream.send(
      { model: MODEL, baseTokens: 10_000, blocks: blocks(30, 1_000), proxyBreakpoint: null },
      0,
    );
    expect(first).toEqual({
      promptTokens: 40_000,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 40_000,
      cacheWrite1hTokens: 0,
    });
    // Call N + 1: block 2 is a 50-token tombstone, 2 blocks more. The last breakpoint (block 31) looks back 20 blocks
    // (12…31): no entry there matches (the prefix changed at block 2), so only the system prompt's entry is read,
    // and everything after it is written: 2 × 1,000 + 50 + 29 × 1,000 = 31,050 (the guide's "walks backward").
    const second = stream.send(
      {
        model: MODEL,
        baseTokens: 10_000,
        blocks: blocks(32, 1_000, new Map([[2, 50]])),
        proxyBreakpoint: null,
      },
      60_000,
    );
    expect(second).toEqual({
      promptTokens: 41_050,
      cacheReadTokens: 10_000,
      cacheWrite5mTokens: 31_050,
      cacheWrite1hTokens: 0,
    });
  });

  it('rewrites only what follows the last batch with the proxy’s breakpoint on its last tombstone', () => {
    const stream = new WhatIfCacheStream('anthropic', '5m');
    const evicted = new Map([[2, 50]]);
    // The batch's first request carries the proxy's breakpoint at block 2: it writes its entry there.
    stream.send(
      { model: MODEL, baseTokens: 10_000, blocks: blocks(30, 1_000, evicted), proxyBreakpoint: 2 },
      0,
    );
    // A second batch evicts block 20: its request reads the entry at block 2 (the proxy's breakpoint, in every
    // request from the first batch on) and writes the rest: 40,100 − 12,050 = 28,050 (17 × 1,000 + 50 + 11 × 1,000).
    const next = stream.send(
      {
        model: MODEL,
        baseTokens: 10_000,
        blocks: blocks(32, 1_000, new Map([...evicted, [20, 50]])),
        proxyBreakpoint: 20,
      },
      60_000,
    );
    // Read: 10,000 + 1,000 + 1,000 + 50 = 12,050, found 18 blocks back from the breakpoint at block 20.
    expect(next).toEqual({
      promptTokens: 40_100,
      cacheReadTokens: 12_050,
      cacheWrite5mTokens: 28_050,
      cacheWrite1hTokens: 0,
    });
  });
});

describe('the what-if request through OpenAI’s automatic prefix cache', () => {
  it('reads the longest shared prefix in 128-token steps, nothing under 1,024, no write', () => {
    const stream = new WhatIfCacheStream('openai', '5m');
    stream.send(
      { model: 'gpt-5.3-codex', baseTokens: 1_000, blocks: blocks(10, 300), proxyBreakpoint: null },
      0,
    );
    // Block 3 changed: the shared prefix is the base and blocks 0–2, 1,900 tokens, read as 14 × 128 = 1,792.
    const next = stream.send(
      {
        model: 'gpt-5.3-codex',
        baseTokens: 1_000,
        blocks: blocks(10, 300, new Map([[3, 20]])),
        proxyBreakpoint: null,
      },
      60_000,
    );
    expect(next).toEqual({
      promptTokens: 3_720,
      cacheReadTokens: 1_792,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
    });
    // A shared prefix under 1,024 tokens is no read: the base alone (1,000) after a change of block 0.
    const short = new WhatIfCacheStream('openai', '5m');
    short.send(
      { model: 'gpt-5.3-codex', baseTokens: 1_000, blocks: blocks(10, 300), proxyBreakpoint: null },
      0,
    );
    expect(
      short.send(
        {
          model: 'gpt-5.3-codex',
          baseTokens: 1_000,
          blocks: blocks(10, 300, new Map([[0, 20]])),
          proxyBreakpoint: null,
        },
        60_000,
      ).cacheReadTokens,
    ).toBe(0);
  });
});

describe('payback by the cache model', () => {
  it('prices the rewrite with the provider’s multipliers: Anthropic 1.25 × / 0.1 ×, OpenAI before GPT-5.6 1 × / 0.1 ×', () => {
    expect(rewriteMultipliers('anthropic', MODEL, '5m', null)).toEqual({ write: 1.25, read: 0.1 });
    expect(rewriteMultipliers('anthropic', MODEL, '1h', null)).toEqual({ write: 2, read: 0.1 });
    expect(rewriteMultipliers('openai', 'gpt-5.3-codex', '5m', null)).toEqual({ write: 1, read: 0.1 });
    // By hand: rewriting 100,000 tokens less 10,000 freed costs 90,000 × 1.25 − 100,000 × 0.1 = 102,500; each later
    // request saves 10,000 × 0.1 = 1,000: 102.5 requests.
    expect(paybackCalls(100_000, 10_000, { write: 1.25, read: 0.1 })).toBeCloseTo(102.5, 10);
    // OpenAI: 90,000 × 1 − 10,000 = 80,000 over 1,000: 80.
    expect(paybackCalls(100_000, 10_000, { write: 1, read: 0.1 })).toBeCloseTo(80, 10);
  });
});
