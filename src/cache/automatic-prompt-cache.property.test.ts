import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PrefixBlock } from './automatic-prefix-cache.js';
import { geminiPromptCache } from './gemini-prompt-cache.js';
import { openAiPromptCache } from './openai-prompt-cache.js';
import { emptyPromptCacheState, type PromptCacheState } from './prompt-cache-state.js';
import type { PromptCacheTokens } from './prompt-cache-tokens.js';
import { accepted } from './test-helpers/cache-blocks.js';

/* The same properties for the caches that match prefixes on their own: OpenAI before GPT-5.6, GPT-5.6, Gemini. */

const MINUTE = 60_000;

interface Cache {
  name: string;
  send: (
    state: PromptCacheState,
    blocks: PrefixBlock[],
    now: number,
  ) => { tokens: PromptCacheTokens; state: PromptCacheState };
  /** What a resend of the same blocks within the lifetime reads. */
  resent: (total: number) => number;
  lifetimeMs: number;
}

const CACHES: Cache[] = [
  {
    name: 'OpenAI gpt-5.3-codex',
    send: (state, blocks, now) => accepted(openAiPromptCache(state, { model: 'gpt-5.3-codex', blocks }, now)),
    resent: (total) => (total >= 1024 ? Math.floor(total / 128) * 128 : 0),
    lifetimeMs: 5 * MINUTE,
  },
  {
    name: 'OpenAI gpt-5.6 (one user message: the implicit breakpoint at its end)',
    send: (state, blocks, now) =>
      accepted(
        openAiPromptCache(
          state,
          {
            model: 'gpt-5.6',
            blocks: blocks.map((block, index) =>
              index === blocks.length - 1 ? { ...block, messageEnd: 'user' } : block,
            ),
          },
          now,
        ),
      ),
    resent: (total) => (total >= 1024 ? total : 0),
    lifetimeMs: 30 * MINUTE,
  },
  {
    name: 'Gemini 2.5 Flash',
    send: (state, blocks, now) =>
      accepted(geminiPromptCache(state, { model: 'gemini-2.5-flash', blocks }, now)),
    resent: (total) => (total >= 2048 ? total : 0),
    lifetimeMs: 5 * MINUTE,
  },
];

const blocks = fc.array(
  fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd'), tokens: fc.integer({ min: 0, max: 2000 }) }),
  {
    minLength: 1,
    maxLength: 30,
  },
);
const past = fc.array(fc.record({ blocks, gap: fc.integer({ min: 0, max: 40 * MINUTE }) }), { maxLength: 5 });
const sum = (list: readonly PrefixBlock[]) => list.reduce((total, block) => total + block.tokens, 0);

function history(cache: Cache, requests: ReadonlyArray<{ blocks: PrefixBlock[]; gap: number }>) {
  let state = emptyPromptCacheState();
  let now = 0;
  for (const request of requests) {
    now += request.gap;
    state = cache.send(state, request.blocks, now).state;
  }
  return { state, now };
}

describe.each(CACHES)('$name properties', (cache) => {
  it('the usage sums to the prompt, no part negative', () => {
    fc.assert(
      fc.property(past, blocks, (before, sent) => {
        const { state, now } = history(cache, before);
        const { tokens } = cache.send(state, sent, now + MINUTE);
        expect(tokens.promptTokens).toBe(sum(sent));
        expect(
          tokens.cacheReadTokens + tokens.cacheWrite5mTokens + tokens.cacheWrite1hTokens,
        ).toBeLessThanOrEqual(tokens.promptTokens);
        for (const value of Object.values(tokens)) expect(value).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('a byte-identical resend within the lifetime reads the whole prompt (as the provider rounds it)', () => {
    fc.assert(
      fc.property(past, blocks, fc.integer({ min: 0, max: 5 * MINUTE - 1 }), (before, sent, gap) => {
        const { state, now } = history(cache, before);
        const first = cache.send(state, sent, now);
        expect(cache.send(first.state, sent, now + gap).tokens.cacheReadTokens).toBe(cache.resent(sum(sent)));
      }),
    );
  });

  it('a change at block k never reads past k', () => {
    fc.assert(
      fc.property(past, blocks, fc.nat(), (before, sent, pick) => {
        const k = pick % sent.length;
        const { state, now } = history(cache, [...before, { blocks: sent, gap: 0 }]);
        const changed = sent.map((block, index) =>
          index === k ? { ...block, id: `changed-${pick}` } : block,
        );
        expect(cache.send(state, changed, now + MINUTE).tokens.cacheReadTokens).toBeLessThanOrEqual(
          sum(sent.slice(0, k)),
        );
      }),
    );
  });

  it('an entry expires after its lifetime without a use, and a use within it refreshes it', () => {
    fc.assert(
      fc.property(blocks, fc.integer({ min: 0, max: 1000 }), (tail, slack) => {
        const sent = [{ id: 'large common prefix', tokens: 5000 }, ...tail];
        const first = cache.send(emptyPromptCacheState(), sent, 0);
        expect(cache.send(first.state, sent, cache.lifetimeMs + slack).tokens.cacheReadTokens).toBe(0);
        const used = cache.send(first.state, sent, cache.lifetimeMs - 1 - slack);
        const later = cache.send(used.state, sent, 2 * cache.lifetimeMs - 2 - 2 * slack);
        expect(later.tokens.cacheReadTokens).toBe(cache.resent(sum(sent)));
      }),
    );
  });
});
