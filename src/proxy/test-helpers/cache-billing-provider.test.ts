import { describe, expect, it } from 'vitest';
import { createTokenCounter } from '../../tokens/create-token-counter.js';
import { anthropicCacheRequestOf, cacheBillingProvider } from './cache-billing-provider.js';

type Json = Record<string, unknown>;

const counter = createTokenCounter();
const mark = { type: 'ephemeral' };
const long = (name: string) =>
  Array.from({ length: 300 }, (_, line) => `${name} ${line}: ${(line * 7919) % 1000}`).join('\n');

/** A Claude Code-like body: two marked system blocks, the last message block marked. */
function body(results: string[]): Json {
  const messages: Json[] = [{ role: 'user', content: [{ type: 'text', text: 'Review the modules.' }] }];
  results.forEach((text, index) => {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${index}`, name: 'Read', input: { file_path: `/m${index}` } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${index}`, content: text }],
    });
  });
  const last = (messages.at(-1) as { content: Json[] }).content.at(-1) as Json;
  last.cache_control = mark;
  return {
    model: 'claude-sonnet-4-5',
    tools: [{ name: 'Read', description: long('read'), input_schema: { type: 'object' } }],
    system: [
      { type: 'text', text: 'You are Claude Code.', cache_control: mark },
      { type: 'text', text: long('system'), cache_control: mark },
    ],
    messages,
  };
}

describe('the fake provider that bills by the documented cache rules', () => {
  it('reads a block as its tokens and a cache_control mark as a breakpoint, the mark not part of its identity', () => {
    const request = anthropicCacheRequestOf(body(['one']), counter);
    expect(request.tools).toHaveLength(1);
    expect(request.system?.map((block) => block.cacheControl)).toEqual(['5m', '5m']);
    expect(request.messages.map((block) => block.cacheControl)).toEqual([undefined, undefined, '5m']);
    const unmarked = anthropicCacheRequestOf(body(['one', 'two']), counter);
    // The tool_result that carried the mark is the same block once the mark moved on.
    expect(unmarked.messages[2]?.id).toBe(request.messages[2]?.id);
    expect(unmarked.messages[2]?.cacheControl).toBeUndefined();
    expect(request.messages[2]?.tokens).toBe(
      counter.count(JSON.stringify({ content: 'one', tool_use_id: 't0', type: 'tool_result' })),
    );
  });

  it('reads the previous call whole when a call appends, and only up to the system breakpoint after an edit far back', () => {
    const provider = cacheBillingProvider(counter);
    const files = ['a', 'b', 'c'].map(long);
    const first = provider.bill(body(files.slice(0, 2)), 0, 10);
    const whole = (first.cache_creation_input_tokens as number) + (first.input_tokens as number);
    expect(first.cache_read_input_tokens).toBe(0);
    const second = provider.bill(body(files), 1000, 10);
    // The first call's breakpoint (its last block) is two blocks back from the second's: within the lookback.
    expect(second.cache_read_input_tokens).toBe(whole);
    const request = anthropicCacheRequestOf(body(files), counter);
    const head = [...(request.tools ?? []), ...(request.system ?? [])].reduce(
      (sum, block) => sum + block.tokens,
      0,
    );
    // The first tool result replaced: no entry within 20 blocks of the last breakpoint, the system's is read.
    const edited = provider.bill(body(['evicted', files[1] as string, files[2] as string]), 2000, 10);
    expect(edited.cache_read_input_tokens).toBe(head);
    expect(edited.cache_creation_input_tokens).toBe(
      anthropicCacheRequestOf(
        body(['evicted', files[1] as string, files[2] as string]),
        counter,
      ).messages.reduce((sum, block) => sum + block.tokens, 0),
    );
    // Five minutes after the last use the entries are gone: a call then writes everything again.
    const late = provider.bill(body(files), 2000 + 5 * 60_000, 10);
    expect(late.cache_read_input_tokens).toBe(0);
    expect(provider.total.calls).toBe(4);
    expect(provider.total.usd).toBeGreaterThan(0);
  });
});
