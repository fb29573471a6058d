import type { LineLogReader } from './line-log-reader.js';
import { anthropicUsageRecord } from './normalize-anthropic.js';
import type { ProgressCallback, SessionCall, SessionLog } from './session-log.js';
import { cannotBeJsonObject, forEachLine, SessionLogBuilder } from './session-log-builder.js';
import { requestExcerpt } from './session-title.js';
import { isObject, isoTimestamp, type JsonObject, text, tokenCount } from './usage-fields.js';

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
 * Which sub-agent chain a sidechain line belongs to, fed the `user` and `assistant` lines in log order: its `agentId`
 * where it has one (newer Claude Code), else the chain its `parentUuid` is in, else a chain of its own started by
 * its `uuid` (a chain's first line has no parent among the sidechain lines). Undefined for a line of the main
 * conversation. The usage and history readers share it, so that they number the same sub-agents.
 */
export class SidechainChains {
  readonly #chainOf = new Map<string, string>();

  keyOf(record: JsonObject): string | undefined {
    if (record.isSidechain !== true || (record.type !== 'user' && record.type !== 'assistant'))
      return undefined;
    const parent = text(record.parentUuid);
    const key =
      text(record.agentId) ??
      (parent === undefined ? undefined : this.#chainOf.get(parent)) ??
      text(record.uuid);
    const uuid = text(record.uuid);
    if (uuid !== undefined && key !== undefined) this.#chainOf.set(uuid, key);
    return key ?? 'sidechain';
  }
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
  readonly #chains = new SidechainChains();
  /** Each sub-agent chain's calls, by chain key, in order of first appearance. */
  readonly #children = new Map<string, SessionLogBuilder>();
  #sessionId: string | undefined;
  #merged = false;
  /** Each sub-agent chain's first request (its Task prompt), by chain key. */
  readonly #childRequests = new Map<string, string>();

  get calls(): readonly SessionCall[] {
    return this.builder.calls.length === 0 ? this.#sidechain.calls : this.builder.calls;
  }

  get firstRequest(): string | undefined {
    return this.builder.firstRequest ?? this.#sidechain.firstRequest;
  }

  /** A user line the user typed (a prompt, not a tool result or a meta line): its excerpt, for the title. */
  #request(record: JsonObject, chain: string | undefined): void {
    if (record.isMeta === true || !isObject(record.message)) return;
    const content = record.message.content;
    const blocks = typeof content === 'string' ? [content] : Array.isArray(content) ? content : [];
    if (blocks.some((block) => isObject(block) && block.type === 'tool_result')) return;
    const excerpt = blocks
      .map((block) => (typeof block === 'string' ? block : isObject(block) ? text(block.text) : undefined))
      .map((value) => (value === undefined ? undefined : requestExcerpt(value)))
      .find((value) => value !== undefined);
    if (excerpt === undefined) return;
    if (record.isSidechain !== true) this.builder.firstRequest ??= excerpt;
    else {
      this.#sidechain.firstRequest ??= excerpt;
      if (chain !== undefined && !this.#childRequests.has(chain)) this.#childRequests.set(chain, excerpt);
    }
  }

  line(line: string, lineNumber: number): void {
    const builder = this.builder;
    if (
      !line.includes('"usage"') &&
      !line.includes('compact_boundary') &&
      !line.includes('"isSidechain":true') &&
      (this.#sessionId !== undefined || !line.includes('"sessionId"')) &&
      (builder.firstRequest !== undefined || !line.includes('"type":"user"'))
    ) {
      if (cannotBeJsonObject(line)) builder.skippedLines.push(lineNumber);
      return;
    }
    const record = builder.parseRecord(line, lineNumber);
    if (!record) return;
    this.#sessionId ??= text(record.sessionId);
    builder.workingDirectory = text(record.cwd) ?? builder.workingDirectory;
    const chain = this.#chains.keyOf(record);
    const timestamp = isoTimestamp(record.timestamp) ?? builder.calls.at(-1)?.timestamp;
    if (record.type === 'user') {
      this.#request(record, chain);
      return;
    }
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
      const usageRecord = anthropicUsageRecord(usage, 'claude-code', { model, timestamp });
      target.addCall(id, timestamp, model, usageRecord);
      const completed = newlyCompletedTodos(message.content, side ? this.#sideTodos : this.#todos);
      if (completed > 0) target.markTaskCompleted(id === undefined ? {} : { id });
      if (chain !== undefined) {
        let child = this.#children.get(chain);
        if (!child) {
          child = new SessionLogBuilder('claude-code');
          this.#children.set(chain, child);
        }
        child.addCall(id, timestamp, model, { ...usageRecord });
        if (completed > 0) child.markTaskCompleted(id === undefined ? {} : { id });
      }
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
    const ownTranscript = builder.calls.length === 0;
    if (ownTranscript && !this.#merged) {
      this.#merged = true;
      for (const call of this.#sidechain.calls) {
        builder.addCall(call.id, call.timestamp, call.model, call.usage);
        if (call.taskCompleted) builder.markTaskCompleted();
      }
    }
    const log = builder.build();
    const chains = [...this.#children.keys()];
    if (ownTranscript) {
      const request = this.firstRequest;
      if (request !== undefined) log.firstRequest = request;
      if (chains.length === 1) log.id = chains[0]!;
      if (this.#sessionId !== undefined) log.parentId = this.#sessionId;
      return log;
    }
    if (this.#sessionId !== undefined) log.id = this.#sessionId;
    if (chains.length > 0) {
      log.children = chains.map((chain) => {
        const child = this.#children.get(chain)!.build();
        child.id = chain;
        const request = this.#childRequests.get(chain);
        if (request !== undefined) child.firstRequest = request;
        if (this.#sessionId !== undefined) child.parentId = this.#sessionId;
        return child;
      });
    }
    return log;
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
 * - Sub-agents: sidechain lines (`isSidechain: true`, Task sub-agents run inline) are not calls of this context;
 *   each chain of them (see `SidechainChains`) is a child session in `children`, with its own calls. A file whose
 *   calls are all sidechain (a subagent's own transcript, such as `subagents/agent-acompact-*.jsonl`) is read as
 *   that subagent's session (its `agentId` as id, the session's as `parentId`).
 * - Not calls: subagent messages nested in `progress` lines, lines without usage figures (`usage: {}`) and
 *   synthetic messages.
 *
 * Only lines that mention `"usage"` or `compact_boundary` are parsed: on the 3 MB reference log that
 * is 288 lines of 1,512.
 */
export function readClaudeCodeLog(logText: string, onProgress?: ProgressCallback): SessionLog {
  const reader = new ClaudeCodeLineReader();
  forEachLine(logText, onProgress, (line, lineNumber) => reader.line(line, lineNumber));
  return reader.build();
}
