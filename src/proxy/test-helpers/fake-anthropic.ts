import type { ReceivedRequest, ServedResponse } from '../../test-helpers/cassette-server.js';

type Json = Record<string, unknown>;

/** Sonnet 4.5's list prices per million tokens (https://docs.claude.com/en/docs/about-claude/pricing). */
export const PRICE = { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 };

/** What the fake provider billed, summed over its calls. */
export interface Bill {
  calls: number;
  uncached: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
  usd: number;
}

export function emptyBill(): Bill {
  return { calls: 0, uncached: 0, cacheWrite: 0, cacheRead: 0, output: 0, usd: 0 };
}

/** The request's prompt as the provider reads it, cache_control marks left out (they are not content). */
export function promptText(body: Json): string {
  return JSON.stringify([body.system, body.tools, body.messages], (key, value) =>
    key === 'cache_control' ? undefined : value,
  );
}

function commonPrefix(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let index = 0;
  while (index < end && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

/**
 * Prices one call as a provider with prompt caching does: the longest prefix this prompt shares with an earlier
 * prompt is read from the cache, the rest is written to it (Claude Code marks its last message as a breakpoint, so
 * the whole prompt is cached for the next call). Tokens are characters / 4: a stand-in for the provider's
 * tokenizer, the same for both runs compared.
 */
export function priceCall(prompt: string, earlier: string[], bill: Bill, output: number): Json {
  const reused = earlier.reduce((best, previous) => Math.max(best, commonPrefix(previous, prompt)), 0);
  const cacheRead = Math.floor(reused / 4);
  const cacheWrite = Math.ceil(prompt.length / 4) - cacheRead;
  const uncached = 3;
  bill.calls++;
  bill.uncached += uncached;
  bill.cacheRead += cacheRead;
  bill.cacheWrite += cacheWrite;
  bill.output += output;
  bill.usd +=
    (uncached * PRICE.input +
      cacheWrite * PRICE.cacheWrite +
      cacheRead * PRICE.cacheRead +
      output * PRICE.output) /
    1_000_000;
  return {
    input_tokens: uncached,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: output,
  };
}

/** A streamed Messages answer: one tool_use block, or one text block. */
export function messageStream(
  id: string,
  model: string,
  usage: Json,
  content: { tool: { id: string; name: string; input: Json } } | { text: string },
): ServedResponse {
  const events: Json[] = [
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    },
  ];
  if ('tool' in content) {
    events.push(
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: content.tool.id, name: content.tool.name, input: {} },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(content.tool.input) },
      },
    );
  } else {
    events.push(
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: content.text } },
    );
  }
  events.push(
    { type: 'content_block_stop', index: 0 },
    {
      type: 'message_delta',
      delta: { stop_reason: 'tool' in content ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
    { type: 'message_stop' },
  );
  return {
    headers: { 'content-type': 'text/event-stream' },
    body: events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''),
  };
}

/** Every tool_use id of a request has its tool_result, and every tool_result its tool_use. */
export function unpairedToolIds(body: Json): string[] {
  const uses = new Set<string>();
  const results = new Set<string>();
  for (const message of (body.messages as Json[]) ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Json[]) {
      if (block.type === 'tool_use') uses.add(block.id as string);
      if (block.type === 'tool_result') results.add(block.tool_use_id as string);
    }
  }
  return [...[...uses].filter((id) => !results.has(id)), ...[...results].filter((id) => !uses.has(id))];
}

export type { ReceivedRequest };

/** A whole (unstreamed) Messages answer saying "ok", with 100 prompt and 5 output tokens, as the provider sends it. */
export function okMessage(): { headers: Record<string, string>; body: string } {
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 100, output_tokens: 5 },
    }),
  };
}
