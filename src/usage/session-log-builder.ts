import type {
  LogFormat,
  ProgressCallback,
  RecordedCompaction,
  SessionCall,
  SessionLog,
} from './session-log.js';
import { isObject, type JsonObject } from './usage-fields.js';
import type { UsageRecord } from './usage-record.js';

/** How often the line readers report progress. */
const PROGRESS_EVERY_LINES = 1000;

/**
 * Calls `visit` with each line of a log and its 1-based number, reporting progress every
 * thousand lines and once at the end.
 */
export function forEachLine(
  text: string,
  onProgress: ProgressCallback | undefined,
  visit: (line: string, lineNumber: number) => void,
): void {
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start another.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  for (let index = 0; index < total; index++) {
    visit(lines[index]!, index + 1);
    if (onProgress && (index + 1) % PROGRESS_EVERY_LINES === 0) onProgress(index + 1, total);
  }
  onProgress?.(total, total);
}

/** The text without a leading byte-order mark, which JSON.parse rejects and some editors write. */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses one JSON line; undefined when it is not JSON. */
export function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** How many `{"` positions of a broken line are tried as the start of a record before giving up. */
const RECOVERY_ATTEMPTS = 10_000;

/**
 * The record at the end of a line that does not parse whole, when there is one: a writer that crashed mid-line
 * leaves a fragment, and the next record is appended to it on the same line (`{"partial…{"type":"assistant",…}`).
 * The first `{"` after the line's start from which the rest of the line parses as one JSON object with a `type`
 * starts that record (an object nested in the fragment cannot parse to the line's end). Undefined when none does.
 */
export function recoverRecord(line: string): JsonObject | undefined {
  let attempts = 0;
  for (let at = line.indexOf('{"', 1); at !== -1 && attempts < RECOVERY_ATTEMPTS; attempts++) {
    const value = parseLine(line.slice(at));
    if (isObject(value) && typeof value.type === 'string') return value;
    at = line.indexOf('{"', at + 1);
  }
  return undefined;
}

/** A cheap test that tells a line that cannot be a JSON object without parsing it. */
export function cannotBeJsonObject(line: string): boolean {
  const trimmed = line.trim();
  return trimmed !== '' && (trimmed[0] !== '{' || trimmed[trimmed.length - 1] !== '}');
}

/** Whether two records of one call count the same tokens (a streamed message's lines before its output grew). */
function sameTokens(a: UsageRecord, b: UsageRecord): boolean {
  if (!a.available || !b.available) return a.available === b.available;
  return (
    a.promptTokens === b.promptTokens &&
    a.completionTokens === b.completionTokens &&
    a.cachedReadTokens === b.cachedReadTokens &&
    a.cachedWriteTokens === b.cachedWriteTokens
  );
}

/** Collects calls and compactions in log order, then fills what the log left implicit. */
export class SessionLogBuilder {
  readonly calls: SessionCall[] = [];
  readonly compactions: RecordedCompaction[] = [];
  readonly skippedLines: number[] = [];
  /** Lines that began with a broken fragment: the fragment was dropped, the record after it was read. */
  readonly recoveredLines: number[] = [];
  contextWindow: number | undefined;
  /** The folder the agent worked in, as the log's latest record that states one gives it. */
  workingDirectory: string | undefined;
  /** An excerpt of the user's first request, as the first record that holds one gives it. */
  firstRequest: string | undefined;
  /** The model when no call names one (a Codex session_meta, say). */
  fallbackModel: string | undefined;
  /** What started the session, where the log says (`SessionLog.source`). */
  source: string | undefined;
  private readonly indexById = new Map<string, number>();

  constructor(readonly format: LogFormat) {}

  /**
   * Adds a call. A call whose id was seen before keeps its index and first timestamp and takes the
   * new usage (and model), because the agents rewrite a call as it streams: the last record is final.
   */
  addCall(id: string | undefined, timestamp: string, model: string | undefined, usage: UsageRecord): void {
    if (id !== undefined) {
      const existing = this.indexById.get(id);
      if (existing !== undefined) {
        const call = this.calls[existing]!;
        // The call happened when it was first logged; its usage says the same time.
        if (usage.timestamp !== undefined) usage.timestamp = call.timestamp;
        if (call.firstUsage === undefined && !sameTokens(call.usage, usage)) call.firstUsage = call.usage;
        call.usage = usage;
        if (model !== undefined) call.model = model;
        return;
      }
      this.indexById.set(id, this.calls.length);
    }
    const call: SessionCall = { index: this.calls.length, timestamp, usage };
    if (id !== undefined) call.id = id;
    if (model !== undefined) call.model = model;
    this.calls.push(call);
  }

  /**
   * Marks a call (by its id, else the last call) as completing a task; with `since`, only a call at or after
   * that index (a task_complete with no call since the last one marks nothing). Returns the index marked.
   */
  markTaskCompleted(options: { id?: string; since?: number } = {}): number | undefined {
    const index = options.id !== undefined ? this.indexById.get(options.id) : this.calls.length - 1;
    if (index === undefined || index < 0 || index < (options.since ?? 0)) return undefined;
    (this.calls[index] as SessionCall).taskCompleted = true;
    return index;
  }

  /**
   * One line as a JSON object: the whole line, else the record after a broken fragment (noted in `recoveredLines`),
   * else undefined (noted in `skippedLines`).
   */
  parseRecord(line: string, lineNumber: number): JsonObject | undefined {
    const record = parseLine(line);
    if (isObject(record)) return record;
    const recovered = record === undefined ? recoverRecord(line) : undefined;
    if (recovered) this.recoveredLines.push(lineNumber);
    else this.skippedLines.push(lineNumber);
    return recovered;
  }

  hasCall(id: string): boolean {
    return this.indexById.has(id);
  }

  addCompaction(timestamp: string, trigger: string, preTokens?: number, postTokens?: number): void {
    const compaction: RecordedCompaction = { timestamp, trigger, beforeCallIndex: this.calls.length };
    if (preTokens !== undefined) compaction.preTokens = preTokens;
    if (postTokens !== undefined) compaction.postTokens = postTokens;
    this.compactions.push(compaction);
  }

  build(): SessionLog {
    for (const compaction of this.compactions) {
      if (compaction.preTokens === undefined) {
        const before = this.calls[compaction.beforeCallIndex - 1]?.usage;
        if (before?.available) compaction.preTokens = before.promptTokens;
      }
      if (compaction.postTokens === undefined) {
        const after = this.calls[compaction.beforeCallIndex]?.usage;
        if (after?.available) compaction.postTokens = after.promptTokens;
      }
    }
    const log: SessionLog = {
      format: this.format,
      calls: this.calls,
      compactions: this.compactions,
      skippedLines: this.skippedLines,
    };
    if (this.recoveredLines.length > 0) log.recoveredLines = this.recoveredLines;
    const model = this.calls.findLast((call) => call.model !== undefined)?.model ?? this.fallbackModel;
    if (model !== undefined) log.model = model;
    if (this.contextWindow !== undefined) log.contextWindow = this.contextWindow;
    if (this.workingDirectory !== undefined) log.workingDirectory = this.workingDirectory;
    if (this.firstRequest !== undefined) log.firstRequest = this.firstRequest;
    if (this.source !== undefined) log.source = this.source;
    return log;
  }
}
