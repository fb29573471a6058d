import { encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { charsEstimateCounter } from './chars-estimate-counter.js';
import { type ChatMessage, countMessages } from './count-messages.js';
import { createTokenCounter } from './create-token-counter.js';

const o200k = createTokenCounter();

describe('countMessages', () => {
  it('counts a plain-text chat exactly as gpt-tokenizer encodes it in ChatML', () => {
    const chat = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'hello world' },
      { role: 'assistant', content: 'The quick brown fox jumps over the lazy dog.' },
    ] as const;
    const reference = encodeChat(chat, 'gpt-4o').length;
    expect(countMessages(chat, o200k)).toEqual({
      tokens: reference,
      counter: 'o200k_base',
      estimate: false,
      uncounted: 0,
    });
  });

  it('adds 3 framing tokens per message and 3 reply-priming tokens', () => {
    // 3 framing + "user" (1) + "hello world" (2) + 3 priming.
    expect(countMessages([{ role: 'user', content: 'hello world' }], o200k).tokens).toBe(9);
    expect(countMessages([], o200k).tokens).toBe(3);
  });

  it('counts tool calls by name and arguments when the content is null', () => {
    const message: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    };
    // 3 framing + "assistant" (1) + "get" "_weather" (2) + '{"' 'city' '":"' 'Paris' '"}' (5) + 3 priming.
    expect(countMessages([message], o200k).tokens).toBe(14);
  });

  it('counts text parts, Anthropic tool_use input and tool_result content', () => {
    const messages: ChatMessage[] = [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'hello world' },
          { type: 'tool_use', id: 't1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'hello world' }] },
        ],
      },
    ];
    // assistant: 3 + 1 + 2 + 2 + 5 = 13; user: 3 + 1 + 2 = 6; priming 3.
    expect(countMessages(messages, o200k).tokens).toBe(22);
  });

  it('reports parts a text tokenizer cannot count instead of guessing', () => {
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello world' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ];
    const counted = countMessages(messages, o200k);
    expect(counted.uncounted).toBe(1);
    expect(counted.tokens).toBe(9);
  });

  it('names the estimate when counted with chars/4', () => {
    const counted = countMessages([{ role: 'user', content: 'abcdefgh' }], charsEstimateCounter);
    // 3 + ceil(4/4) + ceil(8/4) + 3
    expect(counted).toEqual({ tokens: 9, counter: 'chars/4-estimate', estimate: true, uncounted: 0 });
  });

  it('takes framing as options and rejects unknown ones', () => {
    const framing = { perMessageTokens: 0, replyPrimingTokens: 0 };
    expect(countMessages([{ role: 'user', content: 'hello world' }], o200k, framing).tokens).toBe(3);
    expect(() => countMessages([], o200k, { perMessage: 1 } as never)).toThrow(BarometerValidationError);
  });
});
