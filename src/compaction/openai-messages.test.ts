import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import type { HistoryItem } from './history-item.js';
import { fromOpenAIMessages, type OpenAIChatMessage, toOpenAIMessages } from './openai-messages.js';

const conversation: OpenAIChatMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Read src/a.ts' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } },
      {
        id: 'call_2',
        type: 'function',
        function: { name: 'grep', arguments: '{"pattern":"a","dir":"src"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
  { role: 'tool', tool_call_id: 'call_2', content: 'src/a.ts:1' },
  { role: 'assistant', content: 'It exports a = 1.' },
];

describe('fromOpenAIMessages', () => {
  it('reads text, tool calls and tool results into history items', () => {
    expect(fromOpenAIMessages(conversation)).toEqual([
      { kind: 'system', id: 'm0.0', text: 'You are a coding agent.' },
      { kind: 'user', id: 'm1.0', text: 'Read src/a.ts' },
      { kind: 'tool-call', id: 'call_1', callId: 'call_1', name: 'read_file', input: { path: 'src/a.ts' } },
      {
        kind: 'tool-call',
        id: 'call_2',
        callId: 'call_2',
        name: 'grep',
        input: { pattern: 'a', dir: 'src' },
      },
      { kind: 'tool-result', id: 'call_1:result', callId: 'call_1', content: 'export const a = 1;' },
      { kind: 'tool-result', id: 'call_2:result', callId: 'call_2', content: 'src/a.ts:1' },
      { kind: 'assistant', id: 'm5.0', text: 'It exports a = 1.' },
    ] satisfies HistoryItem[]);
  });

  it('keeps the developer role, non-text parts as opaque items and tool content parts as blocks', () => {
    const items = fromOpenAIMessages([
      { role: 'developer', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'https://example.com/x.png' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c9', content: [{ type: 'text', text: 'part one' }] },
    ]);
    expect(items).toEqual([
      { kind: 'system', id: 'm0.0', text: 'Be brief.', developer: true },
      { kind: 'user', id: 'm1.0', text: 'What is this?' },
      {
        kind: 'opaque',
        id: 'm1.1',
        role: 'user',
        provider: 'openai',
        value: { type: 'image_url', image_url: { url: 'https://example.com/x.png' } },
      },
      {
        kind: 'tool-result',
        id: 'c9:result',
        callId: 'c9',
        content: '[{"type":"text","text":"part one"}]',
        format: 'blocks',
      },
    ]);
  });

  it('keeps arguments that are not JSON as their raw text', () => {
    const [call] = fromOpenAIMessages([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{"a":' } }],
      },
    ]);
    expect(call).toMatchObject({ kind: 'tool-call', input: '{"a":' });
  });

  it('rejects a message that is not OpenAI-shaped, naming the field', () => {
    try {
      fromOpenAIMessages([{ role: 'tool', content: 'no id' }]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(BarometerValidationError);
      expect((error as BarometerValidationError).issues[0]?.field).toBe('[0].tool_call_id');
    }
  });
});

describe('toOpenAIMessages', () => {
  it('round-trips a conversation: OpenAI → history → OpenAI', () => {
    expect(toOpenAIMessages(fromOpenAIMessages(conversation))).toEqual(conversation);
  });

  it('round-trips developer messages, mixed parts, block results and raw arguments', () => {
    const messages: OpenAIChatMessage[] = [
      { role: 'developer', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'https://example.com/x.png' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: 'not json' } }],
      },
      { role: 'tool', tool_call_id: 'x', content: [{ type: 'text', text: 'part one' }] },
    ];
    expect(toOpenAIMessages(fromOpenAIMessages(messages))).toEqual(messages);
  });

  it('round-trips history → OpenAI → history', () => {
    const items = fromOpenAIMessages(conversation);
    expect(fromOpenAIMessages(toOpenAIMessages(items))).toEqual(items);
  });

  it('writes a recap and the next request, both user items, as one user message', () => {
    const items: HistoryItem[] = [
      { kind: 'user', id: 'recap-1', text: 'Recap', recap: true },
      { kind: 'user', id: 'u', text: 'Go on' },
    ];
    expect(toOpenAIMessages(items)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Recap' },
          { type: 'text', text: 'Go on' },
        ],
      },
    ]);
  });

  it('refuses an opaque part from another provider', () => {
    const items: HistoryItem[] = [
      { kind: 'opaque', id: 'o', role: 'assistant', provider: 'anthropic', value: {} },
    ];
    expect(() => toOpenAIMessages(items)).toThrow(/\[0\]\.provider/);
  });
});
