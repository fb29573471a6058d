import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cautionReminderText, criticalReminderText, groupedCount } from './health-reminder.js';
import { healthThresholds } from './health-thresholds.js';

describe('cautionReminderText', () => {
  it('leaves out the window share and critical line when no window is known', () => {
    const text = cautionReminderText({ promptTokens: 1_234_567, thresholds: healthThresholds({}) });
    expect(text).toContain('The last prompt was 1,234,567 tokens, over the optimal size of 100,000.');
    expect(text).not.toContain('window');
    expect(text).not.toContain('critical');
  });

  it('says nothing is lost by starting a new round', () => {
    const text = cautionReminderText({
      promptTokens: 150_000,
      thresholds: healthThresholds({ contextLength: 200_000 }),
    });
    expect(text).toContain('75% of the 200,000-token window');
    expect(text).toContain('Your task notes and existing reminders are kept.');
  });
});

describe('criticalReminderText', () => {
  const thresholds = healthThresholds({ effectiveWindow: 167_000 });

  it('gives the share of the effective window and the countdown', () => {
    // 160,000 / 167,000 = 95.8% → 96%; critical line floor(167,000 · 0.9) = 150,300.
    const text = criticalReminderText({ promptTokens: 160_000, thresholds, countdown: 3 });
    expect(text).toContain(
      '160,000 tokens (96% of the 167,000-token window), over the critical size of 150,300',
    );
    expect(text).toContain('3 more generations from now, a new round will be forced');
  });
});

describe('groupedCount', () => {
  it('groups thousands with commas, as en-US writes an integer', () => {
    const enUS = new Intl.NumberFormat('en-US', { useGrouping: true, maximumFractionDigits: 0 });
    fc.assert(
      fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (value) => {
        expect(groupedCount(value)).toBe(enUS.format(value));
      }),
    );
  });
  it('rounds to a whole count first', () => {
    expect([0, 999, 1000, -1000, -999, 244_800.4, 999_999.5].map(groupedCount)).toEqual([
      '0',
      '999',
      '1,000',
      '-1,000',
      '-999',
      '244,800',
      '1,000,000',
    ]);
  });
});
