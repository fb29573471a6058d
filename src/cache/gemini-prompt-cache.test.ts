import { describe, expect, it } from 'vitest';
import { geminiPromptCache } from './gemini-prompt-cache.js';
import { emptyPromptCacheState } from './prompt-cache-state.js';
import { accepted } from './test-helpers/cache-blocks.js';

/* Gemini's implicit caching (https://ai.google.dev/gemini-api/docs/caching). */

const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);
const MINUTE = 60_000;

const request = (shared: number, question: string, model = 'gemini-2.5-flash') => ({
  model,
  blocks: [
    { id: 'large common contents at the beginning', tokens: shared },
    { id: question, tokens: 100 },
  ],
});

describe('geminiPromptCache', () => {
  it('reads the prefix a request shares with a recent one, at or above the model minimum (2,048 on 2.5 Flash)', () => {
    const first = accepted(geminiPromptCache(emptyPromptCacheState(), request(3000, 'first'), T0));
    expect(first.usage).toEqual({ promptTokenCount: 3100, cachedContentTokenCount: 0 });
    const second = accepted(geminiPromptCache(first.state, request(3000, 'second'), T0 + MINUTE));
    expect(second.usage).toEqual({ promptTokenCount: 3100, cachedContentTokenCount: 3000 });
    expect(second.tokens.cacheWrite5mTokens + second.tokens.cacheWrite1hTokens).toBe(0);
  });

  it('reads nothing under the minimum: 2,000 shared tokens on 2.5 Flash, 3,000 on 3.5 Flash (4,096)', () => {
    const short = accepted(geminiPromptCache(emptyPromptCacheState(), request(2000, 'first'), T0));
    expect(
      accepted(geminiPromptCache(short.state, request(2000, 'second'), T0)).usage.cachedContentTokenCount,
    ).toBe(0);
    const flash = accepted(
      geminiPromptCache(emptyPromptCacheState(), request(3000, 'first', 'gemini-3.5-flash'), T0),
    );
    expect(
      accepted(geminiPromptCache(flash.state, request(3000, 'second', 'gemini-3.5-flash'), T0)).usage
        .cachedContentTokenCount,
    ).toBe(0);
  });

  it('keeps an unused entry 5 minutes (the model choice: the page gives no lifetime)', () => {
    const first = accepted(geminiPromptCache(emptyPromptCacheState(), request(3000, 'q'), T0));
    expect(
      accepted(geminiPromptCache(first.state, request(3000, 'q'), T0 + 5 * MINUTE - 1)).usage
        .cachedContentTokenCount,
    ).toBe(3100);
    expect(
      accepted(geminiPromptCache(first.state, request(3000, 'q'), T0 + 5 * MINUTE)).usage
        .cachedContentTokenCount,
    ).toBe(0);
  });

  it('caches nothing on a model before 2.5', () => {
    const first = accepted(
      geminiPromptCache(emptyPromptCacheState(), request(9000, 'q', 'gemini-2.0-flash'), T0),
    );
    expect(first.minimumTokens).toBeNull();
    expect(
      accepted(geminiPromptCache(first.state, request(9000, 'q', 'gemini-2.0-flash'), T0)).usage
        .cachedContentTokenCount,
    ).toBe(0);
  });

  it('names a missing model', () => {
    expect(geminiPromptCache(emptyPromptCacheState(), { model: '', blocks: [] }, T0)).toMatchObject({
      ok: false,
      path: 'model',
    });
  });

  it('names a malformed block', () => {
    expect(
      geminiPromptCache(
        emptyPromptCacheState(),
        { model: 'gemini-2.5-pro', blocks: [{ id: '', tokens: 1 }] },
        T0,
      ),
    ).toMatchObject({
      ok: false,
      path: 'blocks[0].id',
    });
  });
});
