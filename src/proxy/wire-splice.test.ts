import { describe, expect, it } from 'vitest';
import type { WireFormat } from './session-key.js';
import { applyEdits, type EditBook } from './wire-history.js';
import { locateEdits, spliceEdits } from './wire-splice.js';

type Json = Record<string, unknown>;

const edits: EditBook = new Map([
  ['toolu_1', { result: '[evicted result 1]' }],
  ['toolu_2', { result: '[evicted result 2]', input: '[evicted input 2]' }],
]);

/** A Claude Code-like request: `turns` reads, thinking and a cache_control mark on the last block. */
function request(turns: number, tail: Json = {}): Json {
  const messages: Json[] = [{ role: 'user', content: 'read the files' }];
  for (let index = 1; index <= turns; index++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `plan ${index}`, signature: `sig${index}==` },
        { type: 'tool_use', id: `toolu_${index}`, name: 'Read', input: { file_path: `/w/f${index}.ts` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `toolu_${index}`, content: `é line\n`.repeat(50 * index) },
      ],
    });
  }
  const last = (messages.at(-1) as { content: Json[] }).content;
  if (Array.isArray(last)) (last[0] as Json).cache_control = { type: 'ephemeral' };
  return { model: 'claude-sonnet-4-5', system: [{ type: 'text', text: 'agent' }], messages, ...tail };
}

/** The bytes cut into chunks as a socket delivers them. */
function chunked(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

function parsedAndEdited(format: WireFormat, body: Json): Json {
  const copy = structuredClone(body);
  applyEdits(format, copy, edits);
  return copy;
}

describe('spliceEdits', () => {
  it('writes the edits into a later request of the conversation as parsing and re-serializing would', () => {
    const first = request(3, { stream: true });
    const firstBytes = Buffer.from(JSON.stringify(first));
    const copy = locateEdits('anthropic', firstBytes, first, edits, 1);
    expect(copy?.blocks).toHaveLength(3);
    // The next request: two more turns, the cache_control mark moved to the new last block.
    const next = request(5, { stream: true });
    for (const size of [7, 1000, 1 << 20]) {
      const spliced = spliceEdits(chunked(Buffer.from(JSON.stringify(next)), size), [copy!], 1);
      expect(spliced?.blocks).toBe(3);
      const sent = JSON.parse(Buffer.concat(spliced!.parts).toString('utf8')) as Json;
      expect(sent).toEqual(parsedAndEdited('anthropic', next));
    }
  });

  it('answers undefined (parse instead) for an older edit book, or an edited call in the new part', () => {
    const first = request(1);
    const copy = locateEdits('anthropic', Buffer.from(JSON.stringify(first)), first, edits, 1)!;
    const next = Buffer.from(JSON.stringify(request(3)));
    expect(spliceEdits([next], [copy], 2)).toBeUndefined();
    // toolu_2 is edited and first appears in the new part: the copy cannot say where it is.
    expect(spliceEdits([next], [copy], 1)).toBeUndefined();
  });

  it('leaves a request with no edited block as it came', () => {
    const first = request(1);
    const copy = locateEdits('anthropic', Buffer.from(JSON.stringify(first)), first, new Map(), 1)!;
    const other = Buffer.from(JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }));
    const spliced = spliceEdits([other], [copy], 1);
    expect(spliced?.blocks).toBe(0);
    expect(Buffer.concat(spliced!.parts).equals(other)).toBe(true);
  });

  it('does not locate blocks in JSON written otherwise than JSON.stringify writes it', () => {
    const first = request(2);
    const spaced = Buffer.from(JSON.stringify(first, null, 1));
    expect(locateEdits('anthropic', spaced, first, edits, 1)).toBeUndefined();
  });

  it('splices Chat Completions messages and Responses items', () => {
    const chat: Json = {
      model: 'gpt-5',
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_2', type: 'function', function: { name: 'read', arguments: '{"p":1}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_2', content: 'long output' },
      ],
    };
    const responses: Json = {
      model: 'gpt-5',
      input: [
        { type: 'function_call', call_id: 'toolu_2', name: 'exec', arguments: '{"cmd":"ls"}' },
        { type: 'function_call_output', call_id: 'toolu_2', output: 'a\nb' },
        { type: 'reasoning', encrypted_content: 'opaque' },
      ],
    };
    for (const [format, body, more] of [
      ['openai-chat', chat, { messages: [...(chat.messages as Json[]), { role: 'user', content: 'next' }] }],
      [
        'openai-responses',
        responses,
        { input: [...(responses.input as Json[]), { role: 'user', content: 'x' }] },
      ],
    ] as const) {
      const copy = locateEdits(format, Buffer.from(JSON.stringify(body)), body, edits, 1)!;
      const next = { ...body, ...more };
      const spliced = spliceEdits([Buffer.from(JSON.stringify(next))], [copy], 1);
      expect(spliced?.blocks).toBe(2);
      expect(JSON.parse(Buffer.concat(spliced!.parts).toString('utf8'))).toEqual(
        parsedAndEdited(format, next),
      );
    }
  });
});
