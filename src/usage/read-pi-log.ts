import type { LineLogReader } from './line-log-reader.js';
import type { ProgressCallback, SessionCall, SessionLog } from './session-log.js';
import { cannotBeJsonObject, forEachLine, SessionLogBuilder } from './session-log-builder.js';
import {
  availableUsage,
  isObject,
  isoTimestamp,
  type JsonObject,
  missingCount,
  text,
  tokenCount,
  type UsageMeta,
  unavailableUsage,
} from './usage-fields.js';
import type { UsageRecord } from './usage-record.js';

/** Substrings of the only lines the reader needs. */
const RELEVANT = ['"usage"', '"compaction"', '"session"', '"role":"user"'];

/**
 * pi's `Usage` (packages/ai/src/types.ts): `input` is the uncached prompt (every provider adapter subtracts the cached
 * tokens from it), `cacheRead` and `cacheWrite` the cached parts, `output` the completion, thinking included.
 */
export function piUsageRecord(usage: unknown, meta: UsageMeta): UsageRecord {
  if (!isObject(usage)) return unavailableUsage('pi', 'the assistant message has no usage', meta);
  const input = tokenCount(usage.input);
  if (input === undefined) return unavailableUsage('pi', missingCount('usage.input', usage.input), meta);
  const output = tokenCount(usage.output);
  if (output === undefined) return unavailableUsage('pi', missingCount('usage.output', usage.output), meta);
  const cachedReadTokens = tokenCount(usage.cacheRead) ?? 0;
  const cachedWriteTokens = tokenCount(usage.cacheWrite) ?? 0;
  return availableUsage(
    'pi',
    {
      promptTokens: input + cachedReadTokens + cachedWriteTokens,
      completionTokens: output,
      cachedReadTokens,
      cachedWriteTokens,
    },
    meta,
  );
}

/** A response pi logged without a token of usage: aborted before the provider answered, or refused. Not a call. */
function isEmptyResponse(usage: JsonObject): boolean {
  return ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => (tokenCount(usage[key]) ?? 0) === 0);
}

/** The text of a pi message's content (a string, or its text blocks joined). */
export function userText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : ''))
    .join('');
}

/** The line-by-line reader behind {@link readPiLog} (see it for the rules). */
export class PiLineReader implements LineLogReader {
  readonly format = 'pi' as const;
  readonly builder = new SessionLogBuilder('pi');
  /** The session id of the header line. */
  id: string | undefined;
  /** What came since the last call: a user's `/compact`, or an assistant message that ended in an error. */
  #compactAsked = false;
  #lastStop: string | undefined;

  get calls(): readonly SessionCall[] {
    return this.builder.calls;
  }

  line(line: string, lineNumber: number): void {
    const builder = this.builder;
    if (!RELEVANT.some((marker) => line.includes(marker))) {
      if (cannotBeJsonObject(line)) builder.skippedLines.push(lineNumber);
      return;
    }
    const record = builder.parseRecord(line, lineNumber);
    if (!record) return;
    const timestamp = isoTimestamp(record.timestamp) ?? builder.calls.at(-1)?.timestamp;
    if (record.type === 'session') {
      this.id ??= text(record.id);
      builder.fallbackModel ??= text(record.modelId);
      return;
    }
    if (record.type === 'compaction') {
      if (timestamp === undefined) {
        builder.skippedLines.push(lineNumber);
        return;
      }
      const trigger = this.#compactAsked ? 'manual' : this.#lastStop === 'error' ? 'auto' : 'unknown';
      builder.addCompaction(timestamp, trigger, tokenCount(record.tokensBefore));
      this.#compactAsked = false;
      return;
    }
    if (record.type !== 'message' || !isObject(record.message)) return;
    const message = record.message;
    if (message.role === 'user') {
      // Older pi versions logged the command itself; a compaction right after it is the user's.
      this.#compactAsked = /^\/compact(\s|$)/.test(userText(message.content).trim());
      return;
    }
    if (message.role !== 'assistant' || !isObject(message.usage)) return;
    this.#lastStop = text(message.stopReason);
    if (isEmptyResponse(message.usage)) return;
    if (timestamp === undefined) {
      builder.skippedLines.push(lineNumber);
      return;
    }
    const model = text(message.model);
    builder.addCall(undefined, timestamp, model, piUsageRecord(message.usage, { model, timestamp }));
    // `stop`: the model answered and handed the turn back to the user (`toolUse` goes on with tools).
    if (message.stopReason === 'stop') builder.markTaskCompleted();
    this.#compactAsked = false;
  }

  build(): SessionLog {
    const log = this.builder.build();
    if (this.id !== undefined) log.id = this.id;
    return log;
  }
}

/**
 * Reads a pi coding agent session (`~/.pi/agent/sessions/--<path>--/<timestamp>_<uuid>.jsonl`; format in pi-mono's
 * packages/coding-agent/docs/session.md).
 *
 * - A call is a `message` entry whose `message.role` is `assistant`, with `usage` `{ input, output, cacheRead,
 *   cacheWrite, cost }`: the prompt is `input + cacheRead + cacheWrite`. A response logged with no token at all
 *   (aborted before the provider answered) is not a call. Each call names its own model (`message.model`), so model
 *   changes (`model_change` entries) are seen on the calls; the header's `modelId` is the model when no call names one.
 * - Entries form a tree (`id`/`parentId`: a user can branch back); every branch's calls were billed, so calls are
 *   read in file order whatever their branch.
 * - A `compaction` entry is a compaction (`tokensBefore`). pi logs no trigger: it is `'manual'` right after a logged
 *   `/compact` user message, `'auto'` right after a response that ended in an error (pi compacts and retries on a
 *   context overflow), else `'unknown'` (pi's automatic compaction past its threshold and a `/compact` typed in
 *   today's versions, which do not log the command, look the same).
 * - A response that ends with `stopReason: 'stop'` hands the turn back to the user: it completes a task.
 */
export function readPiLog(logText: string, onProgress?: ProgressCallback): SessionLog {
  const reader = new PiLineReader();
  forEachLine(logText, onProgress, (line, lineNumber) => reader.line(line, lineNumber));
  return reader.build();
}
