import { describe, expect, it } from 'vitest';
import { readSessionLog } from '../usage/read-session-log.js';
import { readTrace } from '../usage/test-helpers/traces.js';
import { Session } from './session.js';

const TRACES = [
  { file: 'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', agent: 'claude-code' as const },
  {
    file: 'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
    agent: 'codex' as const,
  },
];

/**
 * Replays a recorded session and applies barometer's own compaction whenever a trigger fires: the context
 * shrinks to `keep` of its size and the recorded growth continues from there (later prompts are the recorded
 * ones minus what the compaction removed). The agent's own recorded compactions reset the offset.
 */
function replayWithCompaction(file: string, agent: 'claude-code' | 'codex', keep: number) {
  const log = readSessionLog(readTrace(file));
  const session = new Session({
    model: log.model!,
    agent,
    ...(log.contextWindow ? { contextWindow: log.contextWindow } : {}),
    // Low enough that the standard trigger fires in both recordings.
    triggers: { tokenThreshold: 100_000 },
  });
  const fires: Array<{ call: number; prompt: number; sinceCompactionAfter: number | null }> = [];
  let offset = 0;
  let lastAfter: number | null = null;
  let nextRecorded = 0;
  for (const call of log.calls) {
    while (
      nextRecorded < log.compactions.length &&
      log.compactions[nextRecorded]!.beforeCallIndex <= call.index
    ) {
      const recorded = log.compactions[nextRecorded++]!;
      offset = 0;
      if (recorded.preTokens !== undefined && call.usage.available) {
        session.recordCompaction({
          before: recorded.preTokens,
          after: call.usage.promptTokens,
          trigger: recorded.trigger,
        });
        lastAfter = call.usage.promptTokens;
      }
    }
    if (!call.usage.available) continue;
    const prompt = Math.max(1, call.usage.promptTokens - offset);
    const update = session.update({
      usage: { ...call.usage, promptTokens: prompt },
      timestamp: call.timestamp,
    });
    if (update.trigger.fire) {
      fires.push({ call: call.index, prompt, sinceCompactionAfter: lastAfter });
      const after = Math.round(prompt * keep);
      session.recordCompaction({ before: prompt, after, trigger: update.trigger.trigger! });
      offset += prompt - after;
      lastAfter = after;
    }
  }
  return fires;
}

describe('replaying recorded sessions with compaction applied', () => {
  for (const { file, agent } of TRACES) {
    it(`never fires again in ${agent}'s session before the context grew 10% past its compacted size`, () => {
      const fires = replayWithCompaction(file, agent, 0.4);
      expect(fires.length).toBeGreaterThanOrEqual(1);
      for (const fire of fires.slice(1)) {
        expect(fire.sinceCompactionAfter).not.toBeNull();
        expect(fire.prompt).toBeGreaterThanOrEqual(fire.sinceCompactionAfter! * 1.1);
      }
    });

    it(`holds a stalled compaction in ${agent}'s session until 25% growth, instead of looping`, () => {
      // A compaction that removes only 3% is stalled: without the guard it would fire on every call.
      const fires = replayWithCompaction(file, agent, 0.97);
      expect(fires.length).toBeGreaterThanOrEqual(1);
      for (const fire of fires.slice(1)) {
        expect(fire.prompt).toBeGreaterThanOrEqual(fire.sinceCompactionAfter! * 1.25);
      }
      const calls = readSessionLog(readTrace(file)).calls.length;
      expect(fires.length).toBeLessThan(calls / 10);
    });
  }
});
