import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import {
  type AnthropicConversation,
  fromAnthropicMessages,
  toAnthropicMessages,
} from './anthropic-messages.js';
import type { HistoryItem } from './history-item.js';
import { fromOpenAIMessages } from './openai-messages.js';

const conversation: AnthropicConversation = {
  system: 'You are a coding agent.',
  messages: [
    { role: 'user', content: 'Read src/a.ts' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading it.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/a.ts' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const a = 1;' },
        { type: 'text', text: 'Now fix it.' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The constant is fine.', signature: 'c2ln' },
        { type: 'text', text: 'Nothing to fix.' },
      ],
    },
  ],
};

describe('fromAnthropicMessages', () => {
  it('reads the system prompt, text, tool_use and tool_result blocks, and keeps thinking opaque', () => {
    expect(fromAnthropicMessages(conversation)).toEqual([
      { kind: 'system', id: 'ms.0', text: 'You are a coding agent.' },
      { kind: 'user', id: 'm0.0', text: 'Read src/a.ts' },
      { kind: 'assistant', id: 'm1.0', text: 'Reading it.' },
      { kind: 'tool-call', id: 'toolu_1', callId: 'toolu_1', name: 'read_file', input: { path: 'src/a.ts' } },
      { kind: 'tool-result', id: 'toolu_1:result', callId: 'toolu_1', content: 'export const a = 1;' },
      { kind: 'user', id: 'm2.1', text: 'Now fix it.' },
      {
        kind: 'opaque',
        id: 'm3.0',
        role: 'assistant',
        provider: 'anthropic',
        value: { type: 'thinking', thinking: 'The constant is fine.', signature: 'c2ln' },
      },
      { kind: 'assistant', id: 'm3.1', text: 'Nothing to fix.' },
    ] satisfies HistoryItem[]);
  });

  it('keeps is_error and block contents of tool results', () => {
    const items = fromAnthropicMessages({
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't',
              content: [{ type: 'text', text: 'boom' }],
              is_error: true,
            },
          ],
        },
      ],
    });
    expect(items).toEqual([
      {
        kind: 'tool-result',
        id: 't:result',
        callId: 't',
        content: '[{"type":"text","text":"boom"}]',
        format: 'blocks',
        isError: true,
      },
    ]);
  });

  it('rejects a message with an unknown role', () => {
    expect(() => fromAnthropicMessages({ messages: [{ role: 'tool', content: 'x' }] })).toThrow(
      BarometerValidationError,
    );
  });
});

describe('toAnthropicMessages', () => {
  it('round-trips a conversation: Anthropic → history → Anthropic', () => {
    expect(toAnthropicMessages(fromAnthropicMessages(conversation))).toEqual(conversation);
  });

  it('round-trips history → Anthropic → history', () => {
    const items = fromAnthropicMessages(conversation);
    expect(fromAnthropicMessages(toAnthropicMessages(items))).toEqual(items);
  });

  it('round-trips error results with block content and a system prompt in blocks', () => {
    const withBlocks: AnthropicConversation = {
      system: [
        { type: 'text', text: 'One.' },
        { type: 'text', text: 'Two.' },
      ],
      messages: [
        { role: 'user', content: 'Run it' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't', name: 'bash', input: { command: 'make' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't',
              content: [{ type: 'text', text: 'boom' }],
              is_error: true,
            },
          ],
        },
      ],
    };
    expect(toAnthropicMessages(fromAnthropicMessages(withBlocks))).toEqual(withBlocks);
  });

  it('writes an OpenAI conversation with the tool result in a user message after its tool_use', () => {
    const items = fromOpenAIMessages([
      { role: 'system', content: 'Sys' },
      { role: 'user', content: 'List files' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: 'a b' },
      { role: 'assistant', content: 'Two files.' },
    ]);
    expect(toAnthropicMessages(items)).toEqual({
      system: 'Sys',
      messages: [
        { role: 'user', content: 'List files' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'ls', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: 'a b' }] },
        { role: 'assistant', content: 'Two files.' },
      ],
    });
  });

  it('refuses an opaque part from another provider', () => {
    const items: HistoryItem[] = [{ kind: 'opaque', id: 'o', role: 'user', provider: 'openai', value: {} }];
    expect(() => toAnthropicMessages(items)).toThrow(/cannot be sent to anthropic/);
  });
});
