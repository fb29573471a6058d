import { describe, expect, it } from 'vitest';
import {
  applyEdits,
  type EditBook,
  evictedInput,
  historyOf,
  spliceEdits,
  wireValue,
} from './wire-history.js';

const edits: EditBook = new Map([['call_1', { result: '[evicted result]', input: '[evicted input]' }]]);

describe('applyEdits', () => {
  it('rewrites an Anthropic tool_result and tool_use, and leaves thinking, signatures and cache_control alone', () => {
    const thinking = { type: 'thinking', thinking: 'plan', signature: 'sig==' };
    const body = {
      messages: [
        { role: 'user', content: 'read it' },
        {
          role: 'assistant',
          content: [thinking, { type: 'tool_use', id: 'call_1', name: 'Read', input: { file_path: '/a' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'call_1',
              content: 'x'.repeat(500),
              cache_control: { type: 'ephemeral' },
            },
          ],
        },
      ],
    };
    expect(applyEdits('anthropic', body, edits)).toBe(2);
    expect(body.messages[1]!.content).toEqual([
      { type: 'thinking', thinking: 'plan', signature: 'sig==' },
      { type: 'tool_use', id: 'call_1', name: 'Read', input: { evicted: '[evicted input]' } },
    ]);
    expect(body.messages[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'call_1',
        content: '[evicted result]',
        cache_control: { type: 'ephemeral' },
      },
    ]);
  });

  it('rewrites a chat tool message and its call’s arguments (as JSON text)', () => {
    const body = {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"/a"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'long output' },
      ],
    };
    expect(applyEdits('openai-chat', body, edits)).toBe(2);
    expect(body.messages[0]!.tool_calls![0]!.function.arguments).toBe('{"evicted":"[evicted input]"}');
    expect(body.messages[1]!.content).toBe('[evicted result]');
  });

  it('rewrites a Responses function_call and its output', () => {
    const body = {
      input: [
        { type: 'function_call', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"cat a"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'long output' },
        { type: 'reasoning', encrypted_content: 'opaque' },
      ],
    };
    expect(applyEdits('openai-responses', body, edits)).toBe(2);
    expect(body.input[1]).toEqual({
      type: 'function_call_output',
      call_id: 'call_1',
      output: '[evicted result]',
    });
    expect(body.input[2]).toEqual({ type: 'reasoning', encrypted_content: 'opaque' });
  });
});

describe('historyOf', () => {
  it('reads tool pairs, text and opaque blocks, and marks what the edits archived', () => {
    const items = historyOf(
      'anthropic',
      {
        system: [{ type: 'text', text: 'you are an agent' }],
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 't', signature: 's' },
              { type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: 'git commit -m x' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'ok' }] },
        ],
      },
      edits,
    );
    expect(items.map((item) => item.kind)).toEqual(['system', 'user', 'opaque', 'tool-call', 'tool-result']);
    expect(items[3]).toMatchObject({ callId: 'call_1', archivedTo: '[evicted input]' });
    expect(items[4]).toMatchObject({ callId: 'call_1', content: 'ok', archivedTo: '[evicted result]' });
  });
});

describe('spliceEdits', () => {
  const anthropic = () => ({
    model: 'claude-sonnet-4-5',
    messages: [
      { role: 'user', content: 'read' },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'call_1',
            name: 'Write',
            input: { file_path: '/a', content: 'y'.repeat(300) },
          },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'line "one"\n'.repeat(50) }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_2', content: 'kept' }] },
    ],
  });
  const chat = () => ({
    messages: [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'write', arguments: '{"path":"/a","text":"zzz"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'long output' },
    ],
  });
  const responses = () => ({
    input: [
      { type: 'function_call', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"cat a"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'long output' },
    ],
  });

  it.each([
    ['anthropic', anthropic],
    ['openai-chat', chat],
    ['openai-responses', responses],
  ] as const)('gives the same bytes as parsing, editing and serializing (%s)', (format, make) => {
    const book: EditBook = new Map([['call_1', { result: '[r]', input: '[i]' }]]);
    const edit = book.get('call_1')!;
    edit.splices = {
      result: {
        from: JSON.stringify(wireValue(format, make(), 'call_1', 'result')),
        to: JSON.stringify('[r]'),
      },
      input: {
        from: JSON.stringify(wireValue(format, make(), 'call_1', 'input')),
        to: JSON.stringify(evictedInput(format, '[i]')),
      },
    };
    const parsed = make();
    applyEdits(format, parsed, book);
    expect(spliceEdits(JSON.stringify(make()), book)).toEqual({ text: JSON.stringify(parsed), changed: 2 });
  });

  it('gives up (the caller parses) when an original occurs twice or not at all', () => {
    const book: EditBook = new Map([
      ['call_1', { result: '[r]', splices: { result: { from: '"same"', to: '"[r]"' } } }],
    ]);
    expect(spliceEdits(JSON.stringify({ a: 'call_1', b: 'same', c: 'same' }), book)).toBeUndefined();
    expect(spliceEdits(JSON.stringify({ a: 'call_1', b: 'other' }), book)).toBeUndefined();
    expect(spliceEdits(JSON.stringify({ a: 'no such call' }), book)).toEqual({
      text: '{"a":"no such call"}',
      changed: 0,
    });
  });
});
