import { describe, expect, it } from 'vitest';
import { fromAnthropicMessages } from './anthropic-messages.js';
import type { HistoryItem } from './history-item.js';
import { fromModelMessages, type ModelMessage, toModelMessages } from './model-messages.js';

const conversation: ModelMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Read src/a.ts' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'src/a.ts' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'stat', input: { path: 'src/a.ts' } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'read_file',
        output: { type: 'text', value: 'export const a = 1;' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'stat',
        output: { type: 'json', value: { size: 20 } },
      },
    ],
  },
  { role: 'assistant', content: 'It exports a = 1.' },
];

describe('fromModelMessages', () => {
  it('reads text, tool-call parts and tool-result parts (text and json outputs)', () => {
    expect(fromModelMessages(conversation)).toEqual([
      { kind: 'system', id: 'm0.0', text: 'You are a coding agent.' },
      { kind: 'user', id: 'm1.0', text: 'Read src/a.ts' },
      { kind: 'assistant', id: 'm2.0', text: 'Reading it.' },
      { kind: 'tool-call', id: 'c1', callId: 'c1', name: 'read_file', input: { path: 'src/a.ts' } },
      { kind: 'tool-call', id: 'c2', callId: 'c2', name: 'stat', input: { path: 'src/a.ts' } },
      {
        kind: 'tool-result',
        id: 'c1:result',
        callId: 'c1',
        name: 'read_file',
        content: 'export const a = 1;',
      },
      {
        kind: 'tool-result',
        id: 'c2:result',
        callId: 'c2',
        name: 'stat',
        content: '{"size":20}',
        format: 'json',
      },
      { kind: 'assistant', id: 'm4.0', text: 'It exports a = 1.' },
    ] satisfies HistoryItem[]);
  });

  it('keeps images and reasoning as opaque items', () => {
    const items = fromModelMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'See' },
          { type: 'image', image: 'https://example.com/x.png' },
        ],
      },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] },
    ]);
    expect(items.map((item) => item.kind)).toEqual(['user', 'opaque', 'opaque']);
  });
});

describe('toModelMessages', () => {
  it('round-trips a conversation: ModelMessage → history → ModelMessage', () => {
    expect(toModelMessages(fromModelMessages(conversation))).toEqual(conversation);
  });

  it('round-trips error, error-json and content outputs, images and reasoning', () => {
    const messages: ModelMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'See' },
          { type: 'image', image: 'https://example.com/x.png' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'bash', input: { command: 'make' } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'api', input: {} },
          { type: 'tool-call', toolCallId: 'c', toolName: 'shot', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'bash',
            output: { type: 'error-text', value: 'exit 2' },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'api',
            output: { type: 'error-json', value: { code: 500 } },
          },
          {
            type: 'tool-result',
            toolCallId: 'c',
            toolName: 'shot',
            output: { type: 'content', value: [{ type: 'text', text: 'caption' }] },
          },
        ],
      },
    ];
    expect(toModelMessages(fromModelMessages(messages))).toEqual(messages);
  });

  it('round-trips history → ModelMessage → history', () => {
    const items = fromModelMessages(conversation);
    expect(fromModelMessages(toModelMessages(items))).toEqual(items);
  });

  it('names a result’s tool from its call when the source provider did not (Anthropic)', () => {
    const items = fromAnthropicMessages({
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't', name: 'bash', input: { command: 'ls' } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't', content: 'a b', is_error: false }],
        },
      ],
    });
    expect(toModelMessages(items)).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 't', toolName: 'bash', input: { command: 'ls' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 't', toolName: 'bash', output: { type: 'text', value: 'a b' } },
        ],
      },
    ]);
  });

  it('refuses a result whose tool cannot be named', () => {
    const items: HistoryItem[] = [{ kind: 'tool-result', id: 'r', callId: 'lost', content: 'x' }];
    expect(() => toModelMessages(items)).toThrow(/\[0\]\.name/);
  });
});
