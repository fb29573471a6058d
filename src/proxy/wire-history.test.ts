import { describe, expect, it } from 'vitest';
import { applyEdits, contentFingerprint, type EditBook, historyOf } from './wire-history.js';

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

describe('historyOf: failed tool results', () => {
  it("carries Anthropic's is_error, so that a failed commit ends no sub-task", () => {
    const body = {
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'git commit -m x' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'c1',
              content: 'fatal: not a git repository',
              is_error: true,
            },
          ],
        },
      ],
    };
    expect(historyOf('anthropic', body, new Map())[1]).toMatchObject({ kind: 'tool-result', isError: true });
  });
});

describe('edits of a call id that is used again (issue 40: gateways number calls per turn, `call_0`)', () => {
  const old = 'x'.repeat(400);
  const reused: EditBook = new Map([
    [
      'call_0',
      {
        result: '[evicted result]',
        resultOf: contentFingerprint(old),
        input: '[evicted input]',
        inputOf: contentFingerprint('{"path":"/old"}'),
      },
    ],
  ]);
  const chat = () => ({
    messages: [
      {
        role: 'assistant',
        tool_calls: [{ id: 'call_0', function: { name: 'read', arguments: '{"path":"/old"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_0', content: old },
      {
        role: 'assistant',
        tool_calls: [{ id: 'call_0', function: { name: 'read', arguments: '{"path":"/new"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_0', content: 'the live result' },
    ],
  });

  it('tombstones the evicted call only, never the live one that reuses its id', () => {
    const body = chat();
    expect(applyEdits('openai-chat', body, reused)).toBe(2);
    expect(body.messages[0]!.tool_calls![0]!.function.arguments).toBe('{"evicted":"[evicted input]"}');
    expect(body.messages[1]!.content).toBe('[evicted result]');
    expect(body.messages[2]!.tool_calls![0]!.function.arguments).toBe('{"path":"/new"}');
    expect(body.messages[3]!.content).toBe('the live result');
  });

  it('reads the evicted call as archived and the live one as live, before and after the edits are written in', () => {
    for (const body of [
      chat(),
      (() => {
        const edited = chat();
        applyEdits('openai-chat', edited, reused);
        return edited;
      })(),
    ]) {
      const results = historyOf('openai-chat', body, reused).filter((item) => item.kind === 'tool-result');
      expect(results.map((item) => 'archivedTo' in item && item.archivedTo)).toEqual([
        '[evicted result]',
        false,
      ]);
    }
  });

  it('does the same on the Responses wire', () => {
    const body = {
      input: [
        { type: 'function_call_output', call_id: 'call_0', output: old },
        { type: 'function_call_output', call_id: 'call_0', output: 'the live result' },
      ],
    };
    expect(applyEdits('openai-responses', body, reused)).toBe(1);
    expect(body.input.map((item) => item.output)).toEqual(['[evicted result]', 'the live result']);
  });
});
