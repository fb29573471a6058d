import { describe, expect, it } from 'vitest';
import { readTrace } from '../usage/test-helpers/traces.js';
import { replayLogText } from './replay.js';

const CLAUDE = 'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const CODEX = 'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

function aroundCompactions(file: string) {
  const result = replayLogText(readTrace(file));
  return result.compactions.map((compaction) => {
    const at = result.calls.findIndex((call) => call.index === compaction.beforeCallIndex);
    return { result, before: result.calls.slice(0, at), after: result.calls[at]! };
  });
}

describe('replaying recorded sessions with the agent effective window', () => {
  it('counts the Claude Code session calls and its compaction', () => {
    const result = replayLogText(readTrace(CLAUDE));
    expect(result.format).toBe('claude-code');
    expect(result.contextWindow).toBe(167_000);
    expect(result.summary.calls).toBe(139);
    expect(result.compactions).toEqual([
      expect.objectContaining({ trigger: 'auto', preTokens: 170_251, beforeCallIndex: 61 }),
    ]);
  });

  it('counts the Codex rollout calls with its own window', () => {
    const result = replayLogText(readTrace(CODEX));
    expect(result.summary.calls).toBe(286);
    expect(result.contextWindow).toBe(258_400);
    expect(result.summary.compactions).toBe(1);
  });

  for (const file of [CLAUDE, CODEX]) {
    it(`says compress or stronger at least 3 calls before each compaction of ${file.split('/')[0]}, and healthy after`, () => {
      for (const { before, after } of aroundCompactions(file)) {
        const lastThree = before.slice(-3);
        expect(lastThree).toHaveLength(3);
        for (const call of lastThree) expect(['compress', 'terminate']).toContain(call.action);
        expect(after.health).toBe('healthy');
      }
    });
  }

  it('replays the small sessions of every other format', () => {
    expect(replayLogText(readTrace('claude-code/small-sonnet-session.jsonl')).summary.calls).toBe(31);
    expect(
      replayLogText(readTrace('codex/small-codex-session.jsonl'), { model: 'gpt-5' }).summary.calls,
    ).toBe(19);
    expect(replayLogText(readTrace('gemini/small-gemini-session.jsonl')).summary.calls).toBe(6);
    expect(replayLogText(readTrace('openhands/basic_gui_mode.json')).summary.calls).toBe(4);
  });

  it('replays a log whose model nobody knows (aide-gpt-5: no listing, no family): health unknown, unpriced', () => {
    const result = replayLogText(readTrace('codex/small-codex-session.jsonl'));
    expect(result.contextWindow).toBeNull();
    expect(result.summary).toMatchObject({ calls: 19, costUsd: null, unpricedCalls: 19 });
    expect(new Set(result.calls.map((call) => call.health))).toEqual(new Set(['unknown']));
  });
});

describe('task completions and model switches recorded in logs', () => {
  it('marks the calls a Codex task_complete follows, and the semantic trigger fires in the replay', () => {
    const result = replayLogText(readTrace(CODEX));
    // The rollout has 33 task_complete events (grep -c '"task_complete"'), each after a turn with calls.
    expect(result.summary.tasksCompleted).toBe(33);
    const semantic = result.calls.filter((call) =>
      call.reasons.some(
        (reason) => reason.model === 'triggers' && reason.reason.startsWith('semantic compaction triggered'),
      ),
    );
    expect(semantic.length).toBeGreaterThan(0);
    // Seed 004's semantic rule: a completed task and more than 50,000 tokens.
    for (const call of semantic) {
      expect(call.taskCompleted).toBe(true);
      expect(call.promptTokens).toBeGreaterThan(50_000);
    }
  });

  it('marks the Claude Code calls whose TodoWrite completes an item', () => {
    const result = replayLogText(readTrace('claude-code/small-sonnet-session.jsonl'));
    // Computed apart from the reader (a Python pass over the log's TodoWrite inputs): the calls whose TodoWrite
    // lists an item as completed for the first time.
    expect(result.calls.filter((call) => call.taskCompleted).map((call) => call.index)).toEqual([
      3, 6, 8, 10, 12, 15, 17, 25, 27, 29,
    ]);
  });

  it("judges each call against its own model's window when a log switches models", () => {
    const line = (model: string, id: string, second: number, prompt: number) =>
      JSON.stringify({
        type: 'assistant',
        timestamp: `2026-11-01T10:00:${String(second).padStart(2, '0')}.000Z`,
        message: {
          id,
          model,
          role: 'assistant',
          content: [],
          usage: { input_tokens: prompt, output_tokens: 10 },
        },
      });
    // Claude Code keeps 33,000 tokens of any window (docs/rules.md, agent windows): claude-sonnet-4 lists 200,000
    // → 167,000; gpt-4o-mini lists 128,000 → 95,000.
    const log = [
      line('claude-sonnet-4-20250514', 'm1', 1, 120_000),
      line('gpt-4o-mini', 'm2', 2, 120_000),
      line('claude-sonnet-4-20250514', 'm3', 3, 120_000),
    ].join('\n');
    const result = replayLogText(log, { format: 'claude-code' });
    expect(result.calls.map((call) => [call.model, call.contextWindow])).toEqual([
      ['claude-sonnet-4-20250514', 167_000],
      ['gpt-4o-mini', 95_000],
      ['claude-sonnet-4-20250514', 167_000],
    ]);
    // 120,000 tokens: caution on sonnet (critical at 90% of 167,000 = 150,300), critical on gpt-4o-mini
    // (critical at 90% of 95,000 = 85,500).
    expect(result.calls.map((call) => call.health)).toEqual(['caution', 'critical', 'caution']);
  });
});

describe('money in a replay', () => {
  it("prices every call of the Claude Code session at claude-opus-4-6's registry price", () => {
    // Computed apart from the code (a Python pass over the log, one figure per message.id, the last line's
    // usage): models.dev lists claude-opus-4-6 at $5 input, $6.25 cache write, $0.50 cache read and $25 output
    // per million tokens, no tier: $9.52615 over 139 calls; 96.0% of the prompt tokens were cache reads.
    const result = replayLogText(readTrace(CLAUDE));
    expect(result.summary.costUsd).toBeCloseTo(9.52615, 5);
    expect(result.summary.unpricedCalls).toBe(0);
    expect(result.summary.cacheHitPercent).toBe(96);
    const first = result.calls[0]!;
    expect(first.costUsd).not.toBeNull();
    expect(result.calls.reduce((sum, call) => sum + (call.costUsd ?? 0), 0)).toBeCloseTo(9.52615, 5);
  });

  it('says the cost is unknown rather than guessing when the model has no price', () => {
    const result = replayLogText(readTrace('codex/small-codex-session.jsonl'), {
      model: 'my-local-model',
      contextWindow: 128_000,
    });
    expect(result.summary.costUsd).toBeNull();
    expect(result.calls.every((call) => call.costUsd === null)).toBe(true);
  });
});
