import { describe, expect, it } from 'vitest';
import { estimateMarks } from './estimates.js';
import { profileFixture } from './test-fixtures.js';

const profile = profileFixture({ source: null, windowSource: null, priceSource: null });

describe('estimateMarks', () => {
  it('marks the window and the cost estimated when their source is a family estimate', () => {
    const marks = estimateMarks({
      profile: {
        ...profile,
        windowSource: 'family-estimate',
        priceSource: 'family-estimate',
        estimatedFrom: 'claude-opus-4-6',
      } as typeof profile,
    });
    expect(marks.window?.label).toBe('estimated');
    expect(marks.cost?.title).toContain('estimated from claude-opus-4-6');
  });

  it('marks nothing for figures from the registry, the agent or the config, nor when the service does not say', () => {
    expect(estimateMarks({ profile })).toEqual({ window: null, cost: null });
    const told = { ...profile, windowSource: 'agent-reported', priceSource: 'registry' } as typeof profile;
    expect(estimateMarks({ profile: told })).toEqual({ window: null, cost: null });
    // One `source` for both, when the service gives only that.
    const both = { ...profile, source: 'family-estimate' } as typeof profile;
    expect(estimateMarks({ profile: both }).window?.title).not.toContain(' from ');
  });
});
