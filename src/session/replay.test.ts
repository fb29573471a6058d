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

  it('refuses a log whose model is unknown, naming the model and what to give', () => {
    expect(() => replayLogText(readTrace('codex/small-codex-session.jsonl'))).toThrow(
      /aide-gpt-5.*contextWindow/,
    );
  });
});
