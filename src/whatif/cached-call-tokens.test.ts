import { describe, expect, it } from 'vitest';
import type { PromptCacheTokens } from '../cache/prompt-cache-tokens.js';
import { cachedCallTokens } from './cached-call-tokens.js';
import type { LogCallUsage } from './log-history.js';

const recorded = (promptTokens: number, cacheReadTokens: number): LogCallUsage => ({
  promptTokens,
  cacheReadTokens,
  cacheWrite5mTokens: promptTokens - cacheReadTokens - 3,
  cacheWrite1hTokens: 0,
  completionTokens: 100,
  reasoningTokens: 0,
});
const model = (
  promptTokens: number,
  cacheReadTokens: number,
  cacheWrite5mTokens: number,
): PromptCacheTokens => ({
  promptTokens,
  cacheReadTokens,
  cacheWrite5mTokens,
  cacheWrite1hTokens: 0,
});

describe('cachedCallTokens', () => {
  it('is the recorded call exactly when the model sees no difference between the two requests', () => {
    const same = model(100_000, 90_000, 10_000);
    expect(
      cachedCallTokens({ usage: recorded(102_000, 100_000), unedited: same, whatIf: same, extra: null }),
    ).toEqual(recorded(102_000, 100_000));
  });

  it('adds what the edits change, part by part: a batch that rewrites from the system prompt', () => {
    // By hand: the agent's request reads 98,000 and writes 2,000; barometer's, 40,000 tokens smaller, reads only the
    // 10,000-token system prompt and writes the 50,000 after it. Recorded 102,000 = 100,000 read + 1,997 written + 3.
    const figures = cachedCallTokens({
      usage: recorded(102_000, 100_000),
      unedited: model(100_000, 98_000, 2_000),
      whatIf: model(60_000, 10_000, 50_000),
      extra: null,
    });
    expect(figures).toEqual({
      promptTokens: 62_000, // 102,000 − 40,000
      cacheReadTokens: 12_000, // 100,000 + 10,000 − 98,000
      cacheWrite5mTokens: 49_997, // 1,997 + 50,000 − 2,000
      cacheWrite1hTokens: 0,
      completionTokens: 100,
      reasoningTokens: 0,
    });
  });

  it('keeps a miss the log shows: a part never below zero, the parts never above the prompt', () => {
    // The log shows the cache expired (0 read) where the model read everything in both: the what-if reads nothing
    // either, and its writes are clamped to what is left of its prompt.
    const figures = cachedCallTokens({
      usage: recorded(102_000, 0),
      unedited: model(100_000, 98_000, 2_000),
      whatIf: model(60_000, 58_000, 2_000),
      extra: null,
    });
    expect(figures.promptTokens).toBe(62_000);
    expect(figures.cacheReadTokens).toBe(0); // 0 + 58,000 − 98,000 < 0
    expect(figures.cacheWrite5mTokens).toBe(62_000); // 101,997 + 2,000 − 2,000, clamped to 62,000 − 0
    expect(
      figures.cacheReadTokens + figures.cacheWrite5mTokens + figures.cacheWrite1hTokens,
    ).toBeLessThanOrEqual(figures.promptTokens);
  });

  it('gives an extra call its own output', () => {
    const same = model(100_000, 90_000, 10_000);
    const figures = cachedCallTokens({
      usage: recorded(102_000, 100_000),
      unedited: same,
      whatIf: same,
      extra: { completionTokens: 60, reasoningTokens: 0 },
    });
    expect(figures.completionTokens).toBe(60);
    expect(figures.promptTokens).toBe(102_000);
  });
});
