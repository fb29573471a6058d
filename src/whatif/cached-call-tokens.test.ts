import { describe, expect, it } from 'vitest';
import { cachedCallTokens, type PreviousCall } from './cached-call-tokens.js';
import type { LogCallUsage } from './log-history.js';

const recorded = (promptTokens: number, cacheReadTokens: number): LogCallUsage => ({
  promptTokens,
  cacheReadTokens,
  cacheWrite5mTokens: promptTokens - cacheReadTokens - 3,
  cacheWrite1hTokens: 0,
  completionTokens: 100,
  reasoningTokens: 0,
});
const previous = (overrides: Partial<PreviousCall> = {}): PreviousCall => ({
  realPrompt: 100_000,
  whatIfPrompt: 60_000,
  length: 50,
  segment: 0,
  timestamp: 0,
  backToBack: false,
  ...overrides,
});

describe('cachedCallTokens', () => {
  it('reads the unchanged prefix in the proportion the recorded call read its previous prompt', () => {
    // The recorded call read all of its previous prompt: the what-if reads all of its unchanged prefix.
    const warm = cachedCallTokens({
      prompt: 62_000,
      unchangedPrefix: 60_000,
      usage: recorded(102_000, 100_000),
      previous: previous(),
      segment: 0,
      time: 10_000,
      extra: null,
    });
    expect(warm).toEqual({
      promptTokens: 62_000,
      cacheReadTokens: 60_000,
      cacheWrite5mTokens: 1_997,
      cacheWrite1hTokens: 0,
      completionTokens: 100,
      reasoningTokens: 0,
    });
    // The log shows the cache expired (a long pause): the what-if's expired too, and it writes everything again.
    const cold = cachedCallTokens({
      prompt: 62_000,
      unchangedPrefix: 60_000,
      usage: recorded(102_000, 0),
      previous: previous(),
      segment: 0,
      time: 3_600_000,
      extra: null,
    });
    expect(cold.cacheReadTokens).toBe(0);
    expect(cold.cacheWrite5mTokens).toBe(61_998);
  });

  it('finds its cache warm after the agent’s own compaction, which it never made, if the pause was short', () => {
    const input = {
      prompt: 62_000,
      unchangedPrefix: 60_000,
      usage: recorded(36_000, 21_000),
      previous: previous(),
      segment: 1,
      extra: null,
    };
    expect(cachedCallTokens({ ...input, time: 120_000 }).cacheReadTokens).toBe(60_000);
    expect(cachedCallTokens({ ...input, time: 600_000 }).cacheReadTokens).toBe(0);
  });

  it('reads everything an extra call just sent', () => {
    const after = cachedCallTokens({
      prompt: 65_000,
      unchangedPrefix: 63_000,
      usage: recorded(102_000, 50_000),
      previous: previous({ backToBack: true, whatIfPrompt: 63_000 }),
      segment: 0,
      time: 10_000,
      extra: null,
    });
    expect(after.cacheReadTokens).toBe(63_000);
  });
});
