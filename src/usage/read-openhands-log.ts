import { openAIChatUsageRecord } from './normalize-openai-chat.js';
import type { ProgressCallback, SessionLog } from './session-log.js';
import { forEachLine, SessionLogBuilder } from './session-log-builder.js';
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

/** The events of a trajectory: the file is a JSON array, or an object holding one under `history`. */
export function openHandsEvents(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (isObject(value) && Array.isArray(value.history)) return value.history;
  return undefined;
}

/**
 * OpenHands' own `TokenUsage` (in `llm_metrics.token_usages`): `prompt_tokens` is LiteLLM's, cache
 * included; `cache_read_tokens`/`cache_write_tokens` are its parts.
 */
function tokenUsageRecord(entry: JsonObject, meta: UsageMeta): UsageRecord {
  const promptTokens = tokenCount(entry.prompt_tokens);
  if (promptTokens === undefined) {
    return unavailableUsage(
      'openhands',
      missingCount('token_usages[].prompt_tokens', entry.prompt_tokens),
      meta,
    );
  }
  const completionTokens = tokenCount(entry.completion_tokens);
  if (completionTokens === undefined) {
    return unavailableUsage(
      'openhands',
      missingCount('token_usages[].completion_tokens', entry.completion_tokens),
      meta,
    );
  }
  return availableUsage(
    'openhands',
    {
      promptTokens,
      completionTokens,
      cachedReadTokens: tokenCount(entry.cache_read_tokens),
      cachedWriteTokens: tokenCount(entry.cache_write_tokens),
    },
    meta,
  );
}

/** The model a call names, with the route the run went through (`openrouter/…`), where the run's config names one. */
type ModelOf = (model: string | undefined) => string | undefined;

function visitEvent(
  builder: SessionLogBuilder,
  event: JsonObject,
  timestamp: string,
  modelOf: ModelOf,
): void {
  // Older trajectories: the LiteLLM response of the call that produced an action rides on the action
  // and again on its observation, so calls are keyed by the response id.
  const metadata = isObject(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
  const response = metadata && isObject(metadata.model_response) ? metadata.model_response : undefined;
  if (response && 'usage' in response) {
    const id = text(response.id);
    if (id === undefined || !builder.hasCall(id)) {
      const model = modelOf(text(response.model));
      builder.addCall(
        id,
        timestamp,
        model,
        openAIChatUsageRecord(response.usage, 'openhands', { model, timestamp }),
      );
    }
  }
  // Newer trajectories: `llm_metrics` holds the agent's metrics so far, one token usage per response.
  const metrics = isObject(event.llm_metrics) ? event.llm_metrics : undefined;
  if (metrics) {
    const accumulated = isObject(metrics.accumulated_token_usage) ? metrics.accumulated_token_usage : {};
    const window = tokenCount(accumulated.context_window);
    if (window) builder.contextWindow = window;
    const usages = Array.isArray(metrics.token_usages) ? metrics.token_usages : [];
    for (const entry of usages) {
      if (!isObject(entry)) continue;
      const id = text(entry.response_id);
      if (id !== undefined && builder.hasCall(id)) continue;
      const model = modelOf(text(entry.model));
      builder.addCall(id, timestamp, model, tokenUsageRecord(entry, { model, timestamp }));
      const entryWindow = tokenCount(entry.context_window);
      if (entryWindow) builder.contextWindow = entryWindow;
    }
  }
  if (event.action === 'condensation') builder.addCompaction(timestamp, 'condenser');
  // The agent declared its task done (AgentFinishAction): the call that produced it completed a task.
  if (event.action === 'finish' && event.source === 'agent') builder.markTaskCompleted();
}

/**
 * Reads an OpenHands trajectory (the JSON array of events it saves). A call is a distinct LLM
 * response: from `tool_call_metadata.model_response.usage` (LiteLLM's OpenAI-style usage, with
 * Anthropic's cache fields beside it) or from `llm_metrics.token_usages`. A `condensation` action is a
 * compaction (trigger `'condenser'`).
 *
 * Times are the events' `timestamp`s. OpenHands writes local time without a zone; they are read as
 * UTC, so they are consistent with each other but may be off by the recorder's zone offset.
 */
export function readOpenHandsLog(
  events: readonly unknown[],
  onProgress?: ProgressCallback,
  modelOf: ModelOf = (model) => model,
): SessionLog {
  return trajectoryBuilder(events, onProgress, modelOf).build();
}

function trajectoryBuilder(
  events: readonly unknown[],
  onProgress: ProgressCallback | undefined,
  modelOf: ModelOf,
): SessionLogBuilder {
  const builder = new SessionLogBuilder('openhands');
  let lastTimestamp: string | undefined;
  events.forEach((event, index) => {
    if (isObject(event)) {
      const timestamp = isoTimestamp(event.timestamp) ?? lastTimestamp;
      if (timestamp !== undefined) {
        lastTimestamp = timestamp;
        visitEvent(builder, event, timestamp, modelOf);
      }
    }
    onProgress?.(index + 1, events.length);
  });
  return builder;
}

/** Whether a JSON line is one trajectory of an OpenHands evaluation output (`output.jsonl`). */
export function isOpenHandsOutputRecord(record: JsonObject): boolean {
  return (
    Array.isArray(record.history) && (typeof record.instance_id === 'string' || isObject(record.metrics))
  );
}

/**
 * One trajectory of an evaluation output: its history's calls, then the calls its `metrics.token_usages` lists that
 * no event carried (by `response_id`), at the time of its last event. The model a call names is taken through the
 * route the run's `metadata.llm_config.model` names: `openai/openrouter-…` sends it through OpenRouter, whose listing
 * prices it (`openrouter/<model>`).
 */
function readTrajectory(record: JsonObject): SessionLog {
  const metadata = isObject(record.metadata) ? record.metadata : {};
  const config = isObject(metadata.llm_config) ? metadata.llm_config : {};
  const configured = text(config.model);
  const route = configured?.includes('openrouter') ? 'openrouter/' : '';
  const modelOf: ModelOf = (model) =>
    model === undefined || route === '' || model.startsWith(route) ? model : `${route}${model}`;
  const events = record.history as unknown[];
  const builder = trajectoryBuilder(events, undefined, modelOf);
  const metrics = isObject(record.metrics) ? record.metrics : {};
  const last = builder.calls.at(-1)?.timestamp ?? isoTimestamp(events.findLast(isObject)?.timestamp);
  if (last !== undefined && Array.isArray(metrics.token_usages)) {
    for (const entry of metrics.token_usages) {
      if (!isObject(entry)) continue;
      const id = text(entry.response_id);
      if (id !== undefined && builder.hasCall(id)) continue;
      const model = modelOf(text(entry.model));
      builder.addCall(id, last, model, tokenUsageRecord(entry, { model, timestamp: last }));
    }
  }
  if (configured !== undefined) builder.fallbackModel = configured;
  const log = builder.build();
  const id = text(record.instance_id);
  if (id !== undefined) log.id = id;
  return log;
}

/**
 * Reads an OpenHands evaluation output (`output.jsonl`, as OpenHands' evaluation harness writes it, `evaluation/benchmarks/<benchmark>/run_infer.py`): one
 * trajectory a line, `{ instance_id, instruction, metadata, history, metrics: { token_usages, … }, … }`. Each
 * trajectory is its own session (its own context: every history starts from the system prompt) and a child of the
 * returned log, which holds no call of its own; an `output.jsonl` of one line is that trajectory's session. Lines that
 * are not JSON, or not a trajectory, are listed in `skippedLines`.
 */
export function readOpenHandsOutput(logText: string, onProgress?: ProgressCallback): SessionLog {
  const parent = new SessionLogBuilder('openhands');
  const children: SessionLog[] = [];
  forEachLine(logText, onProgress, (line, lineNumber) => {
    if (line.trim() === '') return;
    const record = parent.parseRecord(line, lineNumber);
    if (!record) return;
    if (isOpenHandsOutputRecord(record)) children.push(readTrajectory(record));
    else parent.skippedLines.push(lineNumber);
  });
  if (children.length === 1 && parent.skippedLines.length === 0 && parent.recoveredLines.length === 0)
    return children[0]!;
  const log = parent.build();
  const model = children.find((child) => child.model !== undefined)?.model;
  if (model !== undefined) log.model = model;
  log.children = children;
  return log;
}
