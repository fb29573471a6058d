import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { charsEstimateCounter } from './chars-estimate-counter.js';
import { type ChatMessage, countMessages } from './count-messages.js';
import { createTokenCounter } from './create-token-counter.js';
import { IncrementalCounter } from './incremental-counter.js';
import type { TokenCounter } from './token-counter.js';

/** A counter that records every text it is asked to count. */
function spyCounter(): TokenCounter & { seen: string[] } {
  const seen: string[] = [];
  return {
    name: 'spy',
    estimate: true,
    seen,
    count(text: string) {
      seen.push(text);
      return charsEstimateCounter.count(text);
    },
  };
}

const history: ChatMessage[] = [
  { role: 'system', content: 'You are a careful coding agent.' },
  { role: 'user', content: 'Fix the failing test in src/kv/budget.ts.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ function: { name: 'read_file', arguments: '{"path":"src/kv/budget.ts"}' } }],
  },
];

describe('IncrementalCounter', () => {
  it('counts the same total as a full recount', () => {
    const o200k = createTokenCounter();
    const incremental = new IncrementalCounter(o200k);
    const counted = incremental.count(history);
    expect(counted.tokens).toBe(countMessages(history, o200k).tokens);
    expect(counted).toMatchObject({ added: 3, reused: 0, counter: 'o200k_base', estimate: false });
  });

  it('tokenizes only the appended message on the next turn', () => {
    const spy = spyCounter();
    const incremental = new IncrementalCounter(spy);
    incremental.count(history);
    spy.seen.length = 0;
    const reply: ChatMessage = { role: 'tool', content: 'export function budget() {}' };
    const counted = incremental.count([...history, reply]);
    expect(spy.seen).toEqual(['tool', 'export function budget() {}']);
    expect(counted.added).toBe(1);
    expect(counted.reused).toBe(3);
    // 3 framing + ceil(4/4) + ceil(27/4)
    expect(counted.addedTokens).toBe(3 + 1 + 7);
    expect(counted.tokens).toBe(countMessages([...history, reply], charsEstimateCounter).tokens);
  });

  it('counts a repeated message each time it occurs but tokenizes it once', () => {
    const spy = spyCounter();
    const incremental = new IncrementalCounter(spy);
    const again: ChatMessage = { role: 'user', content: 'continue' };
    const counted = incremental.count([again, again, again]);
    expect(spy.seen).toEqual(['user', 'continue']);
    expect(counted.tokens).toBe(countMessages([again, again, again], charsEstimateCounter).tokens);
  });

  it('keeps its memory bounded, forgetting the least recently used message', () => {
    const spy = spyCounter();
    const incremental = new IncrementalCounter(spy, { maxEntries: 2 });
    const [a, b, c] = history as [ChatMessage, ChatMessage, ChatMessage];
    incremental.count([a, b]);
    incremental.count([a]); // a is now the most recently used
    incremental.count([c]); // evicts b
    expect(incremental.size).toBe(2);
    spy.seen.length = 0;
    const counted = incremental.count([a, b]);
    expect(counted).toMatchObject({ added: 1, reused: 1 });
    expect(spy.seen[0]).toBe('user');
  });

  it('equals a full recount for any sequence of growing histories', () => {
    const message = fc.record({
      role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
      content: fc.string({ maxLength: 40 }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(message, { maxLength: 6 }), { maxLength: 5 }),
        fc.integer({ min: 1, max: 8 }),
        (turns, maxEntries) => {
          const incremental = new IncrementalCounter(charsEstimateCounter, { maxEntries });
          const messages: ChatMessage[] = [];
          for (const turn of turns) {
            messages.push(...turn);
            const counted = incremental.count(messages);
            expect(counted.tokens).toBe(countMessages(messages, charsEstimateCounter).tokens);
            expect(counted.added + counted.reused).toBe(messages.length);
            expect(incremental.size).toBeLessThanOrEqual(maxEntries);
          }
        },
      ),
    );
  });

  it('rejects invalid options', () => {
    expect(() => new IncrementalCounter(charsEstimateCounter, { maxEntries: 0 })).toThrow(
      BarometerValidationError,
    );
    expect(() => new IncrementalCounter(charsEstimateCounter, { size: 3 } as never)).toThrow(
      BarometerValidationError,
    );
  });
});
