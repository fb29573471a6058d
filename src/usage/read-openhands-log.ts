import { openAIChatUsageRecord } from './normalize-openai-chat.js';
import type { ProgressCallback, SessionLog } from './session-log.js';
import { SessionLogBuilder } from './session-log-builder.js';
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

function visitEvent(builder: SessionLogBuilder, event: JsonObject, timestamp: string): void {
  // Older trajectories: the LiteLLM response of the call that produced an action rides on the action
  // and again on its observation, so calls are keyed by the response id.
  const metadata = isObject(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
  const response = metadata && isObject(metadata.model_response) ? metadata.model_response : undefined;
  if (response && 'usage' in response) {
    const id = text(response.id);
    if (id === undefined || !builder.hasCall(id)) {
      const model = text(response.model);
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
      const model = text(entry.model);
      builder.addCall(id, timestamp, model, tokenUsageRecord(entry, { model, timestamp }));
      const entryWindow = tokenCount(entry.context_window);
      if (entryWindow) builder.contextWindow = entryWindow;
    }
  }
  if (event.action === 'condensation') builder.addCompaction(timestamp, 'condenser');
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
export function readOpenHandsLog(events: readonly unknown[], onProgress?: ProgressCallback): SessionLog {
  const builder = new SessionLogBuilder('openhands');
  let lastTimestamp: string | undefined;
  events.forEach((event, index) => {
    if (isObject(event)) {
      const timestamp = isoTimestamp(event.timestamp) ?? lastTimestamp;
      if (timestamp !== undefined) {
        lastTimestamp = timestamp;
        visitEvent(builder, event, timestamp);
      }
    }
    onProgress?.(index + 1, events.length);
  });
  return builder.build();
}
