import { describe, expect, it } from 'vitest';
import { readOpenHandsLog } from './read-openhands-log.js';
import { readSessionLog } from './read-session-log.js';
import { readTrace } from './test-helpers/traces.js';

/*
 * basic_gui_mode.json: 18 events; actions 7, 9, 11, 13 and their observations 8, 10, 12, 14 carry
 * tool_call_metadata.model_response (LiteLLM, claude-3-5-sonnet-20241022): 4 distinct response ids.
 * Event 7's usage: prompt 3439 (of which cache_creation 3435), completion 104, total 3543.
 * Event 9's usage: prompt 3601 (cache_read 3435, cache_creation 160), completion 1142, total 4743.
 */
describe('readOpenHandsLog on the recorded trajectory', () => {
  const log = readSessionLog(readTrace('openhands/basic_gui_mode.json'));

  it('finds 4 LLM calls, one per response id', () => {
    expect(log.format).toBe('openhands');
    expect(log.calls.map((call) => call.id)).toEqual([
      'chatcmpl-6bb9f175-c587-44b4-8c8d-f91fc4827590',
      'chatcmpl-55936480-cbf9-4d24-bd4a-329bd2f1f65c',
      'chatcmpl-34fef176-276b-4a18-892f-688b08f51225',
      'chatcmpl-51a85fbb-dafc-4519-a7d2-df369e38d76f',
    ]);
    expect(log.model).toBe('claude-3-5-sonnet-20241022');
  });

  it('reads LiteLLM usage with Anthropic cache fields', () => {
    expect(log.calls[0]!.usage).toMatchObject({
      source: 'openhands',
      promptTokens: 3439,
      completionTokens: 104,
      totalTokens: 3543,
      cachedReadTokens: 0,
      cachedWriteTokens: 3435,
    });
    expect(log.calls[1]!.usage).toMatchObject({
      promptTokens: 3601,
      completionTokens: 1142,
      totalTokens: 4743,
      cachedReadTokens: 3435,
      cachedWriteTokens: 160,
    });
  });

  it('stamps the action’s time, read as UTC because OpenHands writes no zone', () => {
    expect(log.calls[0]!.timestamp).toBe('2025-01-20T20:29:35.040Z');
  });
});

describe('readOpenHandsLog on the llm_metrics form', () => {
  // Newer trajectories carry the agent's metrics so far on events (OpenHands' TokenUsage fields).
  const metrics = (usages: object[]) => ({
    accumulated_token_usage: { model: 'gpt-5', context_window: 272000 },
    token_usages: usages,
  });
  const first = {
    model: 'gpt-5',
    prompt_tokens: 9000,
    completion_tokens: 400,
    cache_read_tokens: 8000,
    cache_write_tokens: 0,
    response_id: 'r1',
  };
  const second = {
    model: 'gpt-5',
    prompt_tokens: 12000,
    completion_tokens: 300,
    cache_read_tokens: 9000,
    cache_write_tokens: 0,
    response_id: 'r2',
  };
  const events = [
    {
      id: 1,
      timestamp: '2026-01-01T10:00:00',
      source: 'agent',
      action: 'run',
      llm_metrics: metrics([first]),
    },
    { id: 2, timestamp: '2026-01-01T10:01:00', source: 'agent', action: 'condensation', args: {} },
    {
      id: 3,
      timestamp: '2026-01-01T10:02:00',
      source: 'agent',
      action: 'run',
      llm_metrics: metrics([first, second]),
    },
  ];

  it('takes each response once, a condensation as a compaction, the stated context window', () => {
    const log = readOpenHandsLog(events);
    expect(log.calls.map((call) => [call.id, call.timestamp])).toEqual([
      ['r1', '2026-01-01T10:00:00.000Z'],
      ['r2', '2026-01-01T10:02:00.000Z'],
    ]);
    expect(log.calls[1]!.usage).toMatchObject({
      promptTokens: 12000,
      completionTokens: 300,
      cachedReadTokens: 9000,
    });
    expect(log.compactions).toEqual([
      {
        timestamp: '2026-01-01T10:01:00.000Z',
        trigger: 'condenser',
        preTokens: 9000,
        postTokens: 12000,
        beforeCallIndex: 1,
      },
    ]);
    expect(log.contextWindow).toBe(272000);
  });

  it('is detected from a JSON array of events', () => {
    expect(readSessionLog(JSON.stringify(events, null, 2)).calls).toHaveLength(2);
  });
});

describe('readSessionLog on an OpenHands evaluation output (two trajectories of output.jsonl)', () => {
  const text = readTrace('openhands/multi-swe-bench-output-2.jsonl');
  const runs = text
    .trimEnd()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as {
          instance_id: string;
          metrics: { token_usages: Array<{ response_id: string; prompt_tokens: number }> };
        },
    );
  const log = readSessionLog(text);

  it('is detected, and each trajectory is a child session of its own', () => {
    expect(log.format).toBe('openhands');
    expect(log.calls).toHaveLength(0);
    expect(log.children?.map((child) => child.id)).toEqual(runs.map((run) => run.instance_id));
  });

  it("reads every call metrics.token_usages lists, priced through the run's route (OpenRouter)", () => {
    log.children?.forEach((child, position) => {
      const usages = runs[position]!.metrics.token_usages;
      expect(child.calls.map((call) => call.id)).toEqual(usages.map((usage) => usage.response_id));
      expect(child.calls.map((call) => call.usage.available && call.usage.promptTokens)).toEqual(
        usages.map((usage) => usage.prompt_tokens),
      );
      // metadata.llm_config.model is openai/openrouter-llama-4-maverick: the calls went through OpenRouter.
      expect(new Set(child.calls.map((call) => call.model))).toEqual(
        new Set(['openrouter/meta-llama/llama-4-maverick']),
      );
    });
  });

  it('marks the call that produced the finish action as completing the task', () => {
    expect(log.children?.[0]?.calls.at(-1)?.taskCompleted).toBe(true);
  });
});
