import { createHash } from 'node:crypto';
import type { HistoryItem } from '../compaction/history-item.js';
import { isObject } from '../usage/json-object.js';
import type { WireFormat } from './session-key.js';

type Json = Record<string, unknown>;

/**
 * One replacement the proxy makes in every request of a session from the batch that decided it on: a tool result's
 * content, or a tool call's arguments, becomes the tombstone. Keyed by the call id, which the agent keeps for the
 * whole conversation, so the same edit lands on the same block of every later request.
 */
export interface WireEdit {
  callId: string;
  field: 'result' | 'input';
  /** The tombstone text: what was there, how many tokens, where the original lives. */
  tombstone: string;
}

/**
 * One call's edits: each field's tombstone, and the fingerprint of the original it replaced (`resultOf`, `inputOf`).
 * A block is rewritten only when its content is still that original: OpenAI-compatible gateways and local models
 * number calls per turn (`call_0`), and a live result that reuses an evicted call's id must not get its tombstone
 * (issue 40). An edit without a fingerprint (a session file of an earlier version) goes by the id alone.
 */
export interface CallEdits {
  result?: string;
  input?: string;
  resultOf?: string;
  inputOf?: string;
}

/** The edits of a session, by call id. */
export type EditBook = Map<string, CallEdits>;

/** The fingerprint of a tool result's content or a call's arguments, as the wire carries them (text or JSON). */
export function contentFingerprint(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value ?? '') ?? '');
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** The tombstone of a call's field for a block holding `value`, if the edit is for that very content. */
function tombstoneFor(edits: EditBook, callId: unknown, field: 'result' | 'input', value: unknown) {
  if (typeof callId !== 'string') return undefined;
  const edit = edits.get(callId);
  const tombstone = edit?.[field];
  if (tombstone === undefined) return undefined;
  const original = field === 'result' ? edit?.resultOf : edit?.inputOf;
  if (original === undefined || carries(value, tombstone)) return tombstone;
  return original === contentFingerprint(value) ? tombstone : undefined;
}

/** Whether a block's content is already the tombstone (a request the edits were written into). */
function carries(value: unknown, tombstone: string): boolean {
  if (value === tombstone) return true;
  if (isObject(value)) return value.evicted === tombstone;
  return typeof value === 'string' && value === JSON.stringify({ evicted: tombstone });
}

/** The history items of a request, for the eviction policy: text, tool calls, tool results, the rest opaque. */
export function historyOf(format: WireFormat, body: Json, edits: EditBook): HistoryItem[] {
  const items: HistoryItem[] = [];
  const call = (id: string, name: unknown, input: unknown) => {
    const tombstone = tombstoneFor(edits, id, 'input', input);
    items.push({
      kind: 'tool-call',
      id,
      callId: id,
      name: typeof name === 'string' && name !== '' ? name : 'tool',
      input,
      ...(tombstone === undefined ? {} : { archivedTo: tombstone }),
    });
  };
  const result = (callId: string, content: unknown, isError?: boolean) => {
    const tombstone = tombstoneFor(edits, callId, 'result', content);
    items.push({
      kind: 'tool-result',
      id: `${callId}:result`,
      callId,
      content: typeof content === 'string' ? content : (JSON.stringify(content ?? '') ?? ''),
      // A failed command ends no sub-task (Anthropic's `is_error`).
      ...(isError === true ? { isError } : {}),
      ...(tombstone === undefined ? {} : { archivedTo: tombstone }),
    });
  };
  const text = (role: unknown, value: string, id: string) => {
    if (role === 'assistant') items.push({ kind: 'assistant', id, text: value });
    else if (role === 'user') items.push({ kind: 'user', id, text: value });
    else items.push({ kind: 'system', id, text: value });
  };
  const opaque = (role: unknown, value: unknown, id: string) => {
    const side = role === 'assistant' ? 'assistant' : role === 'user' ? 'user' : 'system';
    items.push({
      kind: 'opaque',
      id,
      role: side,
      provider: format === 'anthropic' ? 'anthropic' : 'openai',
      value,
    });
  };
  const parts = (role: unknown, content: unknown, id: string) => {
    if (typeof content === 'string') {
      text(role, content, id);
      return;
    }
    if (!Array.isArray(content)) return;
    content.forEach((part, index) => {
      const partId = `${id}.${index}`;
      if (!isObject(part)) return;
      if (
        typeof part.text === 'string' &&
        (part.type === 'text' || part.type === 'input_text' || part.type === 'output_text')
      )
        text(role, part.text, partId);
      else if (part.type === 'tool_use' && typeof part.id === 'string') call(part.id, part.name, part.input);
      else if (part.type === 'tool_result' && typeof part.tool_use_id === 'string')
        result(part.tool_use_id, part.content, part.is_error === true);
      else opaque(role, part, partId);
    });
  };
  if (format === 'anthropic') {
    if (body.system !== undefined) parts('system', body.system, 's');
    (Array.isArray(body.messages) ? body.messages : []).forEach((message, index) => {
      if (isObject(message)) parts(message.role, message.content, `m${index}`);
    });
    return items;
  }
  if (format === 'openai-chat') {
    (Array.isArray(body.messages) ? body.messages : []).forEach((message, index) => {
      if (!isObject(message)) return;
      if (message.role === 'tool' && typeof message.tool_call_id === 'string') {
        result(message.tool_call_id, message.content);
        return;
      }
      parts(message.role === 'developer' ? 'system' : message.role, message.content, `m${index}`);
      for (const toolCall of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (isObject(toolCall) && typeof toolCall.id === 'string' && isObject(toolCall.function))
          call(toolCall.id, toolCall.function.name, toolCall.function.arguments);
      }
    });
    return items;
  }
  if (typeof body.instructions === 'string') text('system', body.instructions, 'i');
  if (typeof body.input === 'string') text('user', body.input, 'in');
  (Array.isArray(body.input) ? body.input : []).forEach((item, index) => {
    if (!isObject(item)) return;
    const id = `in${index}`;
    if (
      (item.type === 'function_call' || item.type === 'custom_tool_call') &&
      typeof item.call_id === 'string'
    )
      call(item.call_id, item.name, item.type === 'function_call' ? item.arguments : item.input);
    else if (
      (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') &&
      typeof item.call_id === 'string'
    )
      result(item.call_id, item.output);
    else if (item.type === 'message' || (item.type === undefined && typeof item.role === 'string'))
      parts(item.role === 'developer' ? 'system' : item.role, item.content, id);
    else opaque('assistant', item, id);
  });
  return items;
}

/** A call's arguments as the wire carries them after eviction: an object (Anthropic) or its JSON text (OpenAI). */
function evictedInput(format: WireFormat, tombstone: string): unknown {
  return format === 'anthropic' ? { evicted: tombstone } : JSON.stringify({ evicted: tombstone });
}

/** One block of a request the edits rewrite, and its edited copy. */
export interface EditedBlock {
  block: Json;
  edited: Json;
  rewrites: number;
  /** An Anthropic content block's key (`<call id>:result|input`): where the proxy's breakpoint may go. */
  key?: string;
}

/**
 * The blocks of a request the session's edits rewrite, in document order, each with its edited copy (same keys in
 * the same order, only the tool result's content or the call's arguments replaced): an Anthropic content block, a
 * Chat Completions message (its tool result and its calls' arguments), a Responses input item.
 */
export function editedBlocks(format: WireFormat, body: Json, edits: EditBook): EditedBlock[] {
  const out: EditedBlock[] = [];
  if (edits.size === 0) return out;
  const resultOf = (callId: unknown, value: unknown) => tombstoneFor(edits, callId, 'result', value);
  const inputOf = (callId: unknown, value: unknown) => tombstoneFor(edits, callId, 'input', value);
  if (format === 'anthropic') {
    for (const message of Array.isArray(body.messages) ? body.messages : []) {
      if (!isObject(message) || !Array.isArray(message.content)) continue;
      for (const block of message.content) {
        if (!isObject(block)) continue;
        const result = block.type === 'tool_result' ? resultOf(block.tool_use_id, block.content) : undefined;
        const input = block.type === 'tool_use' ? inputOf(block.id, block.input) : undefined;
        if (result !== undefined)
          out.push({
            block,
            edited: { ...block, content: result },
            rewrites: 1,
            key: `${String(block.tool_use_id)}:result`,
          });
        else if (input !== undefined)
          out.push({
            block,
            edited: { ...block, input: evictedInput(format, input) },
            rewrites: 1,
            key: `${String(block.id)}:input`,
          });
      }
    }
    return out;
  }
  if (format === 'openai-chat') {
    for (const message of Array.isArray(body.messages) ? body.messages : []) {
      if (!isObject(message)) continue;
      const result = message.role === 'tool' ? resultOf(message.tool_call_id, message.content) : undefined;
      let rewrites = result === undefined ? 0 : 1;
      const edited: Json = result === undefined ? { ...message } : { ...message, content: result };
      if (Array.isArray(message.tool_calls)) {
        edited.tool_calls = message.tool_calls.map((toolCall: unknown) => {
          const input =
            isObject(toolCall) && isObject(toolCall.function)
              ? inputOf(toolCall.id, toolCall.function.arguments)
              : undefined;
          if (input === undefined || !isObject(toolCall) || !isObject(toolCall.function)) return toolCall;
          rewrites++;
          return { ...toolCall, function: { ...toolCall.function, arguments: evictedInput(format, input) } };
        });
      }
      if (rewrites > 0) out.push({ block: message, edited, rewrites });
    }
    return out;
  }
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (!isObject(item)) continue;
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      const result = resultOf(item.call_id, item.output);
      if (result !== undefined) out.push({ block: item, edited: { ...item, output: result }, rewrites: 1 });
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const input = inputOf(item.call_id, item.type === 'function_call' ? item.arguments : item.input);
      if (input === undefined) continue;
      const edited =
        item.type === 'function_call'
          ? { ...item, arguments: evictedInput(format, input) }
          : { ...item, input };
      out.push({ block: item, edited, rewrites: 1 });
    }
  }
  return out;
}

/**
 * Writes the session's edits into a request body, in place: every tool result and tool call the book names gets
 * its tombstone, and nothing else changes (thinking blocks, signatures, cache_control, ids and order stay).
 * Answers how many blocks were rewritten.
 */
export function applyEdits(format: WireFormat, body: Json, edits: EditBook): number {
  let changed = 0;
  for (const { block, edited, rewrites } of editedBlocks(format, body, edits)) {
    Object.assign(block, edited);
    changed += rewrites;
  }
  return changed;
}
