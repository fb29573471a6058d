import { fromAnthropicMessages } from '../compaction/anthropic-messages.js';
import { isObject } from '../usage/json-object.js';
import { SidechainChains } from '../usage/read-claude-code-log.js';
import type { LogCall, LogCallUsage, LogHistory, LogItem, LogSegmentStart } from './log-history.js';
import { parseObjectLine, splitLines } from './log-history.js';

/** Claude Code writes this model name on messages it made up itself (API errors, interruptions). */
const SYNTHETIC_MODEL = '<synthetic>';

type Json = Record<string, unknown>;

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;

function usageOf(usage: Json): LogCallUsage {
  const read = count(usage.cache_read_input_tokens);
  const written = count(usage.cache_creation_input_tokens);
  const split = isObject(usage.cache_creation) ? usage.cache_creation : undefined;
  const oneHour = split ? Math.min(written, count(split.ephemeral_1h_input_tokens)) : 0;
  return {
    promptTokens: count(usage.input_tokens) + read + written,
    cacheReadTokens: read,
    cacheWrite5mTokens: written - oneHour,
    cacheWrite1hTokens: oneHour,
    completionTokens: count(usage.output_tokens),
    reasoningTokens: 0,
  };
}

/**
 * The history a Claude Code session sent, call by call (`~/.claude/projects/<project>/<session>.jsonl`).
 *
 * - Items: the `message` of every `user` and `assistant` line, one content block per item (text, tool_use,
 *   tool_result; thinking and other blocks as opaque items), in log order. Sidechain lines (sub-agents, which
 *   have their own context) are left out unless the whole file is a sub-agent's, or `chain` names the sub-agent
 *   whose history to read.
 * - Calls: one per assistant `message.id` with usage (as `readClaudeCodeLog` counts them); the call's prompt is
 *   the items of its segment logged before the message's first line; its usage is the message's last line's.
 * - A `system` line with subtype `compact_boundary` starts a new segment (`compactMetadata.trigger`: `manual` for
 *   the user's `/compact`, else the agent's own); the summary Claude Code puts first in it (`isCompactSummary: true`)
 *   is `carried`.
 */
export function readClaudeCodeHistory(text: string, options: { chain?: string } = {}): LogHistory {
  const lines = splitLines(text);
  if (options.chain !== undefined) return readLines(lines, true, options.chain);
  const main = readLines(lines, false);
  return main.calls.length > 0 ? main : readLines(lines, true);
}

/**
 * The items and calls of the main conversation (`sidechain` false), of every sidechain line, or of one sub-agent's
 * chain (`chain`: its key, as `SidechainChains` numbers them).
 */
function readLines(lines: readonly string[], sidechain: boolean, chain?: string): LogHistory {
  const chains = new SidechainChains();
  const items: LogItem[] = [];
  const calls: LogCall[] = [];
  const callById = new Map<string, LogCall>();
  const segmentStarts: LogSegmentStart[] = [];
  let segment = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    // Cheap filter: only user, assistant and system lines matter, and they say so near the start or the end.
    if (!line.includes('"message"') && !line.includes('compact_boundary')) continue;
    const record = parseObjectLine(line);
    if (!record) continue;
    if (record.type === 'system' && record.subtype === 'compact_boundary') {
      segment++;
      const metadata = isObject(record.compactMetadata) ? record.compactMetadata : {};
      segmentStarts.push({ trigger: metadata.trigger === 'manual' ? 'manual' : 'auto', line: index + 1 });
      continue;
    }
    if (record.type !== 'user' && record.type !== 'assistant') continue;
    const key = chains.keyOf(record);
    if ((record.isSidechain === true) !== sidechain) continue;
    if (chain !== undefined && key !== chain) continue;
    const message = record.message;
    if (!isObject(message)) continue;
    const role = message.role;
    const content = message.content;
    if ((role !== 'user' && role !== 'assistant') || (typeof content !== 'string' && !Array.isArray(content)))
      continue;
    const lineNumber = index + 1;
    if (role === 'assistant') {
      const usage = message.usage;
      const model = typeof message.model === 'string' ? message.model : undefined;
      const id =
        typeof message.id === 'string'
          ? message.id
          : typeof record.requestId === 'string'
            ? record.requestId
            : typeof record.uuid === 'string'
              ? record.uuid
              : undefined;
      if (isObject(usage) && 'input_tokens' in usage && model !== SYNTHETIC_MODEL) {
        const known = id === undefined ? undefined : callById.get(id);
        if (known) known.usage = usageOf(usage);
        else {
          const call: LogCall = {
            index: calls.length,
            timestamp: typeof record.timestamp === 'string' ? record.timestamp : '',
            segment,
            itemsBefore: items.length,
            usage: usageOf(usage),
            signals: [],
          };
          if (id !== undefined) {
            call.id = id;
            callById.set(id, call);
          }
          if (model !== undefined) call.model = model;
          calls.push(call);
        }
      }
    }
    const converted = fromAnthropicMessages(
      { messages: [{ role, content: typeof content === 'string' ? content : content.filter(isObject) }] },
      { idPrefix: `l${lineNumber}.` },
    );
    for (const item of converted) {
      const entry: LogItem = { item, line: lineNumber, segment };
      if (record.isCompactSummary === true) entry.carried = true;
      if (item.kind === 'opaque' && isObject(item.value) && item.value.type === 'thinking')
        entry.reasoning = true;
      items.push(entry);
    }
  }
  return { format: 'claude-code', items, calls, segmentStarts, lines };
}
