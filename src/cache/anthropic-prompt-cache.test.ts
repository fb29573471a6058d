import { describe, expect, it } from 'vitest';
import type { AnthropicCacheBlock } from './anthropic-cache-request.js';
import { anthropicPromptCache } from './anthropic-prompt-cache.js';
import { emptyPromptCacheState, type PromptCacheState } from './prompt-cache-state.js';
import { accepted, marked, messagesRequest, numberedBlocks } from './test-helpers/cache-blocks.js';

/*
 * The worked examples of Anthropic's prompt caching guide
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching): each expected figure is the guide's, in
 * tokens of the blocks named. Blocks are 200 tokens each (Claude Sonnet 4.5's minimum is 1,024, so 10 blocks cache).
 */

const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);
const MINUTE = 60_000;

function run(state: PromptCacheState, messages: AnthropicCacheBlock[], now = T0, model?: string) {
  return accepted(anthropicPromptCache(state, messagesRequest(messages, model), now));
}

describe('anthropicPromptCache: "Lookback in a growing conversation"', () => {
  const turn1 = marked(numberedBlocks(10, 200), { 10: '5m' });
  const turn2 = marked(numberedBlocks(15, 200), { 15: '5m' });
  const turn3 = marked(numberedBlocks(35, 200), { 35: '5m' });

  it('turn 1 writes an entry at block 10 and reads nothing', () => {
    const first = run(emptyPromptCacheState(), turn1);
    expect(first.usage).toEqual({
      input_tokens: 0,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 2000, ephemeral_1h_input_tokens: 0 },
    });
    expect(first.writtenPositions).toEqual([9]);
    expect(first.hitPosition).toBeNull();
  });

  it('turn 2 walks back from block 15 to the turn-1 entry at block 10 and writes blocks 11 to 15', () => {
    const first = run(emptyPromptCacheState(), turn1);
    const second = run(first.state, turn2, T0 + MINUTE);
    expect(second.hitPosition).toBe(9);
    expect(second.usage.cache_read_input_tokens).toBe(2000);
    expect(second.usage.cache_creation_input_tokens).toBe(1000);
    expect(second.usage.input_tokens).toBe(0);
  });

  it('turn 3 checks blocks 35 to 16 only: the entry at block 15 is one position outside the window, a miss', () => {
    const first = run(emptyPromptCacheState(), turn1);
    const second = run(first.state, turn2, T0 + MINUTE);
    const third = run(second.state, turn3, T0 + 2 * MINUTE);
    expect(third.hitPosition).toBeNull();
    expect(third.usage.cache_read_input_tokens).toBe(0);
    expect(third.usage.cache_creation_input_tokens).toBe(7000);
  });

  it('turn 3 with a second breakpoint at block 15 finds the turn-2 entry in that breakpoint own window', () => {
    const first = run(emptyPromptCacheState(), turn1);
    const second = run(first.state, turn2, T0 + MINUTE);
    const third = run(second.state, marked(numberedBlocks(35, 200), { 15: '5m', 35: '5m' }), T0 + 2 * MINUTE);
    expect(third.hitPosition).toBe(14);
    expect(third.usage.cache_read_input_tokens).toBe(3000);
    expect(third.usage.cache_creation_input_tokens).toBe(4000);
  });

  it('a window of 20 positions counts the breakpoint itself: an entry 19 blocks back is read, 20 back is not', () => {
    const base = run(emptyPromptCacheState(), marked(numberedBlocks(10, 200), { 10: '5m' }));
    expect(run(base.state, marked(numberedBlocks(29, 200), { 29: '5m' })).hitPosition).toBe(9);
    expect(run(base.state, marked(numberedBlocks(30, 200), { 30: '5m' })).hitPosition).toBeNull();
  });
});

describe('anthropicPromptCache: "Breakpoint on content that changes every request"', () => {
  const staticBlocks = numberedBlocks(5, 400, 'static');
  const request = (stamp: string, mark: number) =>
    marked([...staticBlocks, { id: `timestamp ${stamp} + user message`, tokens: 50 }], { [mark]: '5m' });

  it('with the breakpoint on block 6 every request writes afresh and never reads', () => {
    const first = run(emptyPromptCacheState(), request('09:00', 6));
    const second = run(first.state, request('09:01', 6), T0 + MINUTE);
    expect(second.usage.cache_read_input_tokens).toBe(0);
    expect(second.usage.cache_creation_input_tokens).toBe(2050);
  });

  it('with the breakpoint moved to block 5 the next request reads the static prefix', () => {
    const first = run(emptyPromptCacheState(), request('09:00', 5));
    const second = run(first.state, request('09:01', 5), T0 + MINUTE);
    expect(second.usage).toMatchObject({
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 0,
      input_tokens: 50,
    });
  });
});

describe('anthropicPromptCache: the token breakdown', () => {
  it('"100,000 tokens of cached content … 50 tokens in your user message": read 100,000, write 0, input 50', () => {
    const messages: AnthropicCacheBlock[] = [
      { id: 'document', tokens: 100_000, cacheControl: '5m' },
      { id: 'question', tokens: 50 },
    ];
    const first = run(emptyPromptCacheState(), messages);
    const second = run(first.state, messages, T0 + MINUTE);
    expect(second.usage).toEqual({
      input_tokens: 50,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 100_000,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    });
    // "total_input_tokens = cache_read_input_tokens + cache_creation_input_tokens + input_tokens"
    expect(second.tokens.promptTokens).toBe(100_050);
  });
});

describe('anthropicPromptCache: mixing lifetimes ("three billing locations")', () => {
  // A 1-hour breakpoint on the system prompt, a 5-minute one on the last message.
  const request = (last: string) => ({
    model: 'claude-sonnet-4-5',
    system: [{ id: 'instructions', tokens: 3000, cacheControl: '1h' as const }],
    messages: [
      { id: 'question 1', tokens: 500 },
      { id: 'answer 1', tokens: 700 },
      { id: last, tokens: 300, cacheControl: '5m' as const },
    ],
  });

  it('no hit: A = 0, B at the 1-hour breakpoint, C at the last one: 1-hour writes B − A, 5-minute writes C − B', () => {
    const first = accepted(anthropicPromptCache(emptyPromptCacheState(), request('question 2'), T0));
    expect(first.tokens).toEqual({
      promptTokens: 4500,
      cacheReadTokens: 0,
      cacheWrite1hTokens: 3000,
      cacheWrite5mTokens: 1500,
    });
  });

  it('a hit at the 1-hour entry: B = A (no 1-hour breakpoint after it), 5-minute writes C − A', () => {
    const first = accepted(anthropicPromptCache(emptyPromptCacheState(), request('question 2'), T0));
    const second = accepted(anthropicPromptCache(first.state, request('question 2, edited'), T0 + MINUTE));
    expect(second.hitPosition).toBe(0);
    expect(second.tokens).toEqual({
      promptTokens: 4500,
      cacheReadTokens: 3000,
      cacheWrite1hTokens: 0,
      cacheWrite5mTokens: 1500,
    });
  });

  it('a hit at C: everything read, nothing written', () => {
    const first = accepted(anthropicPromptCache(emptyPromptCacheState(), request('question 2'), T0));
    const second = accepted(anthropicPromptCache(first.state, request('question 2'), T0 + MINUTE));
    expect(second.tokens).toEqual({
      promptTokens: 4500,
      cacheReadTokens: 4500,
      cacheWrite1hTokens: 0,
      cacheWrite5mTokens: 0,
    });
  });

  it('the 1-hour entry outlives the 5-minute one: 30 minutes later only the system prompt is read', () => {
    const first = accepted(anthropicPromptCache(emptyPromptCacheState(), request('question 2'), T0));
    const later = accepted(anthropicPromptCache(first.state, request('question 2'), T0 + 30 * MINUTE));
    expect(later.tokens).toMatchObject({ cacheReadTokens: 3000, cacheWrite5mTokens: 1500 });
  });
});

describe('anthropicPromptCache: lifetimes, from the start of the request that writes or reads', () => {
  const messages = marked(numberedBlocks(10, 200), { 10: '5m' });

  it('a 5-minute entry read 4:59 later is read, and the read refreshes it for 5 more minutes', () => {
    const first = run(emptyPromptCacheState(), messages);
    const second = run(first.state, messages, T0 + 5 * MINUTE - 1000);
    expect(second.usage.cache_read_input_tokens).toBe(2000);
    const third = run(second.state, messages, T0 + 10 * MINUTE - 2000);
    expect(third.usage.cache_read_input_tokens).toBe(2000);
  });

  it('an entry found by the lookback is refreshed too, not only the ones at the breakpoints', () => {
    const first = run(emptyPromptCacheState(), messages);
    // Turn 2 reads block 10 through its lookback from block 15, 4 minutes later…
    const second = run(first.state, marked(numberedBlocks(15, 200), { 15: '5m' }), T0 + 4 * MINUTE);
    expect(second.hitPosition).toBe(9);
    // …so the entry at block 10 is alive 8 minutes after it was written.
    expect(run(second.state, messages, T0 + 8 * MINUTE).usage.cache_read_input_tokens).toBe(2000);
  });

  it('a request that starts exactly 5 minutes after the last use finds the entry gone and writes it again', () => {
    const first = run(emptyPromptCacheState(), messages);
    const second = run(first.state, messages, T0 + 5 * MINUTE);
    expect(second.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 2000 });
    expect(Object.keys(second.state.entries)).toHaveLength(1);
  });

  it('a 1-hour entry is read 59 minutes later and gone after 60', () => {
    const hour = marked(numberedBlocks(10, 200), { 10: '1h' });
    const first = run(emptyPromptCacheState(), hour);
    expect(run(first.state, hour, T0 + 59 * MINUTE).usage.cache_read_input_tokens).toBe(2000);
    expect(run(first.state, hour, T0 + 60 * MINUTE).usage.cache_read_input_tokens).toBe(0);
  });
});

describe('anthropicPromptCache: the minimum cacheable prompt length', () => {
  it('a breakpoint under the model minimum writes nothing and reports nothing cached, without an error', () => {
    const short = marked(numberedBlocks(5, 200), { 5: '5m' });
    const first = run(emptyPromptCacheState(), short);
    expect(first.usage).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      input_tokens: 1000,
    });
    expect(first.tooShortPositions).toEqual([4]);
    expect(run(first.state, short, T0 + MINUTE).usage.cache_read_input_tokens).toBe(0);
  });

  it('the minimum is the model own: 3,000 tokens cache on Claude Sonnet 4.5 and not on Claude Opus 4.6 (4,096)', () => {
    const blocks = marked(numberedBlocks(10, 300), { 10: '5m' });
    expect(run(emptyPromptCacheState(), blocks).usage.cache_creation_input_tokens).toBe(3000);
    expect(
      run(emptyPromptCacheState(), blocks, T0, 'claude-opus-4-6').usage.cache_creation_input_tokens,
    ).toBe(0);
  });

  it('only the breakpoints under the minimum are passed over: a longer one later in the prompt still writes', () => {
    const blocks = marked(numberedBlocks(10, 200), { 2: '5m', 10: '5m' });
    const first = run(emptyPromptCacheState(), blocks);
    expect(first.writtenPositions).toEqual([9]);
    expect(first.tooShortPositions).toEqual([1]);
  });
});

describe('anthropicPromptCache: what invalidates the cache (tools → system → messages)', () => {
  const request = (tool: string, settings?: { system?: string; messages?: string }) => ({
    model: 'claude-sonnet-4-5',
    tools: [{ id: tool, tokens: 1500, cacheControl: '5m' as const }],
    system: [{ id: 'system', tokens: 1500, cacheControl: '5m' as const }],
    messages: [{ id: 'user', tokens: 1500, cacheControl: '5m' as const }],
    settings,
  });
  const first = accepted(anthropicPromptCache(emptyPromptCacheState(), request('tool v1'), T0));
  const next = (changed: ReturnType<typeof request>) =>
    accepted(anthropicPromptCache(first.state, changed, T0 + MINUTE)).usage.cache_read_input_tokens;

  it('a changed tool definition invalidates every level', () => {
    expect(next(request('tool v2'))).toBe(0);
  });

  it('a setting rendered ahead of the system (web search, citations, speed) keeps the tools cache only', () => {
    expect(next(request('tool v1', { system: 'speed: fast' }))).toBe(1500);
  });

  it('a setting of the message level (tool_choice, thinking, effort) keeps the tools and system caches', () => {
    expect(next(request('tool v1', { messages: 'tool_choice: any' }))).toBe(3000);
  });

  it('another model reads none of the entries', () => {
    expect(
      accepted(
        anthropicPromptCache(first.state, { ...request('tool v1'), model: 'claude-sonnet-4-6' }, T0 + MINUTE),
      ).usage.cache_read_input_tokens,
    ).toBe(0);
  });
});

describe('anthropicPromptCache: Claude Code 2.1.328 breakpoints (two system blocks and the last message block)', () => {
  const system = [
    { id: 'system: identity', tokens: 30, cacheControl: '5m' as const },
    { id: 'system: instructions', tokens: 20_000, cacheControl: '5m' as const },
  ];
  const history = numberedBlocks(60, 500, 'history ');
  const withLast = (blocks: AnthropicCacheBlock[]) =>
    blocks.map((block, index) =>
      index === blocks.length - 1 ? { ...block, cacheControl: '5m' as const } : block,
    );
  const send = (state: PromptCacheState, messages: AnthropicCacheBlock[], now: number) =>
    accepted(
      anthropicPromptCache(state, { model: 'claude-sonnet-4-5', system, messages: withLast(messages) }, now),
    );

  it('an eviction anywhere in the history rewrites the whole history from the end of the system prompt', () => {
    const before = send(emptyPromptCacheState(), history, T0);
    const evicted = history.map((block, index) => (index === 55 ? { id: 'tombstone', tokens: 40 } : block));
    const after = send(before.state, evicted, T0 + MINUTE);
    expect(after.hitPosition).toBe(1);
    expect(after.usage.cache_read_input_tokens).toBe(20_030);
    expect(after.usage.cache_creation_input_tokens).toBe(59 * 500 + 40);
  });

  it('a breakpoint kept where the next eviction starts lets the rewrite begin there', () => {
    const keep = (blocks: AnthropicCacheBlock[]) =>
      blocks.map((block, index) => (index === 49 ? { ...block, cacheControl: '5m' as const } : block));
    const before = send(emptyPromptCacheState(), keep(history), T0);
    const evicted = history.map((block, index) => (index === 55 ? { id: 'tombstone', tokens: 40 } : block));
    const after = send(before.state, keep(evicted), T0 + MINUTE);
    expect(after.usage.cache_read_input_tokens).toBe(20_030 + 50 * 500);
    expect(after.usage.cache_creation_input_tokens).toBe(9 * 500 + 40);
  });
});

describe('anthropicPromptCache: block identities are the caller own', () => {
  it('reads the same entry whatever the order of the caller keys or the extra fields of a block', () => {
    const first = run(emptyPromptCacheState(), [{ tokens: 2000, id: 'a', cacheControl: '5m' }]);
    const reordered = { cacheControl: '5m' as const, cacheable: true, id: 'a', tokens: 2000 };
    expect(run(first.state, [reordered], T0 + MINUTE).usage.cache_read_input_tokens).toBe(2000);
  });
});
