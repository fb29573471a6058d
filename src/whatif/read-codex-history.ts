import type { HistoryItem } from '../compaction/history-item.js';
import { isObject } from '../usage/json-object.js';
import type {
  LogCall,
  LogCallUsage,
  LogHistory,
  LogItem,
  LogSegmentStart,
  LogSignal,
} from './log-history.js';
import { parseObjectLine, redactedLength, splitLines } from './log-history.js';

type Json = Record<string, unknown>;

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;

/** Response items the model wrote: the first of them after a call's token count starts the next call's output. */
const OUTPUT_TYPES = new Set([
  'reasoning',
  'function_call',
  'custom_tool_call',
  'web_search_call',
  'local_shell_call',
]);

function usageOf(usage: unknown): LogCallUsage | null {
  if (!isObject(usage) || typeof usage.input_tokens !== 'number') return null;
  const prompt = count(usage.input_tokens);
  return {
    promptTokens: prompt,
    // Codex's input_tokens include the cached ones; OpenAI has no cache-write figure.
    cacheReadTokens: Math.min(prompt, count(usage.cached_input_tokens)),
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    completionTokens: count(usage.output_tokens),
    reasoningTokens: count(usage.reasoning_output_tokens),
  };
}

function totalsKey(info: Json): string | undefined {
  const totals = info.total_token_usage;
  if (!isObject(totals)) return undefined;
  return `${totals.input_tokens}/${totals.cached_input_tokens}/${totals.output_tokens}/${totals.reasoning_output_tokens}/${totals.total_tokens}`;
}

const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : (JSON.stringify(value) ?? '');

/** The history items of one response item (a message gives one per content part), with redacted lengths. */
function itemsOf(
  payload: Json,
  id: string,
): Array<{ item: HistoryItem; redacted?: number; reasoning?: true }> {
  const type = payload.type;
  if (type === 'message' && Array.isArray(payload.content)) {
    const role = payload.role;
    const out: Array<{ item: HistoryItem; redacted?: number }> = [];
    payload.content.forEach((part, index) => {
      const partId = `${id}.${index}`;
      const text = isObject(part) && typeof part.text === 'string' ? part.text : undefined;
      if (text === undefined || !isObject(part)) {
        const opaqueRole = role === 'assistant' ? 'assistant' : role === 'user' ? 'user' : 'system';
        out.push({ item: { kind: 'opaque', id: partId, role: opaqueRole, provider: 'openai', value: part } });
        return;
      }
      const redacted = redactedLength(text);
      const item: HistoryItem =
        role === 'assistant'
          ? { kind: 'assistant', id: partId, text }
          : role === 'user'
            ? { kind: 'user', id: partId, text }
            : { kind: 'system', id: partId, text, ...(role === 'developer' ? { developer: true } : {}) };
      out.push(redacted === undefined ? { item } : { item, redacted });
    });
    return out;
  }
  if ((type === 'function_call' || type === 'custom_tool_call') && typeof payload.call_id === 'string') {
    const raw = type === 'function_call' ? asText(payload.arguments) : asText(payload.input);
    const redacted = redactedLength(raw);
    const item: HistoryItem = {
      kind: 'tool-call',
      id: payload.call_id,
      callId: payload.call_id,
      name: typeof payload.name === 'string' && payload.name !== '' ? payload.name : 'tool',
      // The arguments exactly as logged (the text the model wrote): an archive of them reads back byte for byte.
      input: raw,
    };
    return [redacted === undefined ? { item } : { item, redacted }];
  }
  if (
    (type === 'function_call_output' || type === 'custom_tool_call_output') &&
    typeof payload.call_id === 'string'
  ) {
    const content = asText(payload.output);
    const redacted = redactedLength(content);
    const item: HistoryItem = {
      kind: 'tool-result',
      id: `${payload.call_id}:result`,
      callId: payload.call_id,
      content,
    };
    return [redacted === undefined ? { item } : { item, redacted }];
  }
  const item: HistoryItem = { kind: 'opaque', id, role: 'assistant', provider: 'openai', value: payload };
  if (type === 'reasoning') {
    let redacted = 0;
    const encrypted = typeof payload.encrypted_content === 'string' ? payload.encrypted_content : '';
    redacted += redactedLength(encrypted) ?? encrypted.length;
    if (Array.isArray(payload.summary))
      for (const part of payload.summary)
        if (isObject(part) && typeof part.text === 'string')
          redacted += redactedLength(part.text) ?? part.text.length;
    return [{ item, redacted, reasoning: true }];
  }
  return [{ item }];
}

/**
 * The history a Codex CLI session sent, call by call (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`).
 *
 * - Items: every `response_item` (messages, one item per content part; `function_call` and `custom_tool_call`
 *   as tool calls; their `…_output` as tool results; reasoning, web searches and anything else as opaque items),
 *   in log order. Codex logs the model's output items before the call's `token_count` and the tool outputs after
 *   it, so a call's prompt is every item logged before the first output item that follows the previous call.
 * - Redacted texts (`[REDACTED_TEXT len=N sha=…]`, as the public fixtures are published) keep their placeholder as
 *   content and their stated length as size.
 * - Calls: `token_count` events with usage, repeats dropped, as `readCodexLog` counts them.
 * - A `compacted` line starts a new segment whose first items are its `replacement_history` (`carried`). It is the
 *   user's `/compact` when the task it ends holds nothing else: Codex runs `/compact` as a task of its own
 *   (`TaskKind::Compact`: a `task_started`, the compaction, no user message nor response item), while its automatic
 *   compaction runs inside a turn that is doing work (codex-rs/core/src/tasks/compact.rs, compact.rs).
 * - `task_complete` and `user_message` events are signals of the next call.
 */
export function readCodexHistory(text: string): LogHistory {
  const lines = splitLines(text);
  const items: LogItem[] = [];
  const calls: LogCall[] = [];
  let segment = 0;
  let model: string | undefined;
  let previousTotals: string | undefined;
  let outputStart: number | undefined;
  let signals: LogSignal[] = [];
  const segmentStarts: LogSegmentStart[] = [];
  // Since the latest task started: did it carry work (a user message, a response item)? A compaction task that
  // carries none is the user's `/compact`.
  let taskStarted = false;
  let taskWorked = false;
  const push = (payload: Json, lineNumber: number, id: string, carried: boolean) => {
    for (const { item, redacted, reasoning } of itemsOf(payload, id)) {
      const entry: LogItem = { item, line: lineNumber, segment };
      if (carried) entry.carried = true;
      if (redacted !== undefined) entry.redactedChars = redacted;
      if (reasoning) entry.reasoning = true;
      items.push(entry);
    }
  };
  for (let index = 0; index < lines.length; index++) {
    const record = parseObjectLine(lines[index] as string);
    if (!record) continue;
    const lineNumber = index + 1;
    const payload = isObject(record.payload) ? record.payload : {};
    if (record.type === 'turn_context' || record.type === 'session_meta') {
      if (typeof payload.model === 'string' && payload.model !== '') model = payload.model;
      continue;
    }
    if (record.type === 'compacted') {
      segment++;
      segmentStarts.push({ trigger: taskStarted && !taskWorked ? 'manual' : 'auto', line: lineNumber });
      outputStart = undefined;
      const replacement = Array.isArray(payload.replacement_history) ? payload.replacement_history : [];
      replacement.forEach((entry, position) => {
        if (isObject(entry)) push(entry, lineNumber, `l${lineNumber}.${position}`, true);
      });
      continue;
    }
    if (record.type === 'response_item') {
      const output =
        OUTPUT_TYPES.has(payload.type as string) ||
        (payload.type === 'message' && payload.role === 'assistant');
      if (output && outputStart === undefined) outputStart = items.length;
      taskWorked = true;
      push(payload, lineNumber, `l${lineNumber}`, false);
      continue;
    }
    if (record.type !== 'event_msg') continue;
    if (payload.type === 'task_started' || payload.type === 'turn_started') {
      taskStarted = true;
      taskWorked = false;
    } else if (payload.type === 'task_complete') signals.push('task-complete');
    else if (payload.type === 'user_message') {
      signals.push('user-request');
      taskWorked = true;
    } else if (payload.type === 'token_count' && isObject(payload.info)) {
      const totals = totalsKey(payload.info);
      if (totals !== undefined && totals === previousTotals) continue;
      previousTotals = totals;
      if (typeof record.timestamp !== 'string') continue;
      const call: LogCall = {
        index: calls.length,
        timestamp: record.timestamp,
        segment,
        itemsBefore: outputStart ?? items.length,
        usage: usageOf(payload.info.last_token_usage),
        signals,
      };
      if (model !== undefined) call.model = model;
      calls.push(call);
      signals = [];
      outputStart = undefined;
    }
  }
  return { format: 'codex', items, calls, segmentStarts, lines };
}
