import { describe, expect, it } from 'vitest';
import {
  canonicalModelId,
  hasLongContextSuffix,
  normalizeModelId,
  snapshotRank,
  splitModelId,
} from './model-id.js';

describe('normalizeModelId', () => {
  it('trims, lower-cases and removes client decorations', () => {
    expect(normalizeModelId('  Claude-Opus-4-6[1m] ')).toBe('claude-opus-4-6');
    expect(normalizeModelId('models/gemini-2.5-pro')).toBe('gemini-2.5-pro');
  });
});

describe('splitModelId', () => {
  it('splits the provider from a model part that may hold slashes', () => {
    expect(splitModelId('OpenRouter/google/gemini-2.5-pro')).toEqual({
      normalized: 'openrouter/google/gemini-2.5-pro',
      provider: 'openrouter',
      model: 'google/gemini-2.5-pro',
      bare: 'gemini-2.5-pro',
    });
    expect(splitModelId('gpt-5')).toMatchObject({ provider: undefined, model: 'gpt-5', bare: 'gpt-5' });
  });
});

describe('canonicalModelId', () => {
  it('removes -latest and dated snapshot suffixes', () => {
    expect(canonicalModelId('claude-sonnet-4-20250514')).toBe('claude-sonnet-4');
    expect(canonicalModelId('gpt-4o-mini-2024-07-18')).toBe('gpt-4o-mini');
    expect(canonicalModelId('claude-sonnet-4@20250514')).toBe('claude-sonnet-4');
    expect(canonicalModelId('claude-3-5-sonnet-latest')).toBe('claude-3-5-sonnet');
  });

  it('leaves version numbers that are not dates alone', () => {
    expect(canonicalModelId('claude-opus-4-6')).toBe('claude-opus-4-6');
    expect(canonicalModelId('gemini-2.0-flash-001')).toBe('gemini-2.0-flash-001');
  });
});

describe('snapshotRank', () => {
  it('prefers the undated id, then -latest, then the newest date', () => {
    const ids = [
      'claude-3-5-sonnet-20240620',
      'claude-3-5-sonnet-latest',
      'claude-3-5-sonnet',
      'claude-3-5-sonnet-20241022',
    ];
    const ranked = [...ids].sort((a, b) => snapshotRank(b) - snapshotRank(a));
    expect(ranked).toEqual([
      'claude-3-5-sonnet',
      'claude-3-5-sonnet-latest',
      'claude-3-5-sonnet-20241022',
      'claude-3-5-sonnet-20240620',
    ]);
  });
});

describe('hasLongContextSuffix', () => {
  it("recognises Claude Code's [1m] opt-in", () => {
    expect(hasLongContextSuffix('claude-opus-4-6[1m]')).toBe(true);
    expect(hasLongContextSuffix('claude-opus-4-6')).toBe(false);
  });
});
