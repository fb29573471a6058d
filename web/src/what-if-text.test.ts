import { describe, expect, it } from 'vitest';
import type { WhatIfSummary } from '../../src/contract/index.js';
import { calibrationFixture } from './test-fixtures.js';
import { savingsSentence } from './what-if-text.js';

const whatIf = (savedPercent: number, callsAboveCompactionPoint = 0): WhatIfSummary => ({
  real: { promptTokens: 100, costUsd: 9.526, peakPromptTokens: 90, compactions: 1 },
  policy: {
    promptTokens: 80,
    costUsd: 8.02,
    peakPromptTokens: 60,
    compactions: 0,
    evictions: 2,
    trimmedAtArrival: 0,
    archivedItems: 5,
    archivedBytes: 100,
    rereads: 0,
    rereadTokens: 0,
    quotedRereads: 0,
    recaps: 0,
    callsAboveCompactionPoint,
  },
  savedPercent,
  costSavedPercent: 15.8,
  archiveVerified: true,
  archiveFailures: [],
  compactionPoint: 167000,
  calibration: calibrationFixture(0.6, 2.6),
  evictions: [],
  unpricedCalls: 0,
});

describe('savingsSentence', () => {
  it('says what the CLI says last: the tokens saved, the two costs, whether a compaction was forced', () => {
    expect(savingsSentence(whatIf(20.2))).toBe(
      'barometer would have sent 20.2% fewer prompt tokens ($9.53 → $8.02), no forced compaction',
    );
    expect(savingsSentence(whatIf(-3, 4))).toBe(
      "barometer would have sent 3% more prompt tokens ($9.53 → $8.02), 4 calls above the agent's compaction point",
    );
  });
});
