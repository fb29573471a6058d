import type { LineLogReader } from './line-log-reader.js';
import { anthropicUsageRecord } from './normalize-anthropic.js';
import type { ProgressCallback, SessionCall, SessionLog } from './session-log.js';
import { cannotBeJsonObject, forEachLine, SessionLogBuilder } from './session-log-builder.js';
import { isObject, isoTimestamp, text, tokenCount } from './usage-fields.js';

/** Claude Code writes this model name on messages it made up itself (API errors, interruptions). */
const SYNTHETIC_MODEL = '<synthetic>';

/**
 * How many TodoWrite items an assistant message's content marks completed that were not completed before; the
 * set of completed items is updated. TodoWrite's input is `{ todos: [{ content, status, activeForm }] }`, the
 * whole list each time, so an item is newly completed when its text was not completed in the lists before.
 */
function newlyCompletedTodos(content: unknown, completed: Set<string>): number {
  if (!Array.isArray(content)) return 0;
  let fresh = 0;
  for (const block of content) {
    if (!isObject(block) || block.type !== 'tool_use' || block.name !== 'TodoWrite') continue;
    const input = isObject(block.input) ? block.input : {};
    if (!Array.isArray(input.todos)) continue;
    for (const todo of input.todos) {
      if (!isObject(todo) || todo.status !== 'completed') continue;
      const key = text(todo.content) ?? '';
      if (completed.has(key)) continue;
      completed.add(key);
      fresh++;
    }
  }
  return fresh;
}

/**
 * The line-by-line reader behind {@link readClaudeCodeLog} (see it for the rules): `calls` are the main
 * conversation's calls, or, while the file holds none, its sidechain calls (a subagent's own transcript).
 */
export class ClaudeCodeLineReader implements LineLogReader {
  readonly format = 'claude-code' as const;
  readonly builder = new SessionLogBuilder('claude-code');
  readonly #sidechain = new SessionLogBuilder('claude-code');
  // The completed TodoWrite items seen so far (by their text), for the main conversation and for sidechains.
  readonly #todos = new Set<string>();
  readonly #sideTodos = new Set<string>();
  #merged = false;

  get calls(): readonly SessionCall[] {
    return this.builder.calls.length === 0 ? this.#sidechain.calls : this.builder.calls;
  }

  line(line: string, lineNumber: number): void {
    const builder = this.builder;
    if (!line.includes('"usage"') && !line.includes('compact_boundary')) {
      if (cannotBeJsonObject(line)) builder.skippedLines.push(lineNumber);
      return;
    }
    const record = builder.parseRecord(line, lineNumber);
    if (!record) return;
    const timestamp = isoTimestamp(record.timestamp) ?? builder.calls.at(-1)?.timestamp;
    if (record.type === 'assistant' && isObject(record.message)) {
      const message = record.message;
      const usage = message.usage;
      const model = text(message.model);
      if (!isObject(usage) || !('input_tokens' in usage) || model === SYNTHETIC_MODEL) return;
      if (timestamp === undefined) {
        builder.skippedLines.push(lineNumber);
        return;
      }
      const id = text(message.id) ?? text(record.requestId) ?? text(record.uuid);
      const side = record.isSidechain === true;
      const target = side ? this.#sidechain : builder;
      target.addCall(id, timestamp, model, anthropicUsageRecord(usage, 'claude-code', { model, timestamp }));
      const completed = newlyCompletedTodos(message.content, side ? this.#sideTodos : this.#todos);
      if (completed > 0) target.markTaskCompleted(id === undefined ? {} : { id });
      return;
    }
    if (record.type === 'system' && record.subtype === 'compact_boundary') {
      const metadata = isObject(record.compactMetadata) ? record.compactMetadata : {};
      if (timestamp === undefined) {
        builder.skippedLines.push(lineNumber);
        return;
      }
      builder.addCompaction(
        timestamp,
        text(metadata.trigger) ?? 'unknown',
        tokenCount(metadata.preTokens),
        tokenCount(metadata.postTokens),
      );
    }
  }

  build(): SessionLog {
    const builder = this.builder;
    // A subagent's own transcript (`<session>/subagents/agent-*.jsonl`) is all sidechain: read it whole.
    if (builder.calls.length === 0 && !this.#merged) {
      this.#merged = true;
      for (const call of this.#sidechain.calls) {
        builder.addCall(call.id, call.timestamp, call.model, call.usage);
        if (call.taskCompleted) builder.markTaskCompleted();
      }
    }
    return builder.build();
  }
}

/**
 * Reads a Claude Code session transcript (`~/.claude/projects/<project>/<session>.jsonl`).
 *
 * - A call is an `assistant` line with `message.usage`. One API message is logged as several lines
 *   (one per content block) that share `message.id`, and `output_tokens` grows across them: the call
 *   keeps its first line's time and its last line's usage.
 * - The prompt is `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`.
 * - A TodoWrite call that marks an item completed (one not completed in an earlier list) completes a task:
 *   its call gets `taskCompleted`.
 * - `system` lines with subtype `compact_boundary` are compactions (`compactMetadata.trigger`,
 *   `compactMetadata.preTokens`).
 * - Not calls of this context: sidechain lines (`isSidechain: true`: subagents, which have their own
 *   context), subagent messages nested in `progress` lines, lines without usage figures (`usage: {}`)
 *   and synthetic messages. A file whose calls are all sidechain (a subagent's own transcript, such as
 *   the compaction agent's `subagents/agent-acompact-*.jsonl`) is read as that subagent's session.
 *
 * Only lines that mention `"usage"` or `compact_boundary` are parsed: on the 3 MB reference log that
 * is 288 lines of 1,512.
 */
export function readClaudeCodeLog(logText: string, onProgress?: ProgressCallback): SessionLog {
  const reader = new ClaudeCodeLineReader();
  forEachLine(logText, onProgress, (line, lineNumber) => reader.line(line, lineNumber));
  return reader.build();
}
