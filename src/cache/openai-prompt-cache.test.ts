import { describe, expect, it } from 'vitest';
import type { OpenAiCacheBlock, OpenAiCacheRequest } from './openai-cache-request.js';
import { openAiPromptCache } from './openai-prompt-cache.js';
import { emptyPromptCacheState, type PromptCacheState } from './prompt-cache-state.js';
import { accepted } from './test-helpers/cache-blocks.js';

/*
 * OpenAI's prompt caching guide (https://developers.openai.com/api/docs/guides/prompt-caching) and, for the models
 * before GPT-5.6, its Prompt Caching 201 cookbook ("works automatically for prompts containing 1024 tokens or more,
 * with cache hits occurring in increments of 128 tokens").
 */

const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);
const MINUTE = 60_000;

function send(state: PromptCacheState, request: OpenAiCacheRequest, now = T0) {
  return accepted(openAiPromptCache(state, request, now));
}

/** A prompt of a shared prefix of `shared` tokens, then a suffix of its own. */
const prompt = (shared: number, suffix: string, model = 'gpt-5.3-codex'): OpenAiCacheRequest => ({
  model,
  blocks: [
    { id: 'instructions and history', tokens: shared },
    { id: suffix, tokens: 300 },
  ],
});

describe('openAiPromptCache before GPT-5.6: automatic prefix caching in 128-token steps from 1,024', () => {
  it.each([
    [1023, 0],
    [1024, 1024],
    [1100, 1024],
    [1151, 1024],
    [1152, 1152],
    [5000, 4992],
  ])('a shared prefix of %d tokens is read as %d', (shared, cached) => {
    const first = send(emptyPromptCacheState(), prompt(shared, 'first question'));
    const second = send(first.state, prompt(shared, 'second question'), T0 + MINUTE);
    expect(second.usage).toEqual({
      input_tokens: shared + 300,
      input_tokens_details: { cached_tokens: cached, cache_write_tokens: 0 },
    });
  });

  it('a prompt under 1,024 tokens is never cached', () => {
    const short = prompt(700, 'question');
    const first = send(emptyPromptCacheState(), short);
    expect(Object.keys(first.state.entries)).toHaveLength(0);
    expect(send(first.state, short, T0 + MINUTE).usage.input_tokens_details.cached_tokens).toBe(0);
  });

  it('writes cost nothing: the first request of a prefix reports no cache writes', () => {
    expect(send(emptyPromptCacheState(), prompt(5000, 'q')).tokens).toEqual({
      promptTokens: 5300,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
    });
  });

  it('prompt_cache_key separates the caches of two keys', () => {
    const first = send(emptyPromptCacheState(), { ...prompt(5000, 'q'), promptCacheKey: 'user-1' });
    expect(
      send(first.state, { ...prompt(5000, 'q'), promptCacheKey: 'user-2' }).usage.input_tokens_details
        .cached_tokens,
    ).toBe(0);
    expect(
      send(first.state, { ...prompt(5000, 'q'), promptCacheKey: 'user-1' }).usage.input_tokens_details
        .cached_tokens,
    ).toBe(5248);
  });

  it('GPT-5.5 breakpoints are 2,048 tokens apart', () => {
    const first = send(emptyPromptCacheState(), prompt(5000, 'first', 'gpt-5.5'));
    expect(
      send(first.state, prompt(5000, 'second', 'gpt-5.5')).usage.input_tokens_details.cached_tokens,
    ).toBe(4096);
  });
});

describe('openAiPromptCache before GPT-5.6: lifetimes by retention', () => {
  it('in_memory: the model keeps an unused entry 5 minutes (the guide: "around 5 to 10 minutes")', () => {
    const first = send(emptyPromptCacheState(), prompt(5000, 'q'));
    expect(
      send(first.state, prompt(5000, 'q'), T0 + 5 * MINUTE - 1).usage.input_tokens_details.cached_tokens,
    ).toBe(5248);
    expect(
      send(first.state, prompt(5000, 'q'), T0 + 5 * MINUTE).usage.input_tokens_details.cached_tokens,
    ).toBe(0);
  });

  it('24h, the default of a model with extended retention: 30 minutes ("typically … around 30 minutes")', () => {
    const first = send(emptyPromptCacheState(), prompt(5000, 'q', 'gpt-5.1-codex'));
    const late = T0 + 30 * MINUTE - 1;
    expect(
      send(first.state, prompt(5000, 'q', 'gpt-5.1-codex'), late).usage.input_tokens_details.cached_tokens,
    ).toBe(5248);
    const inMemory = send(emptyPromptCacheState(), {
      ...prompt(5000, 'q', 'gpt-5.1-codex'),
      retention: 'in_memory',
    });
    expect(
      send(inMemory.state, prompt(5000, 'q', 'gpt-5.1-codex'), T0 + 6 * MINUTE).usage.input_tokens_details
        .cached_tokens,
    ).toBe(0);
  });

  it('each use refreshes the entry', () => {
    const first = send(emptyPromptCacheState(), prompt(5000, 'q'));
    const second = send(first.state, prompt(5000, 'q'), T0 + 4 * MINUTE);
    expect(
      send(second.state, prompt(5000, 'q'), T0 + 8 * MINUTE).usage.input_tokens_details.cached_tokens,
    ).toBe(5248);
  });

  it('refuses a retention the model does not accept, naming it', () => {
    expect(
      openAiPromptCache(
        emptyPromptCacheState(),
        { ...prompt(5000, 'q', 'gpt-5.5'), retention: 'in_memory' },
        T0,
      ),
    ).toMatchObject({
      ok: false,
      code: 'retention_unsupported',
      path: 'retention',
    });
    expect(
      openAiPromptCache(emptyPromptCacheState(), { ...prompt(5000, 'q', 'gpt-5.6'), retention: '24h' }, T0),
    ).toMatchObject({
      ok: false,
      code: 'retention_unsupported',
    });
  });

  it('names a missing model and blocks that are not a list', () => {
    expect(
      openAiPromptCache(emptyPromptCacheState(), { model: undefined as never, blocks: [] }, T0),
    ).toMatchObject({ ok: false, path: 'model' });
    expect(
      openAiPromptCache(emptyPromptCacheState(), { model: 'gpt-5.6', blocks: {} as never }, T0),
    ).toMatchObject({ ok: false, path: 'blocks' });
  });

  it('names a malformed block', () => {
    const wrong = { model: 'gpt-5.3-codex', blocks: [{ id: 'a', tokens: -3 }] };
    expect(openAiPromptCache(emptyPromptCacheState(), wrong, T0)).toMatchObject({
      ok: false,
      path: 'blocks[0].tokens',
    });
  });
});

/** GPT-5.6: a developer message, then the user's, and whatever follows. */
const developer = (tokens = 3000): OpenAiCacheBlock => ({
  id: 'static developer instructions',
  tokens,
  messageEnd: 'developer',
});
const user = (text: string, tokens = 200): OpenAiCacheBlock => ({ id: text, tokens, messageEnd: 'user' });

describe('openAiPromptCache on GPT-5.6 and later: breakpoints, writes at 1.25 ×, reads exact', () => {
  it('implicit mode writes through the end of the latest eligible message and reads it back exactly', () => {
    const request = { model: 'gpt-5.6', blocks: [developer(), user('question')] };
    const first = send(emptyPromptCacheState(), request);
    expect(first.usage.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 3200 });
    const second = send(first.state, {
      ...request,
      blocks: [...request.blocks, { id: 'answer', tokens: 400 }, user('follow-up', 100)],
    });
    expect(second.usage).toEqual({
      input_tokens: 3700,
      input_tokens_details: { cached_tokens: 3200, cache_write_tokens: 500 },
    });
  });

  it('"A shared prefix is not always a cached prefix": a new dynamic message misses the implicit write before it', () => {
    const first = send(emptyPromptCacheState(), {
      model: 'gpt-5.6',
      blocks: [developer(), user('dynamic 1')],
    });
    // The end of the initial developer messages is a lookup boundary, but nothing was written there.
    const second = send(first.state, { model: 'gpt-5.6', blocks: [developer(), user('dynamic 2')] });
    expect(second.usage.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 3200 });
  });

  it('…and an explicit breakpoint after the static content in both requests, explicit-only, reads it', () => {
    const staticBlock = { ...developer(), breakpoint: true };
    const first = send(emptyPromptCacheState(), {
      model: 'gpt-5.6',
      mode: 'explicit',
      blocks: [staticBlock, user('dynamic 1')],
    });
    // "Content after the last selected breakpoint is processed at the uncached input-token rate without a cache-write charge".
    expect(first.usage.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 3000 });
    const second = send(first.state, {
      model: 'gpt-5.6',
      mode: 'explicit',
      blocks: [staticBlock, user('dynamic 2')],
    });
    expect(second.usage.input_tokens_details).toEqual({ cached_tokens: 3000, cache_write_tokens: 0 });
  });

  it('"Switching to explicit-only mode can miss an implicit cache write"', () => {
    const first = send(emptyPromptCacheState(), { model: 'gpt-5.6', blocks: [developer(), user('message')] });
    const second = send(first.state, {
      model: 'gpt-5.6',
      mode: 'explicit',
      blocks: [developer(), user('message'), { ...user('follow-up'), breakpoint: true }],
    });
    expect(second.usage.input_tokens_details.cached_tokens).toBe(0);
  });

  it('"Extending a message can prevent reuse of its cached prefix"', () => {
    const first = send(emptyPromptCacheState(), {
      model: 'gpt-5.6',
      blocks: [developer(), user('content A')],
    });
    const second = send(first.state, {
      model: 'gpt-5.6',
      blocks: [developer(), { id: 'content A', tokens: 200 }, user('content B')],
    });
    expect(second.usage.input_tokens_details.cached_tokens).toBe(0);
  });

  it('the last tool output of a group is eligible, the earlier ones are not; 20 earlier message ends are looked up', () => {
    const tool = (id: string): OpenAiCacheBlock => ({ id, tokens: 100, messageEnd: 'tool' });
    const turn = [developer(), user('task'), tool('output 1'), tool('output 2')];
    const first = send(emptyPromptCacheState(), { model: 'gpt-5.6', blocks: turn });
    // The implicit breakpoint is the end of "output 2", the last of the group.
    expect(first.usage.input_tokens_details.cache_write_tokens).toBe(3400);
    const next = send(first.state, { model: 'gpt-5.6', blocks: [...turn, user('next')] });
    expect(next.usage.input_tokens_details.cached_tokens).toBe(3400);
  });

  it('a tool output that is no longer the last of its group is no lookup boundary: its write is missed', () => {
    const tool = (id: string): OpenAiCacheBlock => ({ id, tokens: 100, messageEnd: 'tool' });
    const first = send(emptyPromptCacheState(), {
      model: 'gpt-5.6',
      blocks: [developer(), user('task'), tool('output 1')],
    });
    const grown = send(first.state, {
      model: 'gpt-5.6',
      blocks: [developer(), user('task'), tool('output 1'), tool('output 2')],
    });
    expect(grown.usage.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 3400 });
  });

  it('a developer message after the initial group is no lookup boundary', () => {
    const late = {
      id: 'late developer message',
      tokens: 500,
      messageEnd: 'developer' as const,
      breakpoint: true,
    };
    const first = send(emptyPromptCacheState(), { model: 'gpt-5.6', blocks: [developer(), user('q'), late] });
    const second = send(first.state, {
      model: 'gpt-5.6',
      blocks: [developer(), user('q'), { ...late, breakpoint: false }, user('r')],
    });
    expect(second.usage.input_tokens_details.cached_tokens).toBe(3200);
  });

  it('at most four writes a request: the four furthest breakpoints', () => {
    const blocks = Array.from({ length: 6 }, (_, index) => ({
      id: `part ${index}`,
      tokens: 1100,
      breakpoint: true,
    }));
    const first = send(emptyPromptCacheState(), { model: 'gpt-5.6', mode: 'explicit', blocks });
    expect(Object.keys(first.state.entries)).toHaveLength(4);
    const cut = send(first.state, { model: 'gpt-5.6', mode: 'explicit', blocks: blocks.slice(0, 2) });
    expect(cut.usage.input_tokens_details.cached_tokens).toBe(0);
  });

  it('entries live 30 minutes after their last use', () => {
    const request = { model: 'gpt-5.6', blocks: [developer(), user('q')] };
    const first = send(emptyPromptCacheState(), request);
    expect(send(first.state, request, T0 + 30 * MINUTE - 1).usage.input_tokens_details.cached_tokens).toBe(
      3200,
    );
    expect(send(first.state, request, T0 + 30 * MINUTE).usage.input_tokens_details.cached_tokens).toBe(0);
  });
});
