import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnthropicCacheBlock, AnthropicCacheRequest } from './anthropic-cache-request.js';
import { anthropicMinimumCacheableTokens } from './anthropic-cache-rules.js';
import { anthropicPromptCache } from './anthropic-prompt-cache.js';
import { emptyPromptCacheState, type PromptCacheState } from './prompt-cache-state.js';
import { accepted } from './test-helpers/cache-blocks.js';

/*
 * Properties the guide's rules imply for every request, on generated requests: identities from a small alphabet so
 * that generated requests share prefixes, 0–4 breakpoints with the 1-hour ones first, a few models with different
 * minimums, times seconds to an hour apart.
 */

const MINUTE = 60_000;
const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-6', 'claude-opus-5'];

const block = fc.record({
  id: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
  tokens: fc.integer({ min: 0, max: 3000 }),
});

/** A request whose breakpoints are legal: up to 4 positions, the first `long` of them 1-hour. */
const request: fc.Arbitrary<AnthropicCacheRequest> = fc
  .record({
    model: fc.constantFrom(...MODELS),
    tools: fc.array(block, { maxLength: 2 }),
    system: fc.array(block, { maxLength: 3 }),
    messages: fc.array(block, { minLength: 1, maxLength: 45 }),
    marks: fc.uniqueArray(fc.nat(), { maxLength: 4 }),
    long: fc.nat({ max: 4 }),
  })
  .map(({ model, tools, system, messages, marks, long }) => {
    const all = [...tools, ...system, ...messages];
    const positions = [...new Set(marks.map((mark) => mark % all.length))].sort((a, b) => a - b);
    const ttl = new Map(positions.map((position, index) => [position, index < long ? '1h' : '5m'] as const));
    const marked: AnthropicCacheBlock[] = all.map((entry, position) => {
      const mark = ttl.get(position);
      return mark === undefined ? entry : { ...entry, cacheControl: mark };
    });
    return {
      model,
      tools: marked.slice(0, tools.length),
      system: marked.slice(tools.length, tools.length + system.length),
      messages: marked.slice(tools.length + system.length),
    };
  });

const blocksOf = (r: AnthropicCacheRequest) => [...(r.tools ?? []), ...(r.system ?? []), ...r.messages];
const tokensBefore = (r: AnthropicCacheRequest, end: number) =>
  blocksOf(r)
    .slice(0, end)
    .reduce((sum, entry) => sum + entry.tokens, 0);

/** The state after a history of requests, each `gap` ms after the one before. */
function history(requests: ReadonlyArray<{ request: AnthropicCacheRequest; gap: number }>, start = 0) {
  let state: PromptCacheState = emptyPromptCacheState();
  let now = start;
  for (const { request: sent, gap } of requests) {
    now += gap;
    state = accepted(anthropicPromptCache(state, sent, now)).state;
  }
  return { state, now };
}

const past = fc.array(fc.record({ request, gap: fc.integer({ min: 0, max: 70 * MINUTE }) }), {
  maxLength: 6,
});

describe('anthropicPromptCache properties', () => {
  it('the usage always sums to the prompt: input + writes + reads, writes = 5-minute + 1-hour, none negative', () => {
    fc.assert(
      fc.property(past, request, fc.integer({ min: 0, max: 70 * MINUTE }), (before, sent, gap) => {
        const { state, now } = history(before);
        const { usage, tokens } = accepted(anthropicPromptCache(state, sent, now + gap));
        const total = tokensBefore(sent, blocksOf(sent).length);
        expect(usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens).toBe(
          total,
        );
        expect(
          usage.cache_creation.ephemeral_5m_input_tokens + usage.cache_creation.ephemeral_1h_input_tokens,
        ).toBe(usage.cache_creation_input_tokens);
        expect(tokens.promptTokens).toBe(total);
        for (const value of [
          usage.input_tokens,
          ...Object.values(usage.cache_creation),
          usage.cache_read_input_tokens,
        ])
          expect(value).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('a byte-identical resend within the lifetime reads everything up to the last breakpoint and writes nothing', () => {
    fc.assert(
      fc.property(past, request, fc.integer({ min: 0, max: 5 * MINUTE - 1 }), (before, sent, gap) => {
        const { state, now } = history(before);
        const first = accepted(anthropicPromptCache(state, sent, now));
        const again = accepted(anthropicPromptCache(first.state, sent, now + gap));
        const marks = blocksOf(sent).flatMap((entry, position) => (entry.cacheControl ? [position] : []));
        const last = marks.at(-1);
        const cached = last === undefined ? 0 : tokensBefore(sent, last + 1);
        const expected = cached >= anthropicMinimumCacheableTokens(sent.model) ? cached : 0;
        expect(again.usage.cache_read_input_tokens).toBe(expected);
        expect(again.usage.cache_creation_input_tokens).toBe(0);
      }),
    );
  });

  it('a change at block k never reads past k', () => {
    fc.assert(
      fc.property(
        past,
        request,
        fc.nat(),
        fc.integer({ min: 0, max: 70 * MINUTE }),
        (before, sent, pick, gap) => {
          const all = blocksOf(sent);
          const k = pick % all.length;
          // The request, then the same with block k changed to content no request ever had.
          const { state, now } = history([...before, { request: sent, gap: 0 }]);
          const changed = relabel(sent, k, `changed-${k}-${pick}`);
          const { usage } = accepted(anthropicPromptCache(state, changed, now + gap));
          expect(usage.cache_read_input_tokens).toBeLessThanOrEqual(tokensBefore(sent, k));
        },
      ),
    );
  });

  it('a fifth breakpoint is refused, whatever the state', () => {
    fc.assert(
      fc.property(
        past,
        fc.array(block, { minLength: 5, maxLength: 30 }),
        fc.nat(),
        (before, messages, shift) => {
          const { state, now } = history(before);
          const marks = new Set(Array.from({ length: 5 }, (_, index) => (index + shift) % messages.length));
          const sent = {
            model: 'claude-sonnet-4-5',
            messages: messages.map((entry, position) =>
              marks.has(position) ? { ...entry, cacheControl: '5m' as const } : entry,
            ),
          };
          expect(anthropicPromptCache(state, sent, now)).toMatchObject({
            ok: false,
            code: 'too_many_breakpoints',
          });
        },
      ),
    );
  });

  it('an entry expires after its lifetime without a hit, and a hit within it refreshes it', () => {
    fc.assert(
      fc.property(
        fc.array(block, { minLength: 1, maxLength: 30 }),
        fc.constantFrom('5m' as const, '1h' as const),
        fc.integer({ min: 0, max: 100 }),
        (messages, ttl, slack) => {
          const lifetime = ttl === '5m' ? 5 * MINUTE : 60 * MINUTE;
          const prefix = [{ id: 'document', tokens: 5000, cacheControl: ttl }, ...messages];
          const sent = { model: 'claude-sonnet-4-5', messages: prefix };
          const written = accepted(anthropicPromptCache(emptyPromptCacheState(), sent, 0));
          const expired = accepted(anthropicPromptCache(written.state, sent, lifetime + slack));
          expect(expired.usage.cache_read_input_tokens).toBe(0);
          const refreshed = accepted(anthropicPromptCache(written.state, sent, lifetime - 1 - slack));
          const later = accepted(anthropicPromptCache(refreshed.state, sent, 2 * lifetime - 2 - 2 * slack));
          expect(later.usage.cache_read_input_tokens).toBe(5000);
        },
      ),
    );
  });
});

function relabel(sent: AnthropicCacheRequest, position: number, id: string): AnthropicCacheRequest {
  const tools = sent.tools ?? [];
  const system = sent.system ?? [];
  const change = (list: readonly AnthropicCacheBlock[], offset: number) =>
    list.map((entry, index) => (index + offset === position ? { ...entry, id } : entry));
  return {
    ...sent,
    tools: change(tools, 0),
    system: change(system, tools.length),
    messages: change(sent.messages, tools.length + system.length),
  };
}
