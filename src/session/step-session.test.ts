import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../usage/usage-record.js';
import { createSessionState, type SessionState } from './session-state.js';
import { SessionStateSchema } from './session-state-schema.js';
import { stepSession } from './step-session.js';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const usage = (promptTokens: number): UsageRecord => ({
  available: true,
  source: 'manual',
  promptTokens,
  completionTokens: 400,
  totalTokens: promptTokens + 400,
  cachedReadTokens: 0,
  cachedWriteTokens: 0,
  reasoningTokens: 0,
});

describe('stepSession', () => {
  it('judges each session by its own options (trigger thresholds, burn window), whatever the others use', () => {
    // Created and stepped in turn: sessions with equal and with different options between one another.
    const kinds = [
      { triggers: { tokenThreshold: 100_000 } },
      {},
      { triggers: { tokenThreshold: 100_000 } },
      { triggers: { tokenThreshold: 140_000 } },
      { burnWindowSeconds: 600 },
      {},
    ];
    const states = kinds.map((extra, index) =>
      createSessionState(
        { id: `s${index}`, model: 'x', contextWindow: 1_000_000, ...extra },
        { now: () => T0 },
      ),
    );
    const answers = states.map((state) => stepSession(state, { usage: usage(150_000) }, { now: T0 }).update);
    expect(answers.map((answer) => answer.trigger.fire)).toEqual([true, false, true, true, false, false]);
    expect(answers.map((answer) => answer.trigger.reasons[1])).toEqual([
      'standard: 150000 tokens > 100000',
      'standard: 150000 tokens <= 200000',
      'standard: 150000 tokens > 100000',
      'standard: 150000 tokens > 140000',
      'standard: 150000 tokens <= 200000',
      'standard: 150000 tokens <= 200000',
    ]);
    // The burn window too: three calls of 150,400 tokens two minutes apart, over 10 minutes and over the default 5.
    const burns = [{ burnWindowSeconds: 600 }, {}, { burnWindowSeconds: 600 }].map((extra) => {
      let state = createSessionState({ model: 'x', contextWindow: 1_000_000, ...extra }, { now: () => T0 });
      let answer = stepSession(state, { usage: usage(150_000), timestamp: T0 }, { now: T0 });
      for (const minutes of [2, 4]) {
        state = answer.state;
        answer = stepSession(state, { usage: usage(150_000), timestamp: T0 + minutes * 60_000 }, { now: T0 });
      }
      return answer.update.signals.burnRateTokensPerMin;
    });
    expect(burns).toEqual([45_120, 90_240, 45_120]);
  });

  it('makes every state with the same keys, in the schema order, whatever the session and its updates', () => {
    const plain = createSessionState({ id: 'plain', model: 'claude-opus-4-6' }, { now: () => T0 });
    const limited = createSessionState(
      { id: 'limited', model: 'gpt-5', tokenBudget: 1_000_000, rateLimits: { requestsPerMinute: 50 } },
      { now: () => T0 },
    );
    const states: SessionState[] = [];
    let a = plain;
    let b = limited;
    for (let index = 0; index < 3; index++) {
      a = stepSession(a, { usage: usage(50_000 + index) }, { now: T0 + index }).state;
      b = stepSession(
        b,
        {
          usage: usage(60_000),
          headers: { 'x-ratelimit-remaining-tokens': '1000', 'x-ratelimit-limit-tokens': '30000' },
          taskCompleted: true,
          driftPercent: 12,
        },
        { now: T0 + index },
      ).state;
      states.push(a, b);
    }
    const schemaKeys = Object.keys(SessionStateSchema.shape);
    for (const state of states) {
      expect(Object.keys(state)).toEqual(schemaKeys);
      // Keys of absent optional parts are there, undefined: JSON and the schema read the state as before.
      expect(SessionStateSchema.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
    }
  });

  it('leaves the given state as it was', () => {
    const state = createSessionState({ id: 's', model: 'claude-opus-4-6' }, { now: () => T0 });
    const before = JSON.stringify(state);
    const next = stepSession(state, { usage: usage(90_000) }, { now: T0 }).state;
    expect(JSON.stringify(state)).toBe(before);
    expect(next.generations).toBe(1);
  });

  it('answers a state that later steps never change, and writes nothing for a bad time', () => {
    const options = { id: 'kept', model: 'claude-opus-4-6', tpmLimit: 400_000, burnWindowSeconds: 120 };
    let state = createSessionState(options, { now: () => T0 });
    // Calls 0.5 to 61 s apart, so that buckets fill, roll over and the windows expire.
    const gaps = [500, 1_000, 40_000, 2_000, 700, 35_000, 1_500, 61_000, 800, 3_000];
    const answered: Array<{ state: SessionState; json: string }> = [];
    let at = T0;
    for (let call = 0; call < 40; call++) {
      at += gaps[call % gaps.length] as number;
      state = stepSession(state, { usage: usage(40_000 + call * 3_000), timestamp: at }, { now: at }).state;
      answered.push({ state, json: JSON.stringify(state) });
    }
    // What a listener was handed after each post is, 40 posts later, what it was then.
    for (const { state: kept, json } of answered) expect(JSON.stringify(kept)).toBe(json);
    const before = JSON.stringify(state);
    expect(() =>
      stepSession(state, { usage: usage(1_000), timestamp: 8_640_000_000_000_001 }, { now: at }),
    ).toThrow(/timestamp/);
    expect(JSON.stringify(state)).toBe(before);
  });
});
