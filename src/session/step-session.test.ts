import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../usage/usage-record.js';
import { createSessionState, type SessionState, SessionStateSchema } from './session-state.js';
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
});
