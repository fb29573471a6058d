import { windowsFromCodex } from '../quota/windows/codex-rate-limits.js';
import type { UsageWindow } from '../quota/windows/usage-window.js';
import type { LineLogReader } from './line-log-reader.js';
import type { ProgressCallback, SessionCall, SessionLog } from './session-log.js';
import { cannotBeJsonObject, forEachLine, SessionLogBuilder } from './session-log-builder.js';
import { requestExcerpt } from './session-title.js';
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

/** Substrings of the only lines the reader needs; every other line is left unparsed. */
const RELEVANT = [
  '"token_count"',
  '"turn_context"',
  '"session_meta"',
  '"compacted"',
  '"context_compacted"',
  '"task_started"',
  '"task_complete"',
  '"user_message"',
];

/**
 * Codex's per-call usage (`info.last_token_usage`): `input_tokens` already includes
 * `cached_input_tokens`, and `output_tokens` includes `reasoning_output_tokens`.
 */
function codexUsageRecord(usage: unknown, meta: UsageMeta): UsageRecord {
  if (!isObject(usage))
    return unavailableUsage('codex', 'the token_count event has no last_token_usage', meta);
  const promptTokens = tokenCount(usage.input_tokens);
  if (promptTokens === undefined) {
    return unavailableUsage('codex', missingCount('last_token_usage.input_tokens', usage.input_tokens), meta);
  }
  const completionTokens = tokenCount(usage.output_tokens);
  if (completionTokens === undefined) {
    return unavailableUsage(
      'codex',
      missingCount('last_token_usage.output_tokens', usage.output_tokens),
      meta,
    );
  }
  return availableUsage(
    'codex',
    {
      promptTokens,
      completionTokens,
      totalTokens: tokenCount(usage.total_tokens),
      cachedReadTokens: tokenCount(usage.cached_input_tokens),
      reasoningTokens: tokenCount(usage.reasoning_output_tokens),
    },
    meta,
  );
}

/** The cumulative counters, as a key: an event whose totals did not move reports no new call. */
function totalsKey(info: JsonObject): string | undefined {
  const totals = info.total_token_usage;
  if (!isObject(totals)) return undefined;
  return `${totals.input_tokens}/${totals.cached_input_tokens}/${totals.output_tokens}/${totals.reasoning_output_tokens}/${totals.total_tokens}`;
}

/** The line-by-line reader behind {@link readCodexLog} (see it for the rules). */
export class CodexLineReader implements LineLogReader {
  readonly format = 'codex' as const;
  readonly builder = new SessionLogBuilder('codex');
  #callsAtLastCompletion = 0;
  #model: string | undefined;
  #previousTotals: string | undefined;
  #turnHasActivity = false;
  /** The windows' latest figures since the last call, by id: they go with the next call. */
  #windows = new Map<string, UsageWindow>();

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
    const payload = isObject(record.payload) ? record.payload : {};
    const timestamp = isoTimestamp(record.timestamp) ?? builder.calls.at(-1)?.timestamp;
    if (record.type === 'turn_context' || record.type === 'session_meta') {
      this.#model = text(payload.model) ?? this.#model;
      builder.workingDirectory = text(payload.cwd) ?? builder.workingDirectory;
      if (record.type === 'session_meta') {
        builder.fallbackModel ??= this.#model;
        builder.source = sourceOf(payload.source) ?? builder.source;
      }
      return;
    }
    if (record.type === 'compacted') {
      if (timestamp === undefined) builder.skippedLines.push(lineNumber);
      else builder.addCompaction(timestamp, this.#turnHasActivity ? 'auto' : 'unknown');
      return;
    }
    if (record.type !== 'event_msg') return;
    if (payload.type === 'task_started') {
      this.#turnHasActivity = false;
      builder.contextWindow = tokenCount(payload.model_context_window) ?? builder.contextWindow;
    } else if (payload.type === 'task_complete') {
      // The turn's last call completed the task; a turn without a call of its own completes nothing new.
      const marked = builder.markTaskCompleted({ since: this.#callsAtLastCompletion });
      if (marked !== undefined) this.#callsAtLastCompletion = marked + 1;
    } else if (payload.type === 'user_message') {
      this.#turnHasActivity = true;
      // The user's own words (the turn's context blocks are other records): the session's title.
      if (builder.firstRequest === undefined && typeof payload.message === 'string')
        builder.firstRequest = requestExcerpt(payload.message);
    } else if (payload.type === 'context_compacted') {
      const last = builder.compactions.at(-1);
      const sameAsLast = last !== undefined && last.beforeCallIndex === builder.calls.length;
      if (!sameAsLast && timestamp !== undefined) {
        builder.addCompaction(timestamp, this.#turnHasActivity ? 'auto' : 'unknown');
      }
    } else if (payload.type === 'token_count') {
      this.#tokenCount(payload, timestamp, lineNumber);
    }
  }

  /** A `token_count` event: its rate limits (kept for the next call), and a call when its totals moved. */
  #tokenCount(payload: JsonObject, timestamp: string | undefined, lineNumber: number): void {
    const builder = this.builder;
    // Every event carries the windows as the provider last stated them, the repeats and the `info: null` ones too.
    if (timestamp !== undefined && payload.rate_limits !== undefined)
      for (const window of windowsFromCodex(payload.rate_limits, Date.parse(timestamp)))
        this.#windows.set(window.id, window);
    if (isObject(payload.info)) {
      const info = payload.info;
      builder.contextWindow = tokenCount(info.model_context_window) ?? builder.contextWindow;
      const totals = totalsKey(info);
      if (totals !== undefined && totals === this.#previousTotals) return;
      this.#previousTotals = totals;
      if (timestamp === undefined) {
        builder.skippedLines.push(lineNumber);
        return;
      }
      this.#turnHasActivity = true;
      const model = this.#model;
      builder.addCall(
        undefined,
        timestamp,
        model,
        codexUsageRecord(info.last_token_usage, { model, timestamp }),
      );
      if (this.#windows.size > 0) {
        (builder.calls.at(-1) as SessionCall).windows = [...this.#windows.values()];
        this.#windows.clear();
      }
    }
  }

  build(): SessionLog {
    this.builder.fallbackModel ??= this.#model;
    return this.builder.build();
  }
}

/**
 * Reads a Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`).
 *
 * - A call is an `event_msg` whose payload is `token_count`. Codex emits each one more than once:
 *   first with `info: null`, then repeats whose cumulative `total_token_usage` has not moved (the
 *   repeats differ only in rate-limit figures). Events with null info, and events whose totals equal
 *   the previous event's, are dropped; `info.last_token_usage` is the call's usage.
 * - Every `token_count` event's `rate_limits` (the repeats' and the `info: null` ones' too: Codex states the
 *   provider's latest figures on each) are the subscription windows (`windowsFromCodex`): the latest figure of each
 *   window since the last call goes with the next call (`SessionCall.windows`).
 * - `model_context_window` (in `info` or `task_started`) is the session's context window; the model
 *   comes from the latest `turn_context` (or `session_meta`).
 * - A `compacted` line is a compaction (an `event_msg` `context_compacted` right after it is the same
 *   one). Codex logs no trigger: a compaction in a turn that already had a call or a user message is
 *   the automatic one Codex runs when the context fills (`'auto'`); otherwise `'unknown'`.
 */
export function readCodexLog(logText: string, onProgress?: ProgressCallback): SessionLog {
  const reader = new CodexLineReader();
  forEachLine(logText, onProgress, (line, lineNumber) => reader.line(line, lineNumber));
  return reader.build();
}

/**
 * A `session_meta` `source` as Codex writes it (openai/codex, codex-rs/protocol `SessionSource`, serde lowercase):
 * `"cli"`, `"vscode"`, `"exec"`, `"mcp"`, or `{ "subagent": … }` for a sub-agent's session (review, compact, a
 * spawned thread), read as `subagent`.
 */
function sourceOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value.slice(0, 100);
  if (isObject(value) && 'subagent' in value) return 'subagent';
  return undefined;
}
