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

type Json = Record<string, unknown>;

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
const asText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : value === undefined || value === null
      ? ''
      : (JSON.stringify(value) ?? '');

/** LiteLLM's usage on a response (`prompt_tokens` includes the cache), or OpenHands' own `TokenUsage`. */
function usageOf(usage: Json): LogCallUsage {
  const prompt = count(usage.prompt_tokens);
  const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const read = Math.min(prompt, count(usage.cache_read_tokens) || count(details.cached_tokens));
  const written = Math.min(
    prompt - read,
    count(usage.cache_write_tokens) || count(usage.cache_creation_input_tokens),
  );
  return {
    promptTokens: prompt,
    cacheReadTokens: read,
    cacheWrite5mTokens: written,
    cacheWrite1hTokens: 0,
    completionTokens: count(usage.completion_tokens),
    reasoningTokens: 0,
  };
}

/**
 * The history an OpenHands trajectory sent, call by call (its events, as `readOpenHandsLog` reads them).
 *
 * - Items: the system prompt (`action: system`), the user's messages, each agent action made by a tool call (its
 *   `thought` as assistant text, then the call: `tool_call_metadata.function_name`, `args`), each observation of a
 *   tool call as its result (`content`), other agent messages as assistant text and other observations as the
 *   user's turn.
 * - Calls: as `readOpenHandsLog` counts them, a distinct response id (`tool_call_metadata.model_response`, then the
 *   new entries of `llm_metrics.token_usages`), then the run's `metrics.token_usages` that no event carried; a call's
 *   prompt is the items before the event that first names it.
 * - A `condensation` action starts a new segment; a `finish` action is a `task-complete` signal.
 * - `lines` are the events, one JSON text each: an item's `line` is its event's 1-based position.
 */
export function readOpenHandsHistory(events: readonly unknown[], metrics?: unknown): LogHistory {
  const items: LogItem[] = [];
  const calls: LogCall[] = [];
  const seen = new Set<string>();
  const lines: string[] = [];
  let segment = 0;
  const segmentStarts: LogSegmentStart[] = [];
  let signals: LogSignal[] = [];
  let lastTimestamp = '';
  const addCall = (id: string | undefined, usage: Json, model: unknown) => {
    if (id !== undefined) {
      if (seen.has(id)) return;
      seen.add(id);
    }
    const call: LogCall = {
      index: calls.length,
      timestamp: lastTimestamp,
      segment,
      itemsBefore: items.length,
      usage: usageOf(usage),
      signals,
    };
    if (typeof model === 'string') call.model = model;
    calls.push(call);
    signals = [];
  };
  const push = (item: HistoryItem, line: number) => items.push({ item, line, segment });
  events.forEach((event, position) => {
    lines.push(JSON.stringify(event) ?? '');
    if (!isObject(event)) return;
    const line = position + 1;
    const id = `e${line}`;
    if (typeof event.timestamp === 'string') lastTimestamp = event.timestamp;
    const metadata = isObject(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
    const response = metadata && isObject(metadata.model_response) ? metadata.model_response : undefined;
    if (response && isObject(response.usage))
      addCall(typeof response.id === 'string' ? response.id : undefined, response.usage, response.model);
    const llmMetrics = isObject(event.llm_metrics) ? event.llm_metrics : undefined;
    for (const entry of Array.isArray(llmMetrics?.token_usages) ? llmMetrics.token_usages : []) {
      if (isObject(entry))
        addCall(typeof entry.response_id === 'string' ? entry.response_id : undefined, entry, entry.model);
    }
    const args = isObject(event.args) ? event.args : {};
    if (event.action === 'condensation') {
      // The condenser is the agent's own compaction: the policy must make it unnecessary.
      segment++;
      segmentStarts.push({ trigger: 'auto', line });
      return;
    }
    if (event.action === 'finish' && event.source === 'agent') signals.push('task-complete');
    if (event.action === 'system') {
      push({ kind: 'system', id, text: asText(args.content ?? event.message) }, line);
      return;
    }
    if ('action' in event && event.source === 'user') {
      if (event.action === 'message') signals.push('user-request');
      push({ kind: 'user', id, text: asText(args.content ?? event.message) }, line);
      return;
    }
    const callId = metadata && typeof metadata.tool_call_id === 'string' ? metadata.tool_call_id : undefined;
    if ('observation' in event) {
      const content = asText(event.content);
      push(
        callId === undefined
          ? { kind: 'user', id, text: content }
          : { kind: 'tool-result', id: `${callId}:result`, callId, content },
        line,
      );
      return;
    }
    if (!('action' in event)) return;
    if (typeof args.thought === 'string' && args.thought !== '')
      push({ kind: 'assistant', id: `${id}.thought`, text: args.thought }, line);
    if (callId !== undefined) {
      const name =
        typeof metadata?.function_name === 'string' && metadata.function_name !== ''
          ? metadata.function_name
          : 'tool';
      push({ kind: 'tool-call', id: callId, callId, name, input: event.args ?? {} }, line);
    } else if (typeof event.message === 'string') {
      push({ kind: 'assistant', id, text: event.message }, line);
    }
  });
  const runMetrics = isObject(metrics) ? metrics : {};
  for (const entry of Array.isArray(runMetrics.token_usages) ? runMetrics.token_usages : []) {
    if (isObject(entry))
      addCall(typeof entry.response_id === 'string' ? entry.response_id : undefined, entry, entry.model);
  }
  return { format: 'openhands', items, calls, segmentStarts, lines };
}
