import { describe, expect, it } from 'vitest';
import { markBreakpoint } from './proxy-breakpoint.js';

const mark = (ttl?: '1h') => (ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' });

/** A request cut as the proxy cuts it: before the tombstone's block, the block, after it. */
function request(breakpoints: { system: number; last?: '5m' | '1h' }) {
  const system = Array.from({ length: breakpoints.system }, (_, index) => ({
    type: 'text',
    text: `system ${index}`,
    cache_control: mark(),
  }));
  const tombstone = { type: 'tool_result', tool_use_id: 'toolu_1', content: '[barometer evicted this …]' };
  const last = {
    type: 'text',
    text: 'go on',
    ...(breakpoints.last ? { cache_control: mark(breakpoints.last === '1h' ? '1h' : undefined) } : {}),
  };
  const before = JSON.stringify({
    model: 'claude-sonnet-4-5',
    system,
    messages: [{ role: 'user', content: [] }],
  });
  const head = before.slice(0, -4);
  const parts = [
    Buffer.from(head),
    Buffer.from(JSON.stringify(tombstone)),
    Buffer.from(`,${JSON.stringify(last)}]}]}`),
  ];
  return parts;
}

const parsed = (parts: Buffer[]) =>
  JSON.parse(Buffer.concat(parts).toString()) as {
    messages: Array<{ content: Array<Record<string, unknown>> }>;
  };

describe('markBreakpoint (Anthropic: at most 4 breakpoints, a fifth is a 400)', () => {
  it("puts a breakpoint on the tombstone's block with the lifetime of the agent's first one after it", () => {
    for (const [last, ttl] of [
      ['5m', '5m'],
      ['1h', '1h'],
      [undefined, '5m'],
    ] as const) {
      const parts = request({ system: 2, ...(last ? { last } : {}) });
      expect(markBreakpoint(parts, 1)).toBe(ttl);
      const block = parsed(parts).messages[0]!.content[0]!;
      expect(block.cache_control).toEqual(mark(ttl === '1h' ? '1h' : undefined));
    }
  });

  it('adds none when the request holds 4 already, or the block has one of its own, and changes no byte', () => {
    const full = request({ system: 3, last: '5m' });
    const before = Buffer.concat(full).toString();
    expect(markBreakpoint(full, 1)).toBeNull();
    expect(Buffer.concat(full).toString()).toBe(before);
    const marked = request({ system: 1 });
    marked[1] = Buffer.from(
      JSON.stringify({ type: 'tool_result', tool_use_id: 'x', content: 'y', cache_control: mark() }),
    );
    expect(markBreakpoint(marked, 1)).toBeNull();
  });

  it('counts a breakpoint whose key is split across two parts', () => {
    const parts = request({ system: 3, last: '5m' });
    const text = Buffer.concat([parts[2]!]).toString();
    const cut = text.indexOf('cache_control') + 4;
    const split = [parts[0]!, parts[1]!, Buffer.from(text.slice(0, cut)), Buffer.from(text.slice(cut))];
    expect(markBreakpoint(split, 1)).toBeNull();
  });
});
