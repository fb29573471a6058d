import { describe, expect, it } from 'vitest';
import { type AnthropicCacheRequest, checkAnthropicRequest } from './anthropic-cache-request.js';
import { anthropicPromptCache } from './anthropic-prompt-cache.js';
import { emptyPromptCacheState } from './prompt-cache-state.js';
import { marked, numberedBlocks } from './test-helpers/cache-blocks.js';

/* The API's refusals, from the prompt caching guide (https://platform.claude.com/docs/en/build-with-claude/prompt-caching). */

const request = (overrides: Partial<AnthropicCacheRequest>): AnthropicCacheRequest => ({
  model: 'claude-sonnet-4-5',
  messages: numberedBlocks(6, 400),
  ...overrides,
});

describe('checkAnthropicRequest: at most 4 breakpoints', () => {
  it('accepts four breakpoints', () => {
    const checked = checkAnthropicRequest(
      request({ messages: marked(numberedBlocks(6, 400), { 1: '5m', 2: '5m', 3: '5m', 6: '5m' }) }),
    );
    expect(checked.ok && checked.breakpoints.map((point) => point.position)).toEqual([0, 1, 2, 5]);
  });

  it('refuses a fifth, naming the block that carries it, and the model answers no state', () => {
    const fifth = request({
      system: [{ id: 's', tokens: 100, cacheControl: '5m' }],
      messages: marked(numberedBlocks(6, 400), { 1: '5m', 2: '5m', 3: '5m', 6: '5m' }),
    });
    expect(checkAnthropicRequest(fifth)).toMatchObject({
      ok: false,
      code: 'too_many_breakpoints',
      path: 'messages[5].cacheControl',
    });
    const result = anthropicPromptCache(emptyPromptCacheState(), fifth, 0);
    expect(result.ok).toBe(false);
    expect('state' in result).toBe(false);
  });

  it('counts the automatic breakpoint in the 4: four block breakpoints and a top-level cache_control are refused', () => {
    const automatic = request({
      automatic: '5m',
      messages: marked(numberedBlocks(6, 400), { 1: '5m', 2: '5m', 3: '5m', 4: '5m' }),
    });
    expect(checkAnthropicRequest(automatic)).toMatchObject({
      ok: false,
      code: 'too_many_breakpoints',
      path: 'automatic',
    });
  });

  it('the automatic breakpoint on a last block that already has the same lifetime is a no-op, not a fifth', () => {
    const automatic = request({
      automatic: '5m',
      messages: marked(numberedBlocks(6, 400), { 1: '5m', 2: '5m', 3: '5m', 6: '5m' }),
    });
    const checked = checkAnthropicRequest(automatic);
    expect(checked.ok && checked.breakpoints).toHaveLength(4);
  });
});

describe('checkAnthropicRequest: automatic caching', () => {
  it('puts the breakpoint on the last block', () => {
    const checked = checkAnthropicRequest(request({ automatic: '1h' }));
    expect(checked.ok && checked.breakpoints).toEqual([{ position: 5, ttl: '1h', lifetimeMs: 3_600_000 }]);
  });

  it('walks back over blocks that cannot carry cache_control (thinking), and skips caching when none can', () => {
    const thinking = { id: 'thinking', tokens: 300, cacheable: false };
    const checked = checkAnthropicRequest(
      request({ automatic: '5m', messages: [...numberedBlocks(3, 400), thinking] }),
    );
    expect(checked.ok && checked.breakpoints.map((point) => point.position)).toEqual([2]);
    const none = checkAnthropicRequest(request({ automatic: '5m', messages: [thinking] }));
    expect(none.ok && none.breakpoints).toEqual([]);
  });

  it('refuses a last block whose own cache_control has another lifetime', () => {
    const conflict = request({ automatic: '5m', messages: marked(numberedBlocks(6, 400), { 6: '1h' }) });
    expect(checkAnthropicRequest(conflict)).toMatchObject({
      ok: false,
      code: 'automatic_ttl_conflict',
      path: 'messages[5].cacheControl',
    });
  });
});

describe('checkAnthropicRequest: lifetimes in order', () => {
  it('accepts 1-hour breakpoints before 5-minute ones', () => {
    const checked = checkAnthropicRequest(
      request({ messages: marked(numberedBlocks(6, 400), { 1: '1h', 3: '1h', 6: '5m' }) }),
    );
    expect(checked.ok).toBe(true);
  });

  it('refuses a 1-hour breakpoint after a 5-minute one, naming it', () => {
    const wrong = request({
      system: [{ id: 's', tokens: 2000, cacheControl: '5m' }],
      messages: marked(numberedBlocks(6, 400), { 6: '1h' }),
    });
    expect(checkAnthropicRequest(wrong)).toMatchObject({
      ok: false,
      code: 'ttl_order',
      path: 'messages[5].cacheControl',
    });
  });

  it('refuses a 1-hour automatic breakpoint after a 5-minute block breakpoint', () => {
    const wrong = request({ automatic: '1h', messages: marked(numberedBlocks(6, 400), { 2: '5m' }) });
    expect(checkAnthropicRequest(wrong)).toMatchObject({ ok: false, code: 'ttl_order', path: 'automatic' });
  });
});

describe('checkAnthropicRequest: blocks', () => {
  it('refuses cache_control on a thinking block', () => {
    const wrong = request({
      messages: [{ id: 'thinking', tokens: 10, cacheable: false, cacheControl: '5m' }],
    });
    expect(checkAnthropicRequest(wrong)).toMatchObject({
      ok: false,
      code: 'breakpoint_not_cacheable',
      path: 'messages[0].cacheControl',
    });
  });

  it.each([
    [{ id: '', tokens: 1 }, 'tools[0].id'],
    [{ id: 'a', tokens: -1 }, 'tools[0].tokens'],
    [{ id: 'a', tokens: 1.5 }, 'tools[0].tokens'],
    [{ id: 'a', tokens: 1, cacheControl: '10m' as never }, 'tools[0].cacheControl'],
  ])('names the field of a malformed block %j', (block, path) => {
    const wrong = request({ tools: [block] });
    expect(checkAnthropicRequest(wrong)).toMatchObject({ ok: false, code: 'invalid_request', path });
  });

  it('names a missing model and a level that is not a list', () => {
    expect(checkAnthropicRequest({ ...request({}), model: '' })).toMatchObject({ ok: false, path: 'model' });
    expect(checkAnthropicRequest(request({ system: 'You are…' as never }))).toMatchObject({
      ok: false,
      path: 'system',
    });
  });

  it('reads tools, then system, then messages, whatever order the caller wrote them in', () => {
    const checked = checkAnthropicRequest({
      messages: [{ id: 'm', tokens: 1 }],
      system: [{ id: 's', tokens: 1 }],
      tools: [{ id: 't', tokens: 1 }],
      model: 'claude-sonnet-4-5',
    });
    expect(checked.ok && checked.blocks.map((block) => block.id)).toEqual(['t', 's', 'm']);
    expect(checked.ok && [checked.systemStart, checked.messagesStart]).toEqual([1, 2]);
  });
});
