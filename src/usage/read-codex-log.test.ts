import { describe, expect, it } from 'vitest';
import { readCodexLog } from './read-codex-log.js';
import { readSessionLog } from './read-session-log.js';
import { SessionLogSchema } from './session-log.js';
import { readTrace } from './test-helpers/traces.js';

const ROLLOUT = 'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

/*
 * Counted independently with jq on the rollout:
 *   573 token_count events: 1 with info null, 572 in pairs with identical total_token_usage
 *   … | .payload.info.total_token_usage' | uniq | wc -l → 286 (sort -u agrees)
 *   the `compacted` record is line 1788; 184 distinct totals come before it
 *   last call before: last_token_usage.input_tokens 209,950 (09:50:57.088Z); first after: 48,297
 *   two repeats between them have last_token_usage all zero and unchanged totals (dropped)
 */
describe('readCodexLog on the reference rollout (gpt-5.3-codex, ~24 h)', () => {
  const log = readSessionLog(readTrace(ROLLOUT));

  it('finds 286 calls after dropping null and repeated token_count events', () => {
    expect(log.format).toBe('codex');
    expect(log.calls).toHaveLength(286);
    expect(log.calls.every((call) => call.usage.available && call.model === 'gpt-5.3-codex')).toBe(true);
    expect(log.model).toBe('gpt-5.3-codex');
    expect(log.contextWindow).toBe(258400);
  });

  it('reads the first call: input already includes cached, output includes reasoning', () => {
    expect(log.calls[0]).toEqual({
      index: 0,
      timestamp: '2026-02-23T11:54:58.922Z',
      model: 'gpt-5.3-codex',
      usage: {
        available: true,
        source: 'codex',
        promptTokens: 17088,
        completionTokens: 350,
        totalTokens: 17438,
        cachedReadTokens: 3456,
        cachedWriteTokens: 0,
        reasoningTokens: 152,
        model: 'gpt-5.3-codex',
        timestamp: '2026-02-23T11:54:58.922Z',
      },
      // Its token_count event's rate_limits: primary 13% of 300 min, secondary 4% of 10,080, resets in epoch seconds.
      windows: [
        {
          id: 'primary',
          usedPercent: 13,
          resetsAt: 1_771_864_834_000,
          windowMinutes: 300,
          status: null,
          source: 'log',
          at: Date.parse('2026-02-23T11:54:58.922Z'),
        },
        {
          id: 'secondary',
          usedPercent: 4,
          resetsAt: 1_772_355_702_000,
          windowMinutes: 10_080,
          status: null,
          source: 'log',
          at: Date.parse('2026-02-23T11:54:58.922Z'),
        },
      ],
    });
  });

  it('finds the one compaction, 209,950 → 48,297, mid-turn and so automatic', () => {
    expect(log.compactions).toEqual([
      {
        timestamp: '2026-02-24T09:51:48.878Z',
        trigger: 'auto',
        preTokens: 209950,
        postTokens: 48297,
        beforeCallIndex: 184,
      },
    ]);
    expect(log.calls[183]).toMatchObject({
      timestamp: '2026-02-24T09:50:57.088Z',
      usage: { promptTokens: 209950 },
    });
    expect(log.calls[184]).toMatchObject({
      timestamp: '2026-02-24T09:52:00.530Z',
      usage: { promptTokens: 48297 },
    });
  });

  it('states the folder the agent worked in: the cwd of session_meta and turn_context', () => {
    expect(log.workingDirectory).toBe('/redacted/path/59b923df4d');
  });

  it('names its first request: the first user_message event (redacted in this recording)', () => {
    expect(log.firstRequest).toBe('[REDACTED_MESSAGE len=32 sha=821fd802]');
  });

  it('produces data that matches SessionLogSchema', () => {
    expect(SessionLogSchema.safeParse(log).success).toBe(true);
  });
});

describe('readCodexLog on other recordings', () => {
  it('finds 19 calls in the small session, model from turn_context, no stated window', () => {
    // 19 token_count events, all with info and all with distinct totals; model_context_window is null.
    const log = readCodexLog(readTrace('codex/small-codex-session.jsonl'));
    expect(log.calls).toHaveLength(19);
    expect(log.model).toBe('aide-gpt-5');
    expect(log.contextWindow).toBeUndefined();
    expect(log.calls[18]!.usage).toMatchObject({
      promptTokens: 22279,
      cachedReadTokens: 13184,
      completionTokens: 1879,
      reasoningTokens: 1344,
      totalTokens: 24158,
    });
  });

  it('calls a compaction at the start of a turn "unknown", and counts context_compacted once', () => {
    const lines = [
      { timestamp: '2026-01-01T00:00:00Z', type: 'session_meta', payload: { id: 's', model: 'gpt-5' } },
      {
        timestamp: '2026-01-01T00:00:01Z',
        type: 'event_msg',
        payload: { type: 'task_started', model_context_window: 1000 },
      },
      { timestamp: '2026-01-01T00:00:02Z', type: 'compacted', payload: { message: '' } },
      { timestamp: '2026-01-01T00:00:02Z', type: 'event_msg', payload: { type: 'context_compacted' } },
    ];
    const log = readCodexLog(lines.map((line) => JSON.stringify(line)).join('\n'));
    expect(log.compactions).toEqual([
      { timestamp: '2026-01-01T00:00:02.000Z', trigger: 'unknown', beforeCallIndex: 0 },
    ]);
    expect(log.model).toBe('gpt-5');
    expect(log.contextWindow).toBe(1000);
  });
});

describe('task completions in a Codex rollout', () => {
  it('marks the last call before each task_complete, once per turn with calls', () => {
    const log = readSessionLog(readTrace(ROLLOUT));
    // 33 task_complete events (grep -c '"task_complete"'); each turn of this rollout made at least one call.
    expect(log.calls.filter((call) => call.taskCompleted).length).toBe(33);
    expect(SessionLogSchema.safeParse(log).success).toBe(true);
  });
});
