import type { LineLogReader } from './line-log-reader.js';
import type { ProgressCallback, SessionCall, SessionLog } from './session-log.js';
import { cannotBeJsonObject, forEachLine, parseLine, SessionLogBuilder } from './session-log-builder.js';
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

/**
 * Gemini CLI's `tokens` ({ input, output, cached, thoughts, tool, total }) are the API's
 * usageMetadata renamed: `input` includes `cached`, `output` excludes `thoughts`, and
 * `total = input + output + thoughts + tool`. As for the API, the prompt is input + tool and the
 * completion output + thoughts.
 */
function geminiCliUsageRecord(tokens: JsonObject, meta: UsageMeta): UsageRecord {
  const input = tokenCount(tokens.input);
  if (input === undefined)
    return unavailableUsage('gemini-cli', missingCount('tokens.input', tokens.input), meta);
  const output = tokenCount(tokens.output);
  if (output === undefined)
    return unavailableUsage('gemini-cli', missingCount('tokens.output', tokens.output), meta);
  const thoughts = tokenCount(tokens.thoughts) ?? 0;
  return availableUsage(
    'gemini-cli',
    {
      promptTokens: input + (tokenCount(tokens.tool) ?? 0),
      completionTokens: output + thoughts,
      totalTokens: tokenCount(tokens.total),
      cachedReadTokens: tokenCount(tokens.cached),
      reasoningTokens: thoughts,
    },
    meta,
  );
}

/** A `gemini` message with `tokens` is a call; others (user, info, `$set` updates) are not. */
function visitMessage(builder: SessionLogBuilder, message: unknown, lineNumber: number | undefined): void {
  if (!isObject(message) || message.type !== 'gemini' || !isObject(message.tokens)) return;
  const timestamp = isoTimestamp(message.timestamp) ?? builder.calls.at(-1)?.timestamp;
  if (timestamp === undefined) {
    if (lineNumber !== undefined) builder.skippedLines.push(lineNumber);
    return;
  }
  const model = text(message.model);
  builder.addCall(
    text(message.id),
    timestamp,
    model,
    geminiCliUsageRecord(message.tokens, { model, timestamp }),
  );
}

/**
 * Reads a Gemini CLI chat recording: the JSONL form (`~/.gemini/tmp/<project>/chats/*.jsonl`), where
 * a message is appended again each time it is updated (tool calls added, say), or the single JSON
 * object form with a `messages` array. Calls are deduplicated by `id`: a call keeps its first
 * position and time and takes its last record's tokens. Gemini CLI does not record its chat
 * compressions in these files, so `compactions` is empty.
 */
export function readGeminiCliLog(logText: string, onProgress?: ProgressCallback): SessionLog {
  const reader = new GeminiCliLineReader();
  const whole = tryWhole(logText);
  if (whole) {
    whole.forEach((message, index) => {
      visitMessage(reader.builder, message, undefined);
      onProgress?.(index + 1, whole.length);
    });
    return reader.build();
  }
  forEachLine(logText, onProgress, (line, lineNumber) => reader.line(line, lineNumber));
  return reader.build();
}

/** The line-by-line reader of the JSONL form, behind {@link readGeminiCliLog} (see it for the rules). */
export class GeminiCliLineReader implements LineLogReader {
  readonly format = 'gemini-cli' as const;
  readonly builder = new SessionLogBuilder('gemini-cli');

  get calls(): readonly SessionCall[] {
    return this.builder.calls;
  }

  line(line: string, lineNumber: number): void {
    if (!line.includes('"tokens"')) {
      if (cannotBeJsonObject(line)) this.builder.skippedLines.push(lineNumber);
      return;
    }
    const record = this.builder.parseRecord(line, lineNumber);
    if (record !== undefined) visitMessage(this.builder, record, lineNumber);
  }

  build(): SessionLog {
    return this.builder.build();
  }
}

/** The messages of the single-object form (one JSON value with a `messages` array), if that is the form. */
function tryWhole(logText: string): unknown[] | undefined {
  const firstLineEnd = logText.indexOf('\n');
  // JSONL's first line is a complete value by itself; a pretty-printed object's first line is not.
  if (firstLineEnd !== -1 && parseLine(logText.slice(0, firstLineEnd)) !== undefined) return undefined;
  const value = parseLine(logText);
  return isObject(value) && Array.isArray(value.messages) ? value.messages : undefined;
}
