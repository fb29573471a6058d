import type { HistoryItem, HistoryProvider } from '../compaction/history-item.js';
import { isObject } from '../usage/json-object.js';
import { userText } from '../usage/read-pi-log.js';
import type {
  LogCall,
  LogCallUsage,
  LogHistory,
  LogItem,
  LogSegmentStart,
  LogSignal,
} from './log-history.js';
import { parseObjectLine, splitLines } from './log-history.js';

type Json = Record<string, unknown>;

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : (JSON.stringify(value) ?? '');

/** pi's usage: `input` is the uncached prompt, `cacheRead`/`cacheWrite` the cached parts (see `piUsageRecord`). */
function usageOf(usage: Json): LogCallUsage {
  const read = count(usage.cacheRead);
  const written = count(usage.cacheWrite);
  return {
    promptTokens: count(usage.input) + read + written,
    cacheReadTokens: read,
    cacheWrite5mTokens: written,
    cacheWrite1hTokens: 0,
    completionTokens: count(usage.output),
    reasoningTokens: 0,
  };
}

/** The text blocks of a content (a string, or blocks), joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : ''))
    .join('');
}

/** The history items of one pi message, one per content block (images and unknown blocks as opaque items). */
function itemsOf(message: Json, id: string): Array<{ item: HistoryItem; reasoning?: true }> {
  const provider: HistoryProvider = message.provider === 'anthropic' ? 'anthropic' : 'openai';
  const role = message.role;
  if (role === 'toolResult') {
    const callId =
      typeof message.toolCallId === 'string' && message.toolCallId !== '' ? message.toolCallId : id;
    const item: HistoryItem = {
      kind: 'tool-result',
      id: `${callId}:result`,
      callId,
      content: textOf(message.content),
      ...(typeof message.toolName === 'string' && message.toolName !== '' ? { name: message.toolName } : {}),
      ...(message.isError === true ? { isError: true } : {}),
    };
    return [{ item }];
  }
  if (role === 'assistant' && Array.isArray(message.content)) {
    return message.content.map((block, index) => {
      const blockId = `${id}.${index}`;
      if (isObject(block) && block.type === 'text' && typeof block.text === 'string')
        return { item: { kind: 'assistant', id: blockId, text: block.text } };
      if (isObject(block) && block.type === 'toolCall' && typeof block.id === 'string' && block.id !== '') {
        const name = typeof block.name === 'string' && block.name !== '' ? block.name : 'tool';
        return {
          // The arguments as logged (an object): an archive of them reads back as their JSON.
          item: { kind: 'tool-call', id: block.id, callId: block.id, name, input: block.arguments ?? {} },
        };
      }
      const item: HistoryItem = { kind: 'opaque', id: blockId, role: 'assistant', provider, value: block };
      return isObject(block) && block.type === 'thinking' ? { item, reasoning: true } : { item };
    });
  }
  // user, bashExecution, custom, branchSummary, compactionSummary: what the model reads as the user's turn.
  const text =
    role === 'bashExecution'
      ? `${asText(message.command)}\n${asText(message.output)}`
      : role === 'branchSummary' || role === 'compactionSummary'
        ? asText(message.summary)
        : textOf(message.content);
  return [{ item: { kind: 'user', id, text } }];
}

/**
 * The history a pi coding agent session sent, call by call (`~/.pi/agent/sessions/…/<timestamp>_<uuid>.jsonl`).
 *
 * - Items: the messages of `message` entries in file order, one item per content block (text, tool calls, thinking
 *   as reasoning), tool results as tool results, bash executions and custom messages as the user's turn.
 * - Calls: assistant messages with a token of usage, as `readPiLog` counts them; a call's prompt is the items of its
 *   segment logged before it.
 * - A `compaction` entry starts a new segment: its summary, then the entries it kept (from `firstKeptEntryId`), are
 *   `carried` into it.
 * - A user message is a `user-request` signal, a response that ended with `stop` a `task-complete` signal of the
 *   next call.
 * - Branches (`parentId` pointing back) are read in file order, as one line of work.
 */
export function readPiHistory(text: string): LogHistory {
  const lines = splitLines(text);
  const items: LogItem[] = [];
  const calls: LogCall[] = [];
  /** Where each entry's items start, for the entries a compaction keeps. */
  const firstItemOf = new Map<string, number>();
  let segment = 0;
  const segmentStarts: LogSegmentStart[] = [];
  /** A user's `/compact` since the last call: the next compaction is the user's (as `readPiLog` counts it). */
  let compactAsked = false;
  let signals: LogSignal[] = [];
  const push = (entries: Array<{ item: HistoryItem; reasoning?: true }>, line: number, carried: boolean) => {
    for (const { item, reasoning } of entries) {
      const entry: LogItem = { item, line, segment };
      if (carried) entry.carried = true;
      if (reasoning) entry.reasoning = true;
      items.push(entry);
    }
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (!line.includes('"message"') && !line.includes('"compaction"')) continue;
    const record = parseObjectLine(line);
    if (!record) continue;
    const lineNumber = index + 1;
    if (typeof record.id === 'string') firstItemOf.set(record.id, items.length);
    if (record.type === 'compaction') {
      const kept =
        typeof record.firstKeptEntryId === 'string' ? firstItemOf.get(record.firstKeptEntryId) : undefined;
      const keptItems =
        kept === undefined ? [] : items.slice(kept).filter((entry) => entry.segment === segment);
      segment++;
      // pi logs no trigger: the user's after a `/compact`, else the agent's own (its threshold, an overflow).
      segmentStarts.push({ trigger: compactAsked ? 'manual' : 'auto', line: lineNumber });
      compactAsked = false;
      push(
        [{ item: { kind: 'user', id: `l${lineNumber}`, text: asText(record.summary) } }],
        lineNumber,
        true,
      );
      for (const entry of keptItems) items.push({ ...entry, segment, carried: true });
      continue;
    }
    if (record.type !== 'message' || !isObject(record.message)) continue;
    const message = record.message;
    if (message.role === 'user') {
      signals.push('user-request');
      compactAsked = /^\/compact(\s|$)/.test(userText(message.content).trim());
    }
    if (message.role === 'assistant' && isObject(message.usage)) {
      const usage = usageOf(message.usage);
      if (usage.promptTokens + usage.completionTokens > 0) {
        const call: LogCall = {
          index: calls.length,
          timestamp: typeof record.timestamp === 'string' ? record.timestamp : '',
          segment,
          itemsBefore: items.length,
          usage,
          signals,
        };
        if (typeof message.model === 'string') call.model = message.model;
        calls.push(call);
        signals = [];
      }
      if (message.stopReason === 'stop') signals.push('task-complete');
    }
    push(itemsOf(message, `l${lineNumber}`), lineNumber, false);
  }
  return { format: 'pi', items, calls, segmentStarts, lines };
}
